/**
 * The object half of server-side apply: merge an applied configuration into the live
 * object (maps and associative lists merge, atomic values are replaced), and remove what
 * the applier set last time, no longer sets, and nobody else owns.
 */
import type { TypeNode } from "../registry/type-node.js";
import { deepClone, isPlainObject } from "../types.js";
import { type FieldPath, findListItem, listItemElement } from "./field-path.js";
import type { FieldSet } from "./field-set.js";

export function mergeApplied(live: unknown, config: unknown, type: TypeNode | undefined): unknown {
  if (config === null) return undefined;
  if (Array.isArray(config)) {
    const lt = type?.listType() ?? "atomic";
    if (lt === "atomic" || !Array.isArray(live)) return deepClone(config);
    const out = deepClone(live) as unknown[];
    config.forEach((item, i) => {
      const pe = listItemElement(type, item, i);
      const at = findListItem(out, type, pe);
      if (at < 0) out.push(deepClone(item));
      else out[at] = lt === "set" ? item : mergeApplied(out[at], item, type?.items());
    });
    return out;
  }
  if (isPlainObject(config)) {
    if (type?.atomicMap() || !isPlainObject(live)) return stripNulls(deepClone(config));
    const out: Record<string, unknown> = { ...live };
    for (const [k, v] of Object.entries(config)) {
      const merged = mergeApplied(live[k], v, type?.field(k));
      if (merged === undefined) delete out[k];
      else out[k] = merged;
    }
    return out;
  }
  return config;
}

function stripNulls(v: unknown): unknown {
  if (isPlainObject(v)) {
    for (const [k, c] of Object.entries(v)) {
      if (c === null) delete v[k];
      else stripNulls(c);
    }
  } else if (Array.isArray(v)) v.forEach(stripNulls);
  return v;
}

/**
 * Removes from `obj` each path in `remove` unless a descendant is still in `keep`;
 * maps emptied by the removal disappear unless `keep` names them.
 */
export function removePaths(
  obj: Record<string, unknown>,
  remove: FieldSet,
  keep: FieldSet,
  type: TypeNode | undefined,
): void {
  const paths = remove.values().sort((a, b) => b.length - a.length);
  for (const p of paths) {
    if (keep.hasDescendantOf(p)) continue;
    removeAt(obj, p, type, keep);
  }
}

function removeAt(
  root: Record<string, unknown>,
  p: FieldPath,
  type: TypeNode | undefined,
  keep: FieldSet,
): void {
  const chain: { container: unknown; type: TypeNode | undefined }[] = [];
  let cur: unknown = root;
  let t = type;
  for (let i = 0; i < p.length - 1; i++) {
    chain.push({ container: cur, type: t });
    const pe = p[i]!;
    if ("f" in pe && isPlainObject(cur)) {
      cur = cur[pe.f];
      t = t?.field(pe.f);
    } else if (Array.isArray(cur)) {
      const at = findListItem(cur, t, pe);
      if (at < 0) return;
      cur = cur[at];
      t = t?.items();
    } else return;
  }
  const last = p[p.length - 1]!;
  if ("f" in last && isPlainObject(cur)) delete cur[last.f];
  else if (Array.isArray(cur)) {
    const at = findListItem(cur, t, last);
    if (at >= 0) cur.splice(at, 1);
  } else return;
  // Drop maps left empty by the removal, walking up while nobody owns them.
  for (let i = p.length - 2; i >= 0; i--) {
    const parentPath = p.slice(0, i + 1);
    const holder = chain[i]!.container;
    const pe = p[i]!;
    if (keep.has(parentPath) || !("f" in pe) || !isPlainObject(holder)) break;
    const child = holder[pe.f];
    if (isPlainObject(child) && Object.keys(child).length === 0) delete holder[pe.f];
    else break;
  }
}
