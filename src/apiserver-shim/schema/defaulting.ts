/**
 * Structural defaulting, as apiextensions-apiserver's schema/defaulting does it: first nulls of
 * non-nullable fields without a default are dropped (PruneNonNullableNullsWithoutDefaults),
 * then defaults are applied top-down: a missing field (or a null one that is not nullable)
 * gets a copy of its default, and the walk continues into it, so a defaulted object receives
 * its own children's defaults.
 */
import {
  additionalSchema,
  cloneJson,
  isRecord,
  type JSONSchemaProps,
  type SchemaNode,
  schemaNode,
} from "./structural.js";

export function applyDefaults(schema: JSONSchemaProps, obj: unknown): void {
  const root = schemaNode(schema);
  pruneNonNullableNulls(obj, root);
  defaultValue(obj, root);
}

const isNonNullableNull = (v: unknown, s: SchemaNode | undefined): boolean =>
  v === null && !!s && !s.nullable;

function pruneNonNullableNulls(x: unknown, s: SchemaNode | undefined): void {
  if (!s) return;
  if (Array.isArray(x)) {
    for (const item of x) pruneNonNullableNulls(item, s.items);
    return;
  }
  if (!isRecord(x)) return;
  const additional = additionalSchema(s);
  for (const [k, v] of Object.entries(x)) {
    const sub = s.properties?.get(k) ?? additional;
    if (!sub) continue;
    if (v === null && !sub.nullable && !sub.hasDefault) delete x[k];
    else pruneNonNullableNulls(v, sub);
  }
}

function defaultValue(x: unknown, s: SchemaNode | undefined): void {
  if (!s) return;
  if (Array.isArray(x)) {
    const items = s.items;
    if (!items) return;
    for (let i = 0; i < x.length; i++) {
      if (isNonNullableNull(x[i], items) && items.hasDefault) x[i] = cloneJson(items.default);
      defaultValue(x[i], items);
    }
    return;
  }
  if (!isRecord(x)) return;
  if (s.properties) {
    for (const [k, prop] of s.properties) {
      if (!prop.hasDefault) continue;
      if (!(k in x) || isNonNullableNull(x[k], prop)) x[k] = cloneJson(prop.default);
    }
  }
  const additional = additionalSchema(s);
  for (const k of Object.keys(x)) {
    const prop = s.properties?.get(k);
    if (prop) {
      defaultValue(x[k], prop);
    } else if (additional) {
      if (isNonNullableNull(x[k], additional) && additional.hasDefault) x[k] = cloneJson(additional.default);
      defaultValue(x[k], additional);
    }
  }
}
