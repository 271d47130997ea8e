/**
 * Volume rules of kube's ValidatePodSpec that a client notices, with kube's field paths and
 * messages: volume names are DNS-1123 labels and unique; each container's mounts name a volume
 * of the pod and use a mount path once; downward-API files, plain or inside a `projected`
 * volume, select one of the pod fields the kubelet can write into a file (bare or subscripted
 * labels and annotations, name, namespace, uid). What kube accepts here, the shim accepts.
 */
import { fieldInvalid, fieldNotSupported, fieldRequired } from "../errors.js";
import { validateName } from "../registry/object-meta.js";
import { fieldErrors } from "../schema/field-error.js";
import type { FieldError } from "../schema/index.js";
import { isPlainObject } from "../types.js";

type Obj = Record<string, unknown>;
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);

/** kube's validVolumeDownwardAPIFieldPathExpressions, sorted as its messages list them. */
const VOLUME_FIELD_PATHS = [
  "metadata.annotations",
  "metadata.labels",
  "metadata.name",
  "metadata.namespace",
  "metadata.uid",
];
/** What kube's ConvertDownwardAPIFieldLabel knows at all (env may use more than volumes). */
const KNOWN_FIELD_PATHS = new Set([
  ...VOLUME_FIELD_PATHS,
  "spec.nodeName",
  "spec.serviceAccountName",
  "status.hostIP",
  "status.hostIPs",
  "status.podIP",
  "status.podIPs",
]);
const SUBSCRIPTED = /^metadata\.(labels|annotations)\['[^']*'\]$/;

/**
 * kube's validateDownwardAPIVolumeFile. Its callers pass the `downwardAPI` path, not the
 * item's index, so every item's errors name `...downwardAPI.path` / `...downwardAPI.fieldRef`.
 */
function validateDownwardApiFile(item: Obj, f: string): FieldError[] {
  const errs: FieldError[] = [];
  const file = typeof item.path === "string" ? item.path : "";
  if (!file) errs.push(fieldRequired(`${f}.path`));
  else if (file.startsWith("/")) errs.push(fieldInvalid(`${f}.path`, file, "must be a relative path"));
  else if (file.split("/").includes(".."))
    errs.push(fieldInvalid(`${f}.path`, file, "must not contain '..'"));
  if (!isPlainObject(item.fieldRef)) return errs;
  const fieldPath = typeof item.fieldRef.fieldPath === "string" ? item.fieldRef.fieldPath : "";
  const ref = `${f}.fieldRef`;
  if (!fieldPath) errs.push(fieldRequired(`${ref}.fieldPath`));
  else if (SUBSCRIPTED.test(fieldPath)) return errs;
  else if (!KNOWN_FIELD_PATHS.has(fieldPath))
    errs.push(
      fieldInvalid(
        `${ref}.fieldPath`,
        fieldPath,
        `error converting fieldPath: field label not supported: ${fieldPath}`,
      ),
    );
  else if (!VOLUME_FIELD_PATHS.includes(fieldPath))
    errs.push(fieldNotSupported(`${ref}.fieldPath`, fieldPath, VOLUME_FIELD_PATHS));
  return errs;
}

function validateVolumeSource(vol: Obj, f: string): FieldError[] {
  const errs: FieldError[] = [];
  if (isPlainObject(vol.downwardAPI))
    for (const item of list(vol.downwardAPI.items))
      errs.push(...validateDownwardApiFile(item, `${f}.downwardAPI`));
  if (isPlainObject(vol.projected))
    list(vol.projected.sources).forEach((source, k) => {
      if (isPlainObject(source.downwardAPI))
        for (const item of list(source.downwardAPI.items))
          errs.push(...validateDownwardApiFile(item, `${f}.projected.sources[${k}].downwardAPI`));
    });
  return errs;
}

/**
 * The pod's volumes; returns the errors and the names a mount may refer to (as kube: only
 * volumes without errors, so a mount of a broken volume is also "Not found").
 */
export function validateVolumes(spec: Obj, path: string): { errs: FieldError[]; names: Set<string> } {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  list(spec.volumes).forEach((vol, i) => {
    const f = `${path}.volumes[${i}]`;
    const name = typeof vol.name === "string" ? vol.name : "";
    const el = validateVolumeSource(vol, f);
    if (!name) el.push(fieldRequired(`${f}.name`));
    else el.push(...validateName(name, "label", `${f}.name`));
    if (names.has(name)) el.push(fieldErrors.duplicate(`${f}.name`, name));
    if (el.length === 0) names.add(name);
    else errs.push(...el);
  });
  return { errs, names };
}

/** One container's mounts: each names a volume of the pod, each mount path once. */
export function validateVolumeMounts(container: Obj, field: string, volumes: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const paths = new Set<string>();
  list(container.volumeMounts).forEach((m, i) => {
    const f = `${field}.volumeMounts[${i}]`;
    if (typeof m.name !== "string" || !m.name) errs.push(fieldRequired(`${f}.name`));
    else if (!volumes.has(m.name)) errs.push(fieldErrors.notFound(`${f}.name`, m.name));
    if (typeof m.mountPath !== "string" || !m.mountPath) errs.push(fieldRequired(`${f}.mountPath`));
    else {
      if (paths.has(m.mountPath)) errs.push(fieldInvalid(`${f}.mountPath`, m.mountPath, "must be unique"));
      paths.add(m.mountPath);
    }
  });
  return errs;
}
