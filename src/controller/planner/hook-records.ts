/**
 * The hook book of one planning pass: every hook record found on the versions' status (the
 * durable state of each hook's state machine), the records this pass changes, and which
 * hooks it asked for. Records are written back by planVersionFacts with the version facts
 * (one recordVersionStatus step per version). Pure.
 *
 * Ids are stable across retries and controller restarts (PETSET_HOOK_ID):
 *  - per-pet hooks: `<hook>.<set>.v<to>.<ordinal>.<pod uid prefix>`; scale-down hooks (preScaleDown,
 *    a condemned leader's switchover) carry their occasion instead (scale-down-hooks.ts),
 *  - set hooks: `<hook>.<set>.v<to>.<version uid prefix>`.
 * A pod replaced or a PetSet re-created gets new ids, so a new pod runs its hooks again.
 * A record stays on the version that first held it: later writes of that id go there.
 */
import type { HookRecord, PetSetVersion } from "../../api/index.js";
import type { VersionIndex } from "./version-index.js";

/** At most this many records per version; the oldest finished ones go first. */
export const MAX_RECORDS_PER_VERSION = 400;

export interface HookBook {
  /** Latest record by id, with the version number whose status holds it. */
  readonly records: Map<string, { record: HookRecord; holder: number }>;
  /** Records this pass writes, by holder version, by id. */
  readonly writes: Map<number, Map<string, HookRecord>>;
  /** Ids gated on by this pass: Running records not asked for are cancelled. */
  readonly requested: Set<string>;
  /** Hooks failed for good with failurePolicy Pause (Progressing=False, HookFailed). */
  readonly paused: HookRecord[];
  /** A hook failed for good with failurePolicy Rollback. */
  rollback: HookRecord | undefined;
  /** Hooks that are running and hold a pet or the rollout (for messages). */
  readonly waiting: HookRecord[];
}

export function readHookBook(index: VersionIndex): HookBook {
  const records = new Map<string, { record: HookRecord; holder: number }>();
  for (const v of index.sorted) {
    for (const record of v.status?.hooks ?? []) {
      // One id on two versions (written by an older controller after a relabel): the Running
      // copy is the one a runner executes, so it is the one that counts until it ends.
      const seen = records.get(record.id);
      if (seen !== undefined && seen.record.phase === "Running" && record.phase !== "Running") continue;
      records.set(record.id, { record, holder: v.spec.version });
    }
  }
  return { records, writes: new Map(), requested: new Set(), paused: [], rollback: undefined, waiting: [] };
}

export function writeRecord(book: HookBook, holder: number, record: HookRecord): void {
  let forVersion = book.writes.get(holder);
  if (forVersion === undefined) {
    forVersion = new Map();
    book.writes.set(holder, forVersion);
  }
  forVersion.set(record.id, record);
  book.records.set(record.id, { record, holder });
}

/** The version's hook records after this pass's writes (bounded; order: first start first). */
export function mergedRecords(version: PetSetVersion, writes: ReadonlyMap<string, HookRecord>): HookRecord[] {
  const merged = new Map<string, HookRecord>();
  for (const r of version.status?.hooks ?? []) merged.set(r.id, r);
  for (const [id, r] of writes) merged.set(id, r);
  const all = [...merged.values()];
  if (all.length <= MAX_RECORDS_PER_VERSION) return all;
  const finished = all.filter((r) => r.phase !== "Running" && r.outcome !== "Paused");
  const drop = new Set(
    finished
      .sort((a, b) => (a.finishedAt ?? a.startedAt).localeCompare(b.finishedAt ?? b.startedAt))
      .slice(0, all.length - MAX_RECORDS_PER_VERSION)
      .map((r) => r.id),
  );
  return all.filter((r) => !drop.has(r.id));
}

/** The first 8 characters of a uid, for ids and Job names. */
export function uidPrefix(uid: string | undefined): string {
  return (uid ?? "").replace(/-/g, "").slice(0, 8) || "0";
}

/**
 * Hooks this pass asked for that are running or failed and hold the rollout, for
 * `status.hooks` (derived, so a wipe restores it).
 */
export function activeRecords(book: HookBook): HookRecord[] {
  return [...book.records.values()]
    .map((e) => e.record)
    .filter((r) => book.requested.has(r.id))
    .filter((r) => r.phase === "Running" || (r.phase === "Failed" && r.outcome !== "Ignored"))
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.id.localeCompare(b.id));
}
