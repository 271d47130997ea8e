/**
 * Built-in objects as kube-apiserver prints them: it decodes every body into a Go struct and
 * encodes that, so Go's encoding/json rules decide which fields appear. `omitempty` drops
 * empty strings, zero numbers, false, and empty or nil maps and slices (not pointers to
 * zero values); fields without it always appear (nil maps/slices/pointers as `null`, zero
 * scalars as `""`/0/false); struct fields always appear, `omitempty` or not (an unset
 * `metav1.Time` as `null`). The same typed view is what kube's field manager compares, so
 * managedFields are computed on it too: an empty typed object already has `spec`, so a
 * create does not own `spec` itself, only what is below it.
 *
 * The rules come from the committed descriptors (Go struct tags of k8s.io/api); kinds
 * without one (custom resources, CRDs) are left as they are.
 */
import { type FieldDescriptor, loadDescriptors, META } from "../protobuf/descriptors.js";
import { isPlainObject, type KubeObject } from "../types.js";

type Obj = Record<string, unknown>;
const OMIT = Symbol("omit");
const TIMES = new Set([`${META}Time`, `${META}MicroTime`]);
const flattened = new Map<string, FieldDescriptor[]>();

/** The message's fields with inline (embedded) structs' fields lifted into it. */
function fieldsOf(message: string): FieldDescriptor[] {
  let out = flattened.get(message);
  if (out) return out;
  out = [];
  for (const f of Object.values(loadDescriptors().messages[message] ?? {}))
    if (f.inline) out.push(...fieldsOf(f.type));
    else out.push(f);
  flattened.set(message, out);
  return out;
}

function isMessage(type: string): boolean {
  return loadDescriptors().messages[type] !== undefined;
}

function zeroScalar(type: string): unknown {
  if (type === "string") return "";
  if (type === "bool") return false;
  if (type === "bytes") return null;
  if (type === "k8s.io.apimachinery.pkg.util.intstr.IntOrString") return 0;
  if (type === "k8s.io.apimachinery.pkg.api.resource.Quantity") return "0";
  if (type === `${META}Duration`) return "0s";
  if (type === `${META}FieldsV1` || type === "k8s.io.apimachinery.pkg.runtime.RawExtension") return null;
  return 0;
}

function absentField(f: FieldDescriptor): unknown {
  if (f.map || f.repeated || f.pointer) return f.omitEmpty ? OMIT : null;
  if (TIMES.has(f.type)) return null;
  if (isMessage(f.type)) return encodeMessage(f.type, {});
  if (f.omitEmpty && !f.type.includes(".")) return OMIT;
  return zeroScalar(f.type);
}

function encodeField(f: FieldDescriptor, v: unknown): unknown {
  if (v === undefined || v === null) return absentField(f);
  if (f.map) {
    if (!isPlainObject(v)) return v;
    if (f.omitEmpty && Object.keys(v).length === 0) return OMIT;
    const valueType = f.map[1];
    if (!isMessage(valueType)) return v;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, encodeMessage(valueType, x)]));
  }
  if (f.repeated) {
    if (!Array.isArray(v)) return v;
    if (f.omitEmpty && v.length === 0) return OMIT;
    return isMessage(f.type) ? v.map((x) => (isPlainObject(x) ? encodeMessage(f.type, x) : x)) : v;
  }
  if (isMessage(f.type)) return isPlainObject(v) ? encodeMessage(f.type, v) : v;
  if (f.omitEmpty && !f.pointer && (v === "" || v === 0 || v === false)) return OMIT;
  return v;
}

function encodeMessage(message: string, value: unknown): Obj {
  const src: Obj = isPlainObject(value) ? value : {};
  const fields = fieldsOf(message);
  const byName = new Map(fields.map((f) => [f.json, f]));
  const out: Obj = {};
  for (const [k, v] of Object.entries(src)) {
    const f = byName.get(k);
    const encoded = f ? encodeField(f, v) : v;
    if (encoded !== OMIT) out[k] = encoded;
  }
  for (const f of fields) {
    if (f.json in src) continue;
    const zero = absentField(f);
    if (zero !== OMIT) out[f.json] = zero;
  }
  return out;
}

function rootOf(apiVersion: unknown, kind: unknown): string | undefined {
  return loadDescriptors().roots[`${String(apiVersion)}/${String(kind)}`];
}

/** `obj` as kube's typed JSON encoding prints it (a new object; unknown kinds unchanged). */
export function goEncode(obj: KubeObject): KubeObject {
  const root = rootOf(obj.apiVersion, obj.kind);
  if (!root) return obj;
  return { apiVersion: obj.apiVersion, kind: obj.kind, ...encodeMessage(root, obj) } as KubeObject;
}

/**
 * An empty typed object of the kind (what kube's field manager compares a create with), or
 * undefined for kinds without Go types.
 */
export function goZeroObject(apiVersion: string, kind: string): KubeObject | undefined {
  const root = rootOf(apiVersion, kind);
  if (!root) return undefined;
  return { apiVersion, kind, ...encodeMessage(root, {}) } as KubeObject;
}
