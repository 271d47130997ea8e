/**
 * `storage.k8s.io/v1` StorageClasses, as kube-apiserver serves them: defaults (reclaimPolicy
 * Delete, volumeBindingMode Immediate), ValidateStorageClass and ValidateStorageClassUpdate
 * (parameters, provisioner, reclaimPolicy and volumeBindingMode are immutable;
 * allowVolumeExpansion may change), and the DefaultStorageClass admission plugin's choice of
 * class for a claim that names none.
 *
 * The embedded server starts with the same classes as the test cluster
 * (test/cluster/manifests/storage.yaml and csi.yaml): `standard`, the default, which allows
 * expansion, `fixed-size`, which does not, and `csi` (expandable). Only names and expansion
 * matter to claims here: the simulated kubelet binds every claim whatever its class.
 */
import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired } from "../errors.js";
import type { FieldError } from "../schema/index.js";
import type { ObjectStore } from "../storage/object-store.js";
import { AGE_COLUMN, column, NAME_COLUMN, objectAge, type TableConvertor } from "../tables/table.js";
import { deepEqual, isPlainObject, type KubeObject } from "../types.js";
import { defineBuiltin } from "./define.js";
import { qualifiedNameErrors } from "./event-validation.js";

type Obj = Record<string, unknown>;

export const STORAGE_CLASSES_GR = "storage.k8s.io/storageclasses";
export const IS_DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class";
const BETA_IS_DEFAULT_CLASS = "storageclass.beta.kubernetes.io/is-default-class";
/** The provisioner of the embedded server's classes (the simulated kubelet binds claims). */
export const EMBEDDED_PROVISIONER = "petset.dev/simulated-kubelet";

/** The classes every embedded server starts with (same names as the test cluster's). */
export const DEFAULT_STORAGE_CLASSES: readonly KubeObject[] = [
  {
    apiVersion: "storage.k8s.io/v1",
    kind: "StorageClass",
    metadata: { name: "standard", annotations: { [IS_DEFAULT_CLASS]: "true" } },
    provisioner: EMBEDDED_PROVISIONER,
    reclaimPolicy: "Delete",
    volumeBindingMode: "Immediate",
    allowVolumeExpansion: true,
  },
  {
    apiVersion: "storage.k8s.io/v1",
    kind: "StorageClass",
    metadata: { name: "fixed-size" },
    provisioner: EMBEDDED_PROVISIONER,
    reclaimPolicy: "Delete",
    volumeBindingMode: "Immediate",
    allowVolumeExpansion: false,
  },
  {
    // The test cluster's CSI class (test/cluster/manifests/csi.yaml, issue 27).
    apiVersion: "storage.k8s.io/v1",
    kind: "StorageClass",
    metadata: { name: "csi" },
    provisioner: "csi.petset.dev",
    reclaimPolicy: "Delete",
    volumeBindingMode: "Immediate",
    allowVolumeExpansion: true,
  },
];

const RECLAIM_POLICIES = ["Delete", "Retain"];
const BINDING_MODES = ["Immediate", "WaitForFirstConsumer"];
const MAX_PARAMETERS = 512;
const MAX_PARAMETERS_SIZE = 256 * 1024;

function isDefaultClass(sc: KubeObject): boolean {
  const a = sc.metadata.annotations ?? {};
  return a[IS_DEFAULT_CLASS] === "true" || a[BETA_IS_DEFAULT_CLASS] === "true";
}

/**
 * The class the DefaultStorageClass admission plugin gives a claim without one: among the
 * classes marked default, the newest (then the first by name), as kube's GetDefaultClass.
 */
export function defaultStorageClass(objects: ObjectStore): string | undefined {
  const defaults = objects.list(STORAGE_CLASSES_GR).filter(isDefaultClass);
  defaults.sort((a, b) => {
    const ta = String(a.metadata.creationTimestamp ?? "");
    const tb = String(b.metadata.creationTimestamp ?? "");
    if (ta !== tb) return ta > tb ? -1 : 1;
    return String(a.metadata.name) < String(b.metadata.name) ? -1 : 1;
  });
  return defaults[0]?.metadata.name;
}

/** Whether the class of this name exists and allows expansion (kube's allowResize). */
export function classAllowsExpansion(objects: ObjectStore, name: string): boolean {
  const sc = objects.get(STORAGE_CLASSES_GR, undefined, name);
  return sc?.allowVolumeExpansion === true;
}

