/**
 * PersistentVolumeClaims and PersistentVolumes (no provisioner here: the simulated kubelet
 * binds claims; src/apiserver-shim/kubelet/claim-resizer.ts plays the CSI resizer).
 */
import { fieldForbidden, fieldNotSupported, fieldRequired } from "../errors.js";
import type { FieldError } from "../schema/index.js";
import type { ObjectStore } from "../storage/object-store.js";
import { pvcTable, pvTable } from "../tables/builtin-tables.js";
import { isPlainObject } from "../types.js";
import { admitClaimResize, validateClaimUpdate } from "./claim-update-validation.js";
import { defineBuiltin } from "./define.js";
import { classAllowsExpansion, defaultStorageClass } from "./storage-classes.js";

type Obj = Record<string, unknown>;

/**
 * Claims read the StorageClasses through the store: the DefaultStorageClass admission plugin
 * fills in a missing class on create, PersistentVolumeClaimResize refuses growth the class does
 * not allow (see claim-update-validation.ts).
 */
export function pvcDefinition(objects: ObjectStore) {
  return defineBuiltin({
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
        const annotated = pvc.metadata.annotations?.["volume.beta.kubernetes.io/storage-class"] !== undefined;
        if (spec.storageClassName === undefined && !annotated) {
          const cls = defaultStorageClass(objects);
          if (cls !== undefined) spec.storageClassName = cls;
        }
      },
      validate(pvc) {
        return validateClaimSpec(pvc.spec, "spec");
      },
      validateUpdate(pvc, old) {
        return [...validateClaimSpec(pvc.spec, "spec"), ...validateClaimUpdate(pvc, old)];
      },
      admitUpdate(pvc, old) {
        admitClaimResize(pvc, old, (cls) => classAllowsExpansion(objects, cls));
      },
    },
  });
}

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

const ACCESS_MODES = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"];

/** kube's ValidatePersistentVolumeClaimSpec, the rules a claim template can break: access modes and storage. */
export function validateClaimSpec(spec: unknown, path: string): FieldError[] {
  const s = (isPlainObject(spec) ? spec : {}) as Obj;
  const errs: FieldError[] = [];
  const modes = Array.isArray(s.accessModes) ? s.accessModes : [];
  if (modes.length === 0)
    errs.push(fieldRequired(`${path}.accessModes`, "at least 1 access mode is required"));
  for (const m of modes)
    if (!ACCESS_MODES.includes(String(m)))
      errs.push(fieldNotSupported(`${path}.accessModes`, m, ACCESS_MODES));
  if (
    modes.includes("ReadWriteOncePod") &&
    modes.some((m) => m !== "ReadWriteOncePod" && ACCESS_MODES.includes(String(m)))
  )
    errs.push(fieldForbidden(`${path}.accessModes`, "may not use ReadWriteOncePod with other access modes"));
  const requests =
    isPlainObject(s.resources) && isPlainObject(s.resources.requests) ? s.resources.requests : {};
  if (requests.storage === undefined) errs.push(fieldRequired(`${path}.resources[storage]`));
  return errs;
}
