/**
 * A StatefulSet's revision history as kube 1.33 keeps it (pkg/controller/statefulset
 * getStatefulSetRevisions, truncateHistory; pkg/controller/history), as pure functions:
 *
 * - A revision's `data` is `{"spec":{"template":{…,"$patch":"replace"}}}`: the set's typed
 *   template, re-marshalled from a Go map, so every object's keys are sorted and `<>&` are
 *   escaped as Go's encoding/json does. The stored StatefulSet is already in its Go-encoded
 *   form (registry/go-encoding.ts), so the same fields are present as kube prints them.
 * - Its name is `<set>-<hash>`, hash = FNV-1 (32 bit, `fnv.New32`) over the data bytes and the
 *   collision count in decimal, printed in decimal and mapped through rand.SafeEncodeString.
 *   A name taken by a revision with other data bumps the collision count (status.collisionCount).
 * - Revisions are the namespace's ControllerRevisions matching the selector that the set
 *   controls or nobody controls (orphans are adopted); ordered by `revision`, then age, then name.
 * - The update revision is the last revision when its data equals the template's; an older
 *   equal revision is renumbered to the next number (a rollback); otherwise a new one is made.
 * - The current revision is the one status.currentRevision names, else the update revision.
 * - History beyond revisionHistoryLimit is deleted oldest first, never a live revision (current,
 *   update, or one a pod is labelled with).
 */
import type { Requirement } from "../selectors/label-selector.js";
import { matchesRequirements } from "../selectors/label-selector.js";
import { isPlainObject, type KubeObject, type OwnerReference } from "../types.js";

type Obj = Record<string, unknown>;

export const REVISION_HASH_LABEL = "controller.kubernetes.io/hash";

const SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/** JSON as Go's encoding/json prints a `map[string]interface{}`: keys sorted, `<>&` escaped. */
export function goMapJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map((x) => goMapJson(x ?? null)).join(",")}]`;
  if (isPlainObject(v)) {
    const keys = Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort((a, b) => (Buffer.compare(Buffer.from(a), Buffer.from(b)) as number) || 0);
    return `{${keys.map((k) => `${goString(k)}:${goMapJson(v[k])}`).join(",")}}`;
  }
  if (typeof v === "string") return goString(v);
  return JSON.stringify(v ?? null);
}

function goString(s: string): string {
  return JSON.stringify(s).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** kube's HashControllerRevision: FNV-1 32 over the data and the collision count, safe-encoded. */
export function revisionHash(dataJson: string, collisionCount: number): string {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(`${dataJson}${collisionCount}`, "utf8")) {
    h = Math.imul(h, 0x01000193) >>> 0;
    h = (h ^ byte) >>> 0;
  }
  return [...String(h)].map((c) => SAFE_ALPHABET[c.charCodeAt(0) % SAFE_ALPHABET.length]).join("");
}

/** The revision data of a set's template, with sorted keys (the order it is stored and served in). */
export function revisionData(set: KubeObject): Obj {
  const spec = (isPlainObject(set.spec) ? set.spec : {}) as Obj;
  const template = isPlainObject(spec.template) ? spec.template : {};
  return JSON.parse(goMapJson({ spec: { template: { ...template, $patch: "replace" } } })) as Obj;
}

/** The template a revision holds (what pods of that revision are made from). */
export function revisionTemplate(revision: KubeObject): Obj {
  const data = isPlainObject(revision.data) ? revision.data : {};
  const spec = isPlainObject(data.spec) ? data.spec : {};
  const { $patch: _, ...template } = (isPlainObject(spec.template) ? spec.template : {}) as Obj;
  return template;
}

export function controllerRefTo(set: KubeObject): OwnerReference {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    name: set.metadata.name!,
    uid: set.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

export const controllerOf = (o: KubeObject): OwnerReference | undefined =>
  o.metadata.ownerReferences?.find((r) => r.controller === true);

const revisionNumber = (r: KubeObject): number => (typeof r.revision === "number" ? r.revision : 0);

/** history.SortControllerRevisions: by revision, then creation time, then name. */
export function sortRevisions(revisions: readonly KubeObject[]): KubeObject[] {
  return [...revisions].sort(
    (a, b) =>
      revisionNumber(a) - revisionNumber(b) ||
      String(a.metadata.creationTimestamp ?? "").localeCompare(String(b.metadata.creationTimestamp ?? "")) ||
      String(a.metadata.name).localeCompare(String(b.metadata.name)),
  );
}

export interface RevisionPlan {
  /** The set's revisions after this plan (adopted orphans included), sorted. */
  revisions: KubeObject[];
  /** Orphans matching the selector to adopt. */
  adopt: KubeObject[];
  current: KubeObject;
  update: KubeObject;
  /** A new revision to create (it is `update`). */
  create?: KubeObject;
  /** An older equal revision moved to the top (it is `update`, with its new number). */
  renumber?: { name: string; uid: string; revision: number };
  collisionCount: number;
}

/**
 * The set's current and update revisions from the namespace's ControllerRevisions.
 * `deleting`: a set being deleted adopts nothing.
 */
export function planRevisions(
  set: KubeObject,
  all: readonly KubeObject[],
  selector: Requirement[],
): RevisionPlan {
  const uid = set.metadata.uid;
  const deleting = set.metadata.deletionTimestamp !== undefined;
  const candidates = all.filter((r) => {
    if (!matchesRequirements(selector, r.metadata.labels)) return false;
    const owner = controllerOf(r);
    return owner === undefined ? !deleting : owner.uid === uid;
  });
  const adopt = candidates.filter((r) => controllerOf(r) === undefined);
  const revisions = sortRevisions(candidates);
  const status = (isPlainObject(set.status) ? set.status : {}) as Obj;
  let collisionCount = typeof status.collisionCount === "number" ? status.collisionCount : 0;
  const data = revisionData(set);
  const dataJson = goMapJson(data);
  const next = revisions.length > 0 ? revisionNumber(revisions.at(-1)!) + 1 : 1;
  const equal = revisions.filter((r) => goMapJson(r.data ?? null) === dataJson);
  let update: KubeObject;
  let create: KubeObject | undefined;
  let renumber: RevisionPlan["renumber"];
  if (equal.length > 0 && equal.at(-1) === revisions.at(-1)) update = revisions.at(-1)!;
  else if (equal.length > 0) {
    const found = equal.at(-1)!;
    update = { ...found, revision: next };
    renumber = { name: found.metadata.name!, uid: found.metadata.uid!, revision: next };
  } else {
    const name = set.metadata.name!.slice(0, 223);
    let hash = revisionHash(dataJson, collisionCount);
    let taken = all.find((r) => r.metadata.name === `${name}-${hash}`);
    while (taken !== undefined && goMapJson(taken.data ?? null) !== dataJson) {
      collisionCount++;
      hash = revisionHash(dataJson, collisionCount);
      taken = all.find((r) => r.metadata.name === `${name}-${hash}`);
    }
    if (taken !== undefined) update = taken;
    else {
      const template = (
        isPlainObject((set.spec as Obj | undefined)?.template) ? (set.spec as Obj).template : {}
      ) as Obj;
      const labels = (isPlainObject(template.metadata) ? (template.metadata as Obj).labels : undefined) ?? {};
      create = {
        apiVersion: "apps/v1",
        kind: "ControllerRevision",
        metadata: {
          name: `${name}-${hash}`,
          namespace: set.metadata.namespace,
          labels: { ...(labels as Record<string, string>), [REVISION_HASH_LABEL]: hash },
          ...(set.metadata.annotations ? { annotations: { ...set.metadata.annotations } } : {}),
          ownerReferences: [controllerRefTo(set)],
        },
        data,
        revision: next,
      };
      update = create;
    }
  }
  const current = revisions.find((r) => r.metadata.name === status.currentRevision) ?? update;
  const plan: RevisionPlan = { revisions, adopt, current, update, collisionCount };
  if (create) plan.create = create;
  if (renumber) plan.renumber = renumber;
  return plan;
}

/** truncateHistory: the non-live revisions to delete, oldest first, beyond the limit. */
export function revisionsToTruncate(
  set: KubeObject,
  revisions: readonly KubeObject[],
  live: ReadonlySet<string>,
): KubeObject[] {
  const spec = (isPlainObject(set.spec) ? set.spec : {}) as Obj;
  const limit = typeof spec.revisionHistoryLimit === "number" ? spec.revisionHistoryLimit : 10;
  const history = sortRevisions(revisions).filter((r) => !live.has(r.metadata.name!));
  if (limit < 0 || history.length <= limit) return [];
  return history.slice(0, history.length - limit);
}
