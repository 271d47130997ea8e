/**
 * managedFields bookkeeping: who owns which field. Updates (PUT, non-apply patches) give
 * the updater the fields it changed; server-side apply gives the applier exactly the
 * fields of its configuration, removes fields it stopped applying, and refuses to take
 * fields another manager set to a different value unless forced (409 Conflict).
 */
import { ApiError } from "../errors.js";
import type { TypeNode } from "../registry/type-node.js";
import { rfc3339 } from "../time.js";
import { deepClone, type KubeObject, type ManagedFieldsEntry } from "../types.js";
import { compareObjects } from "./compare.js";
import { type FieldPath, pathString } from "./field-path.js";
import { FieldSet, fieldSetOf } from "./field-set.js";
import { mergeApplied, removePaths } from "./merge.js";

interface Manager {
  manager: string;
  operation: "Apply" | "Update";
  subresource?: string;
  apiVersion: string;
  time?: string;
  set: FieldSet;
}

export interface OwnershipScope {
  /** "" for the main resource, "status", "scale". */
  subresource: string;
  /** Whether the resource has a status subresource (status is then not owned via the main resource). */
  statusSubresource: boolean;
}

const STRIPPED_META = new Set([
  "name",
  "namespace",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "managedFields",
  "selfLink",
]);

function ignored(p: FieldPath, scope: OwnershipScope): boolean {
  const first = p[0];
  if (!first || !("f" in first)) return true;
  if (first.f === "apiVersion" || first.f === "kind") return true;
  if (first.f === "metadata") {
    if (p.length === 1) return true;
    const second = p[1]!;
    return "f" in second && STRIPPED_META.has(second.f);
  }
  if (scope.subresource === "status") return first.f !== "status";
  if (scope.statusSubresource && scope.subresource === "" && first.f === "status") return true;
  return false;
}

function identity(m: { manager: string; operation: string; subresource?: string }): string {
  return `${m.manager}\u0000${m.operation}\u0000${m.subresource ?? ""}`;
}

function decode(entries: ManagedFieldsEntry[] | undefined): Manager[] {
  return (entries ?? [])
    .filter((e) => e && typeof e.manager === "string")
    .map((e) => ({
      manager: e.manager,
      operation: e.operation,
      ...(e.subresource ? { subresource: e.subresource } : {}),
      apiVersion: e.apiVersion,
      ...(e.time ? { time: e.time } : {}),
      set: FieldSet.fromFieldsV1(e.fieldsV1),
    }));
}

/** kube's order (sortEncodedManagedFields): Apply before Update, then by time (seconds), manager, apiVersion, subresource. */
function byKubeOrder(p: Manager, q: Manager): number {
  const seconds = (m: Manager) => (m.time ? Math.floor(Date.parse(m.time) / 1000) : 0);
  const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
  return (
    cmp(p.operation, q.operation) ||
    cmp(seconds(p), seconds(q)) ||
    cmp(p.manager, q.manager) ||
    cmp(p.apiVersion, q.apiVersion) ||
    cmp(p.subresource ?? "", q.subresource ?? "")
  );
}

function encode(managers: Manager[]): ManagedFieldsEntry[] {
  return managers
    .filter((m) => !m.set.empty())
    .sort(byKubeOrder)
    .map((m) => ({
      manager: m.manager,
      operation: m.operation,
      apiVersion: m.apiVersion,
      ...(m.time ? { time: m.time } : {}),
      fieldsType: "FieldsV1" as const,
      fieldsV1: m.set.toFieldsV1(),
      ...(m.subresource ? { subresource: m.subresource } : {}),
    }));
}

function withoutManagedFields(o: KubeObject | undefined): Record<string, unknown> {
  if (!o) return {};
  const c = deepClone(o);
  delete c.metadata.managedFields;
  return c;
}

export interface UpdateOwnership {
  old: KubeObject | undefined;
  updated: KubeObject;
  type: TypeNode | undefined;
  manager: string;
  apiVersion: string;
  scope: OwnershipScope;
  now: Date;
}

/** managedFields after a create/update by `manager` (operation Update). */
export function managedFieldsAfterUpdate(u: UpdateOwnership): ManagedFieldsEntry[] | undefined {
  const managers = decode(u.old?.metadata.managedFields);
  const c = compareObjects(withoutManagedFields(u.old), withoutManagedFields(u.updated), u.type);
  const keep = (p: FieldPath) => !ignored(p, u.scope);
  const changed = c.modified.union(c.added).filter(keep);
  const removed = c.removed.filter(keep);
  if (changed.empty() && removed.empty()) return u.old?.metadata.managedFields;
  const me = {
    manager: u.manager,
    operation: "Update" as const,
    subresource: u.scope.subresource || undefined,
  };
  let mine = managers.find((m) => identity(m) === identity(me));
  for (const m of managers) if (m !== mine) m.set = m.set.difference(changed).difference(removed);
  if (!mine) {
    mine = { ...me, apiVersion: u.apiVersion, set: new FieldSet() };
    if (!mine.subresource) delete mine.subresource;
    managers.push(mine);
  }
  mine.set = mine.set.union(changed).difference(removed);
  mine.apiVersion = u.apiVersion;
  mine.time = rfc3339(u.now);
  const out = encode(managers);
  return out.length ? out : undefined;
}