/**
 * kube's validateParameters (StorageClass `parameters`, allowEmpty; VolumeAttributesClass
 * `parameters`, at least one pair): at most 512 pairs and 256 KiB of keys and values, no empty key.
 */
export function storageParameterErrors(parameters: unknown, allowEmpty: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const params = isPlainObject(parameters) ? parameters : {};
  const keys = Object.keys(params);
  if (keys.length > MAX_PARAMETERS) {
    errs.push({
      type: "FieldValueTooLong",
      field: "parameters",
      message: `parameters: Too long: may not be more than ${MAX_PARAMETERS} items`,
    });
    return errs;
  }
  let size = 0;
  for (const k of keys) {
    if (k.length < 1) errs.push(fieldInvalid("parameters", k, "field can not be empty."));
    size += k.length + String(params[k] ?? "").length;
  }
  if (size > MAX_PARAMETERS_SIZE)
    errs.push({
      type: "FieldValueTooLong",
      field: "parameters",
      message: `parameters: Too long: may not be more than ${MAX_PARAMETERS_SIZE} bytes`,
    });
  if (!allowEmpty && keys.length === 0)
    errs.push(fieldRequired("parameters", "must contain at least one key/value pair"));
  return errs;
}

export function validateStorageClass(sc: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const provisioner = typeof sc.provisioner === "string" ? sc.provisioner : "";
  if (provisioner === "") errs.push(fieldRequired("provisioner"));
  else
    for (const m of qualifiedNameErrors(provisioner.toLowerCase()))
      errs.push(fieldInvalid("provisioner", provisioner.toLowerCase(), m));
  errs.push(...storageParameterErrors(sc.parameters, true));
  const reclaim = sc.reclaimPolicy;
  if (typeof reclaim === "string" && reclaim !== "" && !RECLAIM_POLICIES.includes(reclaim))
    errs.push(fieldNotSupported("reclaimPolicy", reclaim, RECLAIM_POLICIES));
  const mode = sc.volumeBindingMode;
  if (mode === undefined || mode === null) errs.push(fieldRequired("volumeBindingMode"));
  else if (!BINDING_MODES.includes(String(mode)))
    errs.push(fieldNotSupported("volumeBindingMode", mode, BINDING_MODES));
  return errs;
}

export function validateStorageClassUpdate(sc: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateStorageClass(sc);
  const params = (o: KubeObject) =>
    isPlainObject(o.parameters) && Object.keys(o.parameters).length ? o.parameters : {};
  if (!deepEqual(params(sc), params(old)))
    errs.push(fieldForbidden("parameters", "updates to parameters are forbidden."));
  if (sc.provisioner !== old.provisioner)
    errs.push(fieldForbidden("provisioner", "updates to provisioner are forbidden."));
  if (sc.reclaimPolicy !== old.reclaimPolicy)
    errs.push(fieldForbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."));
  if (sc.volumeBindingMode !== old.volumeBindingMode)
    errs.push(fieldInvalid("volumeBindingMode", sc.volumeBindingMode, "field is immutable"));
  return errs;
}

const storageClassTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    // kube describes the columns with the StorageClass field docs.
    column("Provisioner", "string", "provisioner indicates the type of the provisioner."),
    column(
      "ReclaimPolicy",
      "string",
      "reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.",
    ),
    column(
      "VolumeBindingMode",
      "string",
      "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature.",
    ),
    column(
      "AllowVolumeExpansion",
      "string",
      "allowVolumeExpansion shows whether the storage class allow volume expand.",
    ),
    AGE_COLUMN,
  ],
  cells: (o, now) => [
    isDefaultClass(o) ? `${o.metadata.name} (default)` : o.metadata.name,
    o.provisioner ?? "",
    o.reclaimPolicy ?? "Delete",
    o.volumeBindingMode ?? "Immediate",
    o.allowVolumeExpansion === true,
    objectAge(o, now),
  ],
};

export const storageClassDefinition = defineBuiltin({
  group: "storage.k8s.io",
  version: "v1",
  resource: "storageclasses",
  kind: "StorageClass",
  namespaced: false,
  schema: "io.k8s.api.storage.v1.StorageClass",
  shortNames: ["sc"],
  table: storageClassTable,
  strategy: {
    applyDefaults(sc: Obj) {
      sc.reclaimPolicy ??= "Delete";
      sc.volumeBindingMode ??= "Immediate";
    },
    validate: validateStorageClass,
    validateUpdate: validateStorageClassUpdate,
  },
});
