/**
 * Strategic merge patch for built-in kinds: maps merge; lists merge by
 * `x-kubernetes-patch-merge-key` where `x-kubernetes-patch-strategy` says `merge`, other
 * lists are replaced. Directives: `$patch` (replace/delete/merge), `$retainKeys`,
 * `$setElementOrder/<list>`, `$deleteFromPrimitiveList/<list>`.
 */
import { badRequest } from "../errors.js";
import type { TypeNode } from "../registry/type-node.js";
import { deepClone, deepEqual, isPlainObject } from "../types.js";

const SET_ORDER = "$setElementOrder/";
const DELETE_PRIMITIVE = "$deleteFromPrimitiveList/";

export function applyStrategicMergePatch(
  original: unknown,
  patch: unknown,
  type: TypeNode | undefined,
): unknown {
  if (!isPlainObject(patch)) throw badRequest("strategic merge patch must be a JSON object");
  return mergeMap(isPlainObject(original) ? original : {}, patch, type);
}

function mergeMap(
  original: Record<string, unknown>,
  patch: Record<string, unknown>,
  type: TypeNode | undefined,
): Record<string, unknown> | undefined {
  const directive = patch.$patch;
  if (directive === "delete") return undefined;
  if (directive === "replace") return stripDirectives(patch) as Record<string, unknown>;
  const out: Record<string, unknown> = { ...original };
  const orders: [string, unknown[]][] = [];
  for (const [k, v] of Object.entries(patch)) {
    if (k === "$patch" || k === "$retainKeys") continue;
    if (k.startsWith(SET_ORDER)) {
      if (Array.isArray(v)) orders.push([k.slice(SET_ORDER.length), v]);
      continue;
    }
    if (k.startsWith(DELETE_PRIMITIVE)) {
      const field = k.slice(DELETE_PRIMITIVE.length);
      if (Array.isArray(v) && Array.isArray(out[field]))
        out[field] = (out[field] as unknown[]).filter((x) => !v.some((d) => deepEqual(d, x)));
      continue;
    }
    if (v === null) {
      delete out[k];
      continue;
    }
    const fieldType = type?.field(k);
    const merged = mergeValue(out[k], v, fieldType);
    if (merged === undefined) delete out[k];
    else out[k] = merged;
  }
  if (Array.isArray(patch.$retainKeys)) {
    const retain = new Set(patch.$retainKeys.map(String));
    for (const k of Object.keys(out)) if (!retain.has(k)) delete out[k];
  }
  for (const [field, order] of orders) {
    const list = out[field];
    if (Array.isArray(list)) out[field] = reorder(list, order, type?.field(field));
  }
  return out;
}

function mergeValue(original: unknown, patch: unknown, type: TypeNode | undefined): unknown {
  if (isPlainObject(patch)) {
    if (!isPlainObject(original)) return stripDirectives(patch);
    return mergeMap(original, patch, type);
  }
  if (Array.isArray(patch)) return mergeList(Array.isArray(original) ? original : undefined, patch, type);
  return patch;
}

function mergeList(original: unknown[] | undefined, patch: unknown[], type: TypeNode | undefined): unknown[] {
  const strategy = (type?.patchStrategy() ?? "").split(",");
  if (patch.some((p) => isPlainObject(p) && p.$patch === "replace" && Object.keys(p).length === 1))
    return patch.filter((p) => !(isPlainObject(p) && p.$patch === "replace")).map(stripDirectives);
  if (!strategy.includes("merge") || !original)
    return patch.filter((p) => !isDeleteDirective(p)).map(stripDirectives);
  const key = type?.patchMergeKey();
  if (!key) {
    const out = [...original];
    for (const p of patch) if (!out.some((x) => deepEqual(x, p))) out.push(p);
    return out;
  }
  const out = original.map((x) => deepClone(x));
  for (const p of patch) {
    if (!isPlainObject(p)) continue;
    const at = out.findIndex((x) => isPlainObject(x) && deepEqual(x[key], p[key]));
    if (p.$patch === "delete") {
      if (at >= 0) out.splice(at, 1);
      continue;
    }
    if (at >= 0) out[at] = mergeMap(out[at] as Record<string, unknown>, p, type?.items());
    else out.push(stripDirectives(p));
  }
  return out.filter((x) => x !== undefined);
}

function isDeleteDirective(p: unknown): boolean {
  return isPlainObject(p) && p.$patch === "delete";
}

function reorder(list: unknown[], order: unknown[], type: TypeNode | undefined): unknown[] {
  const key = type?.patchMergeKey();
  const id = (x: unknown) => (key && isPlainObject(x) ? JSON.stringify(x[key]) : JSON.stringify(x));
  const wanted = order.map((o) => (key && isPlainObject(o) ? JSON.stringify(o[key]) : JSON.stringify(o)));
  const rank = new Map(wanted.map((w, i) => [w, i]));
  const ordered = list.filter((x) => rank.has(id(x))).sort((a, b) => rank.get(id(a))! - rank.get(id(b))!);
  const rest = list.filter((x) => !rank.has(id(x)));
  return [...ordered, ...rest];
}

function stripDirectives(v: unknown): unknown {
  if (Array.isArray(v)) return v.filter((x) => !isDeleteDirective(x)).map(stripDirectives);
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, c] of Object.entries(v)) {
      if (k.startsWith("$")) continue;
      if (c === null) continue;
      out[k] = stripDirectives(c);
    }
    return out;
  }
  return v;
}