export interface ApplyRequest {
  live: KubeObject | undefined;
  config: KubeObject;
  type: TypeNode | undefined;
  manager: string;
  apiVersion: string;
  scope: OwnershipScope;
  force: boolean;
  now: Date;
}

/** Server-side apply: the merged object with its new managedFields, or a 409 on conflicts. */
export function serverSideApply(a: ApplyRequest): KubeObject {
  const managers = decode(a.live?.metadata.managedFields);
  const live = withoutManagedFields(a.live);
  const config = withoutManagedFields(a.config);
  const merged = mergeApplied(live, config, a.type) as KubeObject;
  const keep = (p: FieldPath) => !ignored(p, a.scope);
  const configSet = fieldSetOf(config, a.type).filter(keep);
  const me = {
    manager: a.manager,
    operation: "Apply" as const,
    subresource: a.scope.subresource || undefined,
  };
  const mine = managers.find((m) => identity(m) === identity(me));
  const others = managers.filter((m) => m !== mine);
  const othersSet = others.reduce((acc, m) => acc.union(m.set), new FieldSet());
  if (mine) {
    const stillOwned = configSet.union(othersSet);
    removePaths(merged, mine.set.difference(stillOwned), stillOwned, a.type);
  }
  const c = compareObjects(live, withoutManagedFields(merged), a.type);
  const changed = c.modified.union(c.added).filter(keep);
  const conflicts: { m: Manager; paths: FieldPath[] }[] = [];
  for (const m of others) {
    const hit = m.set.intersection(changed);
    if (!hit.empty()) conflicts.push({ m, paths: hit.values() });
  }
  if (conflicts.length && !a.force) throw applyConflict(conflicts);
  for (const { m, paths } of conflicts) m.set = m.set.difference(FieldSet.of(paths));
  const removed = c.removed.filter(keep);
  for (const m of others) m.set = m.set.difference(removed);
  const entry: Manager = mine ?? { ...me, apiVersion: a.apiVersion, set: configSet };
  if (!entry.subresource) delete entry.subresource;
  const changedOwnership = !mine || !sameSet(mine.set, configSet) || mine.apiVersion !== a.apiVersion;
  entry.set = configSet;
  entry.apiVersion = a.apiVersion;
  if (changedOwnership || !c.added.empty() || !c.modified.empty() || !c.removed.empty())
    entry.time = rfc3339(a.now);
  const all = mine ? managers : [...managers, entry];
  const encoded = encode(all);
  merged.metadata = { ...(merged.metadata ?? {}) };
  if (encoded.length) merged.metadata.managedFields = encoded;
  else delete merged.metadata.managedFields;
  return merged;
}

function sameSet(a: FieldSet, b: FieldSet): boolean {
  return a.size === b.size && a.difference(b).empty();
}

function printManager(m: Manager): string {
  let s = JSON.stringify(m.manager);
  if (m.subresource) s += ` with subresource ${JSON.stringify(m.subresource)}`;
  if (m.operation === "Update") s += ` using ${m.apiVersion}`;
  return s;
}

function applyConflict(conflicts: { m: Manager; paths: FieldPath[] }[]): ApiError {
  const flat = conflicts.flatMap(({ m, paths }) => paths.map((p) => ({ m, p: pathString(p) })));
  flat.sort((x, y) => (x.p < y.p ? -1 : x.p > y.p ? 1 : 0));
  let message: string;
  if (flat.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(flat[0]!.m)}: ${flat[0]!.p}`;
  } else {
    const byManager = [...conflicts].sort((x, y) => (x.m.manager < y.m.manager ? -1 : 1));
    const lines: string[] = [];
    for (const { m, paths } of byManager) {
      lines.push(`conflicts with ${printManager(m)}:`);
      for (const p of paths.map(pathString).sort()) lines.push(`- ${p}`);
    }
    message = `Apply failed with ${flat.length} conflicts: ${lines.join("\n")}`;
  }
  const causes = flat.map(({ m, p }) => ({
    reason: "FieldManagerConflict",
    message: `conflict with ${printManager(m)}`,
    field: p,
  }));
  return new ApiError(409, "Conflict", message, { causes });
}
