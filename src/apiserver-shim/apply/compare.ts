/**
 * Which fields changed between two versions of an object, as structured-merge-diff's
 * Compare reports them: nodes absent on one side are Added/Removed (with their
 * descendants), leaves (scalars, atomic lists and maps) that differ are Modified.
 */
import type { TypeNode } from "../registry/type-node.js";
import { deepEqual, isPlainObject } from "../types.js";
import { elementKey, type FieldPath, listItemElement, type PathElement } from "./field-path.js";
import { FieldSet } from "./field-set.js";

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

export function compareObjects(lhs: unknown, rhs: unknown, type: TypeNode | undefined): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  walk(lhs, rhs, type, [], c);
  return c;
}

function walk(lhs: unknown, rhs: unknown, type: TypeNode | undefined, path: FieldPath, c: Comparison): void {
  if (lhs === undefined && rhs === undefined) return;
  // A null list or map (a nil one in Go) is present but empty: its items are added or
  // removed, the node itself is not (both empty: a leaf, so null vs empty is a change).
  const isList =
    (Array.isArray(lhs) || Array.isArray(rhs)) &&
    (type?.listType() ?? "atomic") !== "atomic" &&
    listLike(lhs) &&
    listLike(rhs);
  const isMap =
    (isPlainObject(lhs) || isPlainObject(rhs)) && !type?.atomicMap() && mapLike(lhs) && mapLike(rhs);
  if (isList && !(isEmpty(lhs) && isEmpty(rhs))) {
    mark(lhs, rhs, path, c);
    const l = (lhs as unknown[] | null | undefined) ?? [];
    const r = (rhs as unknown[] | null | undefined) ?? [];
    const items = new Map<string, { pe: PathElement; l?: unknown; r?: unknown }>();
    l.forEach((item, i) => {
      const pe = listItemElement(type, item, i);
      items.set(elementKey(pe), { pe, l: item });
    });
    r.forEach((item, i) => {
      const pe = listItemElement(type, item, i);
      const e = items.get(elementKey(pe));
      if (e) e.r = item;
      else items.set(elementKey(pe), { pe, r: item });
    });
    for (const { pe, l: li, r: ri } of items.values()) walk(li, ri, type?.items(), [...path, pe], c);
    return;
  }
  if (isMap && !(isEmpty(lhs) && isEmpty(rhs))) {
    mark(lhs, rhs, path, c);
    const l = (lhs as Record<string, unknown> | null | undefined) ?? {};
    const r = (rhs as Record<string, unknown> | null | undefined) ?? {};
    for (const k of new Set([...Object.keys(l), ...Object.keys(r)]))
      walk(l[k], r[k], type?.field(k), [...path, { f: k }], c);
    return;
  }
  if (lhs === undefined) c.added.insert(path);
  else if (rhs === undefined) c.removed.insert(path);
  else if (!deepEqual(lhs, rhs)) c.modified.insert(path);
}

function listLike(v: unknown): boolean {
  return v === undefined || v === null || Array.isArray(v);
}

function mapLike(v: unknown): boolean {
  return v === undefined || v === null || isPlainObject(v);
}

function mark(lhs: unknown, rhs: unknown, path: FieldPath, c: Comparison): void {
  if (lhs === undefined) c.added.insert(path);
  else if (rhs === undefined) c.removed.insert(path);
}

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  return Array.isArray(v) ? v.length === 0 : isPlainObject(v) && Object.keys(v).length === 0;
}
