/**
 * The `x-kubernetes-list-type` invariants (apiextensions schema/listtype): items of a `set`
 * are unique, items of a `map` are objects with unique `x-kubernetes-list-map-keys` values.
 * Every repeated item after the first is reported as `Duplicate value`.
 */
import { type FieldError, FieldPath, fieldErrors } from "./field-error.js";
import { additionalSchema, canonicalJson, isRecord, type SchemaNode } from "./structural.js";

export function validateListSetsAndMaps(
  s: SchemaNode,
  obj: unknown,
  path: FieldPath = FieldPath.root,
): FieldError[] {
  const errs: FieldError[] = [];
  walk(s, obj, path, errs);
  return errs;
}

function walk(s: SchemaNode | undefined, obj: unknown, path: FieldPath, errs: FieldError[]): void {
  if (!s) return;
  if (Array.isArray(obj)) {
    if (s.listType === "set") {
      for (const i of nonUniqueIndices(obj.map(canonicalJson)))
        errs.push(fieldErrors.duplicate(path.index(i).toString(), obj[i]));
    } else if (s.listType === "map") {
      errs.push(...listMapErrors(s, obj, path));
    }
    if (s.items) for (let i = 0; i < obj.length; i++) walk(s.items, obj[i], path.index(i), errs);
    return;
  }
  if (!isRecord(obj)) return;
  const additional = additionalSchema(s);
  for (const [k, v] of Object.entries(obj)) {
    if (additional) walk(additional, v, path.key(k), errs);
    const prop = s.properties?.get(k);
    if (prop) walk(prop, v, path.child(k), errs);
  }
}

/** Indices of the second occurrence of each repeated key (later repeats are not reported again). */
function nonUniqueIndices(keys: readonly string[]): number[] {
  const seen = new Map<string, number>();
  const out: number[] = [];
  keys.forEach((k, i) => {
    const times = seen.get(k) ?? 0;
    if (times === 1) out.push(i);
    seen.set(k, times + 1);
  });
  return out;
}

function listMapErrors(s: SchemaNode, obj: unknown[], path: FieldPath): FieldError[] {
  for (let i = 0; i < obj.length; i++) {
    const x = obj[i];
    if (x !== null && !isRecord(x)) {
      return [
        fieldErrors.invalid(path.index(i).toString(), x, "must be an object for an array of list-type map"),
      ];
    }
  }
  if (obj.length <= 1) return [];
  const keyObjects = obj.map((x) => {
    const key: Record<string, unknown> = {};
    if (isRecord(x)) for (const f of s.listMapKeys) if (f in x) key[f] = x[f];
    return key;
  });
  return nonUniqueIndices(keyObjects.map(canonicalJson)).map((i) =>
    fieldErrors.duplicate(path.index(i).toString(), keyObjects[i]),
  );
}
