/** Plain JSON values and the object shapes the shim stores; everything is plain data. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  manager: string;
  operation: "Apply" | "Update";
  apiVersion: string;
  time?: string;
  fieldsType: "FieldsV1";
  fieldsV1: JsonObject;
  subresource?: string;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: ManagedFieldsEntry[];
  [key: string]: unknown;
}

/** A stored object: apiVersion/kind/metadata plus arbitrary content. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

/** Group + resource: the storage identity of a resource (all versions share it). */
export interface GroupResource {
  group: string;
  resource: string;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * A copy of a JSON value with exactly JSON's semantics (undefined members dropped, undefined
 * array items and non-finite numbers become null, `toJSON` honoured), walked directly:
 * the JSON round trip it replaces was the server's largest single cost (docs/benchmarks.md).
 */
export function deepClone<T>(v: T): T {
  return v === undefined ? v : (cloneJson(v) as T);
}

const droppedByJson = (x: unknown) => x === undefined || typeof x === "function" || typeof x === "symbol";

function cloneJson(v: unknown): unknown {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map((x) => (droppedByJson(x) ? null : cloneJson(x)));
  if (typeof (v as { toJSON?: unknown }).toJSON === "function") return JSON.parse(JSON.stringify(v));
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[k];
    if (droppedByJson(x)) continue;
    // An own "__proto__" member (JSON.parse makes one) must stay data, never a prototype.
    if (k === "__proto__")
      Object.defineProperty(out, k, {
        value: cloneJson(x),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else out[k] = cloneJson(x);
  }
  return out;
}

/** JSON with object keys sorted: equal objects give equal strings (used for no-op detection). */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(sortKeys(v));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) if (v[k] !== undefined) out[k] = sortKeys(v[k]);
    return out;
  }
  return v;
}

/**
 * Whether two JSON values are equal as canonicalJson would judge them (key order ignored,
 * undefined members absent), compared directly instead of serializing both.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  // Scalars, mixed kinds and objects with toJSON: as canonicalJson judges them.
  if (
    !isPlainObject(a) ||
    !isPlainObject(b) ||
    typeof a.toJSON === "function" ||
    typeof b.toJSON === "function"
  )
    return canonicalJson(a) === canonicalJson(b);
  let defined = 0;
  for (const k of Object.keys(a)) {
    if (a[k] === undefined) continue;
    defined++;
    if (!Object.hasOwn(b, k) || !deepEqual(a[k], b[k])) return false;
  }
  for (const k of Object.keys(b)) if (b[k] !== undefined) defined--;
  return defined === 0;
}
