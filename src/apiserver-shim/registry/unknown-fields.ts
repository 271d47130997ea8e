/**
 * Fields a built-in's OpenAPI schema does not declare, as kube's strict decoding names
 * them (`spec.foo`, `spec.containers[0].bar`), for `fieldValidation=Strict|Warn`.
 */
import { isPlainObject } from "../types.js";
import type { TypeNode } from "./type-node.js";

export function undeclaredFields(value: unknown, type: TypeNode | undefined, path = ""): string[] {
  if (!type) return [];
  if (Array.isArray(value)) {
    const items = type.items();
    return value.flatMap((v, i) => undeclaredFields(v, items, `${path}[${i}]`));
  }
  if (!isPlainObject(value)) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    const p = path ? `${path}.${k}` : k;
    if (type.closed() && !type.hasField(k)) {
      if (!(path === "" && (k === "apiVersion" || k === "kind"))) out.push(p);
      continue;
    }
    out.push(...undeclaredFields(v, type.field(k), p));
  }
  return out;
}

/** Removes undeclared fields in place, as decoding into kube's typed structs does. */
export function dropUndeclaredFields(value: unknown, type: TypeNode | undefined, root = true): void {
  if (!type) return;
  if (Array.isArray(value)) {
    const items = type.items();
    for (const v of value) dropUndeclaredFields(v, items, false);
    return;
  }
  if (!isPlainObject(value)) return;
  for (const [k, v] of Object.entries(value)) {
    if (type.closed() && !type.hasField(k)) {
      if (!(root && (k === "apiVersion" || k === "kind"))) delete value[k];
      continue;
    }
    dropUndeclaredFields(v, type.field(k), false);
  }
}
