/** PersistentVolumeClaims and PersistentVolumes (no provisioner: claims stay Pending unless bound). */
import { fieldForbidden } from "../errors.js";
import { pvcTable, pvTable } from "../tables/builtin-tables.js";
import { deepEqual, isPlainObject } from "../types.js";
import { defineBuiltin } from "./define.js";

type Obj = Record<string, unknown>;

export const pvcDefinition = defineBuiltin({
  group: "",
  version: "v1",
  resource: "persistentvolumeclaims",
  kind: "PersistentVolumeClaim",
  namespaced: true,
  schema: "io.k8s.api.core.v1.PersistentVolumeClaim",
  shortNames: ["pvc"],
  status: true,
  table: pvcTable,
  strategy: {
    applyDefaults(pvc) {
      if (isPlainObject(pvc.spec)) pvc.spec.volumeMode ??= "Filesystem";
    },
    prepareForCreate(pvc) {
      const spec = (isPlainObject(pvc.spec) ? pvc.spec : {}) as Obj;
      pvc.spec = spec;
      spec.volumeMode ??= "Filesystem";
      pvc.status = { phase: "Pending" };
    },
    validateUpdate(pvc, old) {
      const strip = (s: unknown) => {
        const { resources: _r, volumeAttributesClassName: _v, volumeName: _n, ...rest } = (s ?? {}) as Obj;
        return rest;
      };
      if (!deepEqual(strip(pvc.spec), strip(old.spec)))
        return [
          fieldForbidden(
            "spec",
            "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims",
          ),
        ];
      return [];
    },
  },
});

export const pvDefinition = defineBuiltin({
  group: "",
  version: "v1",
  resource: "persistentvolumes",
  kind: "PersistentVolume",
  namespaced: false,
  schema: "io.k8s.api.core.v1.PersistentVolume",
  shortNames: ["pv"],
  status: true,
  table: pvTable,
  strategy: {
    applyDefaults(pv) {
      if (!isPlainObject(pv.spec)) return;
      pv.spec.persistentVolumeReclaimPolicy ??= "Retain";
      pv.spec.volumeMode ??= "Filesystem";
    },
    prepareForCreate(pv) {
      const spec = (isPlainObject(pv.spec) ? pv.spec : {}) as Obj;
      pv.spec = spec;
      spec.persistentVolumeReclaimPolicy ??= "Retain";
      spec.volumeMode ??= "Filesystem";
      pv.status = { phase: "Pending" };
    },
  },
});
