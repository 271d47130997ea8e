/**
 * Schema navigation shared by strategic merge patch and server-side apply: for a path into
 * an object, what kind of list or map lives there. Built from OpenAPI v3 schemas (built-ins,
 * with $ref) or CRD structural schemas.
 */
import { isPlainObject } from "../types.js";

export interface TypeNode {
  /** Child schema of an object field or map value. */
  field(name: string): TypeNode | undefined;
  /** Whether `name` is a declared property (a struct field) rather than a map entry. */
  hasField(name: string): boolean;
  /** Element schema of a list. */
  items(): TypeNode | undefined;
  /** `atomic` | `set` | `map`; lists without markers are atomic. */
  listType(): "atomic" | "set" | "map";
  /** Keys of an associative list. */
  listMapKeys(): string[];
  /** `x-kubernetes-patch-merge-key` (strategic merge patch). */
  patchMergeKey(): string | undefined;
  /** `x-kubernetes-patch-strategy`, e.g. `merge`, `retainKeys`, `merge,retainKeys`. */
  patchStrategy(): string | undefined;
  /** Maps marked `x-kubernetes-map-type: atomic` are replaced whole. */
  atomicMap(): boolean;
  /** A struct: declared properties only (no additionalProperties, no preserve-unknown-fields). */
  closed(): boolean;
  /** The schema's `default`, if any (list-map keys use it when an item omits them). */
  defaultValue(): unknown;
}

type Schema = Record<string, unknown>;
export type RefResolver = (ref: string) => Schema | undefined;

/** Wraps an OpenAPI / JSONSchemaProps schema; `resolve` follows `$ref`s. */
export function schemaTypeNode(schema: Schema, resolve: RefResolver = () => undefined): TypeNode {
  const s = deref(schema, resolve);
  const wrap = (child: unknown): TypeNode | undefined =>
    isPlainObject(child) ? schemaTypeNode(child, resolve) : undefined;
  return {
    field(name) {
      const props = s.properties;
      if (isPlainObject(props) && props[name] !== undefined) return wrap(props[name]);
      if (isPlainObject(s.additionalProperties)) return wrap(s.additionalProperties);
      return undefined;
    },
    hasField(name) {
      return isPlainObject(s.properties) && s.properties[name] !== undefined;
    },
    items: () => wrap(s.items),
    listType() {
      const t = s["x-kubernetes-list-type"];
      if (t === "map" || t === "set" || t === "atomic") return t;
      const strategy = String(s["x-kubernetes-patch-strategy"] ?? "");
      if (strategy.split(",").includes("merge")) {
        if (s["x-kubernetes-patch-merge-key"]) return "map";
        return "set";
      }
      return "atomic";
    },
    listMapKeys() {
      const keys = s["x-kubernetes-list-map-keys"];
      if (Array.isArray(keys)) return keys.map(String);
      const mk = s["x-kubernetes-patch-merge-key"];
      return typeof mk === "string" ? [mk] : [];
    },
    patchMergeKey: () =>
      typeof s["x-kubernetes-patch-merge-key"] === "string" ? s["x-kubernetes-patch-merge-key"] : undefined,
    patchStrategy: () =>
      typeof s["x-kubernetes-patch-strategy"] === "string" ? s["x-kubernetes-patch-strategy"] : undefined,
    // An object schema that declares nothing inside (runtime.RawExtension: a ControllerRevision's
    // `data`) is atomic to kube's field manager too: owned and replaced whole.
    atomicMap: () =>
      s["x-kubernetes-map-type"] === "atomic" ||
      (s.type === "object" &&
        s.properties === undefined &&
        s.additionalProperties === undefined &&
        s["x-kubernetes-preserve-unknown-fields"] !== true &&
        s["x-kubernetes-embedded-resource"] !== true),
    defaultValue: () => s.default,
    closed: () =>
      isPlainObject(s.properties) &&
      s.additionalProperties === undefined &&
      s["x-kubernetes-preserve-unknown-fields"] !== true,
  };
}

function deref(schema: Schema, resolve: RefResolver): Schema {
  let s = schema;
  for (let i = 0; i < 10; i++) {
    const ref = typeof s.$ref === "string" ? s.$ref : firstAllOfRef(s);
    if (!ref) return s;
    const target = resolve(ref);
    if (!target) return s;
    // Keep extensions written beside the $ref (list types live on the field, not the type).
    const { $ref: _r, allOf: _a, ...rest } = s;
    s = { ...target, ...rest };
  }
  return s;
}

function firstAllOfRef(s: Schema): string | undefined {
  if (!Array.isArray(s.allOf) || s.allOf.length !== 1) return undefined;
  const first: unknown = s.allOf[0];
  return isPlainObject(first) && typeof first.$ref === "string" ? first.$ref : undefined;
}
