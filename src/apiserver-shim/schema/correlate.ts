/**
 * Correlation of a new value with its old value on update (k8s.io/apiserver cel/common
 * CorrelatedObject): map entries correlate by key, list-type map items by their key fields;
 * items of other lists do not correlate. Transition rules and validation ratcheting use it.
 */
import { canonicalJson, isRecord, type SchemaNode } from "./structural.js";

/** Returns a function giving, for a new list item, the old item with the same keys (or undefined). */
export function listItemCorrelator(s: SchemaNode, old: unknown): (item: unknown) => unknown {
  if (s.listType !== "map" || !Array.isArray(old) || s.listMapKeys.length === 0) return () => undefined;
  const keyOf = (item: unknown): string | undefined => {
    if (!isRecord(item)) return undefined;
    return canonicalJson(s.listMapKeys.map((k) => item[k] ?? s.items?.properties?.get(k)?.default ?? null));
  };
  const byKey = new Map<string, unknown>();
  for (const item of old) {
    const key = keyOf(item);
    if (key !== undefined && !byKey.has(key)) byKey.set(key, item);
  }
  return (item) => {
    const key = keyOf(item);
    return key === undefined ? undefined : byKey.get(key);
  };
}

/** The old value of a map entry, when the old value is a map. */
export function oldEntry(old: unknown, key: string): unknown {
  return isRecord(old) ? old[key] : undefined;
}

export function deepEqualJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
