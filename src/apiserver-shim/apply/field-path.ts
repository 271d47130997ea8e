/**
 * Field paths as structured-merge-diff names them: `f:name` (field), `k:{...}` (item of an
 * associative list), `v:value` (item of a set), `i:N` (item of an atomic-by-index list).
 */

import type { TypeNode } from "../registry/type-node.js";
import { canonicalJson, isPlainObject, type JsonValue } from "../types.js";

export type PathElement = { f: string } | { k: Record<string, JsonValue> } | { v: JsonValue } | { i: number };

export type FieldPath = PathElement[];

/** The fieldsV1 key of one element, e.g. `f:spec`, `k:{"name":"app"}`. */
export function elementKey(pe: PathElement): string {
  if ("f" in pe) return `f:${pe.f}`;
  if ("k" in pe) return `k:${canonicalJson(pe.k)}`;
  if ("v" in pe) return `v:${JSON.stringify(pe.v)}`;
  return `i:${pe.i}`;
}

export function parseElementKey(key: string): PathElement | undefined {
  const tag = key.slice(0, 2);
  const rest = key.slice(2);
  switch (tag) {
    case "f:":
      return { f: rest };
    case "k:":
      return { k: JSON.parse(rest) as Record<string, JsonValue> };
    case "v:":
      return { v: JSON.parse(rest) as JsonValue };
    case "i:":
      return { i: Number(rest) };
  }
  return undefined;
}

/** Stable identity of a path (for set membership). */
export function pathId(p: FieldPath): string {
  return p.map(elementKey).join("\u0000");
}

/** kube's rendering in conflict messages: `.spec.containers[name="app"].image`. */
export function pathString(p: FieldPath): string {
  let out = "";
  for (const pe of p) {
    if ("f" in pe) out += `.${pe.f}`;
    else if ("k" in pe)
      out += `[${Object.keys(pe.k)
        .sort()
        .map((k) => `${k}=${JSON.stringify(pe.k[k])}`)
        .join(",")}]`;
    else if ("v" in pe) out += `[=${JSON.stringify(pe.v)}]`;
    else out += `[${pe.i}]`;
  }
  return out;
}

/** Path element identifying list item `item` at `index` under list type `type`. */
export function listItemElement(type: TypeNode | undefined, item: unknown, index: number): PathElement {
  const lt = type?.listType() ?? "atomic";
  if (lt === "set") return { v: item as JsonValue };
  if (lt === "map" && isPlainObject(item)) {
    const keys = type!.listMapKeys();
    const k: Record<string, JsonValue> = {};
    for (const key of keys) {
      // A missing key takes its schema default (e.g. ports' protocol: TCP), as in kube.
      const v = item[key] !== undefined ? item[key] : type!.items()?.field(key)?.defaultValue();
      if (v !== undefined) k[key] = v as JsonValue;
    }
    if (Object.keys(k).length > 0) return { k };
  }
  return { i: index };
}

/** Finds the item of `list` matching element `pe`. */
export function findListItem(list: unknown[], type: TypeNode | undefined, pe: PathElement): number {
  const id = elementKey(pe);
  for (let i = 0; i < list.length; i++) if (elementKey(listItemElement(type, list[i], i)) === id) return i;
  return -1;
}
