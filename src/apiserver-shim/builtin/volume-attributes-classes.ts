/**
 * `storage.k8s.io/v1beta1` VolumeAttributesClasses, as kube-apiserver 1.33 serves them with the
 * VolumeAttributesClass feature gate and `--runtime-config=storage.k8s.io/v1beta1=true` (the
 * test control plane, test/cluster/up.sh). The rules (kube's registry/storage/
 * volumeattributesclass and validation.ValidateVolumeAttributesClass[Update]):
 *
 *  - cluster-scoped, short name `vac`, no status; DELETE answers the deleted object;
 *  - `driverName` is required and a qualified name (lowercased, as for a StorageClass's
 *    provisioner); `parameters` must hold at least one pair (at most 512, 256 KiB in all);
 *  - `driverName` and `parameters` are immutable. kube validates the new object twice on update
 *    (the strategy and ValidateVolumeAttributesClassUpdate both do), so its causes come twice;
 *    the message lists each once;
 *  - the StorageObjectInUseProtection admission plugin adds the finalizer
 *    `kubernetes.io/vac-protection` on create. kube-controller-manager's
 *    volumeattributesclass-protection-controller, which removes it from a class no claim or
 *    volume uses, runs on neither test backend: a deleted class stays until the finalizer is
 *    removed by hand (tests do).
 *
 * Nothing reads these classes here: a claim may name one that does not exist (kube-apiserver
 * checks no reference either), and no modifier applies them (status.currentVolumeAttributesClassName
 * stays unset, as on the test cluster without a CSI external-resizer's ModifyVolume).
 */
import { fieldForbidden, fieldInvalid, fieldRequired } from "../errors.js";
import type { FieldError } from "../schema/index.js";
import { AGE_COLUMN, column, NAME_COLUMN, objectAge, type TableConvertor } from "../tables/table.js";
import { deepEqual, isPlainObject, type KubeObject } from "../types.js";
import { defineBuiltin } from "./define.js";
import { qualifiedNameErrors } from "./event-validation.js";
import { storageParameterErrors } from "./storage-classes.js";

export const VAC_PROTECTION_FINALIZER = "kubernetes.io/vac-protection";
const IS_DEFAULT_VAC = "volumeattributesclass.alpha.kubernetes.io/is-default-class";

export function validateVolumeAttributesClass(vac: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const driver = typeof vac.driverName === "string" ? vac.driverName : "";
  if (driver === "") errs.push(fieldRequired("driverName"));
  else
    for (const m of qualifiedNameErrors(driver.toLowerCase()))
      errs.push(fieldInvalid("driverName", driver.toLowerCase(), m));
  errs.push(...storageParameterErrors(vac.parameters, false));
  return errs;
}

export function validateVolumeAttributesClassUpdate(vac: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateVolumeAttributesClass(vac);
  if (vac.driverName !== old.driverName)
    errs.push(fieldForbidden("driverName", "updates to driverName are forbidden."));
  const params = (o: KubeObject) => (isPlainObject(o.parameters) ? o.parameters : {});
  if (!deepEqual(params(vac), params(old)))
    errs.push(fieldForbidden("parameters", "updates to parameters are forbidden."));
  errs.push(...validateVolumeAttributesClass(vac));
  return errs;
}

const table: TableConvertor = {
  columns: [
    NAME_COLUMN,
    column("DriverName", "string", "Name of the CSI driver This field is immutable."),
    AGE_COLUMN,
  ],
  cells: (o, now) => [
    o.metadata.annotations?.[IS_DEFAULT_VAC] === "true" ? `${o.metadata.name} (default)` : o.metadata.name,
    o.driverName ?? "",
    objectAge(o, now),
  ],
};

export const volumeAttributesClassDefinition = defineBuiltin({
  group: "storage.k8s.io",
  version: "v1beta1",
  resource: "volumeattributesclasses",
  kind: "VolumeAttributesClass",
  namespaced: false,
  schema: "io.k8s.api.storage.v1beta1.VolumeAttributesClass",
  shortNames: ["vac"],
  table,
  strategy: {
    prepareForCreate(vac) {
      const finalizers = vac.metadata.finalizers ?? [];
      if (!finalizers.includes(VAC_PROTECTION_FINALIZER))
        vac.metadata.finalizers = [...finalizers, VAC_PROTECTION_FINALIZER];
    },
    validate: validateVolumeAttributesClass,
    validateUpdate: validateVolumeAttributesClassUpdate,
  },
});
