/**
 * `kubectl petset history NAME --timeline`: who changed what and what happened to each
 * version, in time order, from durable records only — the versions themselves (creation time,
 * `changedBy`, `changeCause`, `rollbackOf`) and the rollout facts the controller records on
 * their `status` (docs/versions.md). Events are not read: they expire after an hour.
 *
 * Pure: versions in, entries (for `-o json`) or text out.
 */
import type { PetSetVersion, PetSetVersionStatus } from "../../api/index.js";
import { cell, formatTable } from "./format-table.js";

export type TimelineWhat =
  | "created"
  | "observed"
  | "rolloutStarted"
  | "resumed"
  | "deadlineExceeded"
  | "completed"
  | "becameCurrent"
  | "fullyRolledOut"
  | "superseded"
  | "rolledBack"
  | "hookStarted"
  | "hookFinished";

export interface TimelineEntry {
  /** RFC 3339. */
  time: string;
  version: number;
  what: TimelineWhat;
  /** One line for people: who, and what it means. */
  detail: string;
}

const FACTS: ReadonlyArray<{
  fact: keyof PetSetVersionStatus & `${string}At`;
  what: TimelineWhat;
  detail: (v: PetSetVersion) => string;
}> = [
  { fact: "observedAt", what: "observed", detail: () => "the controller saw it as the newest version" },
  { fact: "rolloutStartedAt", what: "rolloutStarted", detail: () => "pods started moving to it" },
  { fact: "resumedAt", what: "resumed", detail: () => "its paused rollout was resumed" },
  {
    fact: "deadlineExceededAt",
    what: "deadlineExceeded",
    detail: () => "no progress for spec.progressDeadlineSeconds",
  },
  { fact: "completedAt", what: "completed", detail: () => "every pet at or above the partition ran it" },
  { fact: "becameCurrentAt", what: "becameCurrent", detail: () => "became the current version" },
  {
    fact: "fullyRolledOutAt",
    what: "fullyRolledOut",
    detail: () => "every pet ran it, available (a rollback target)",
  },
  {
    fact: "supersededAt",
    what: "superseded",
    detail: (v) =>
      v.status?.supersededBy === undefined
        ? "a newer version took over its rollout"
        : `version ${v.status.supersededBy} took over its rollout`,
  },
  { fact: "rolledBackAt", what: "rolledBack", detail: () => "autoRollback gave it up" },
];

function createdDetail(v: PetSetVersion): string {
  const parts = [v.spec.changedBy ? `by ${v.spec.changedBy}` : "by an unknown manager"];
  if (v.spec.rollbackOf !== undefined) parts.push(`rollback of version ${v.spec.rollbackOf}`);
  if (v.spec.changeCause) parts.push(v.spec.changeCause);
  return parts.join("; ");
}

/** Every recorded moment of every version, oldest first (ties: version, then creation first). */
export function timelineOf(versions: readonly PetSetVersion[]): TimelineEntry[] {
  const entries: (TimelineEntry & { order: number })[] = [];
  for (const v of versions) {
    const created = v.metadata.creationTimestamp;
    if (created !== undefined) {
      const time = new Date(created).toISOString();
      entries.push({ time, version: v.spec.version, what: "created", detail: createdDetail(v), order: 0 });
    }
    FACTS.forEach(({ fact, what, detail }, i) => {
      const at = v.status?.[fact];
      if (typeof at !== "string" || Number.isNaN(Date.parse(at))) return;
      const time = new Date(at).toISOString();
      entries.push({ time, version: v.spec.version, what, detail: detail(v), order: i + 1 });
    });
    for (const r of v.status?.hooks ?? []) {
      const on = r.pod !== undefined ? ` on ${r.pod}` : "";
      const order = FACTS.length + 1;
      if (!Number.isNaN(Date.parse(r.startedAt)))
        entries.push({
          time: new Date(r.startedAt).toISOString(),
          version: v.spec.version,
          what: "hookStarted",
          detail: `${r.hook}${on} (${r.handler}, attempt ${r.attempts})`,
          order,
        });
      if (r.finishedAt !== undefined && !Number.isNaN(Date.parse(r.finishedAt))) {
        const how = r.outcome !== undefined ? `${r.phase}, ${r.outcome}` : r.phase;
        const msg = r.message !== undefined ? `: ${r.message.replace(/\s+/g, " ").slice(0, 120)}` : "";
        entries.push({
          time: new Date(r.finishedAt).toISOString(),
          version: v.spec.version,
          what: "hookFinished",
          detail: `${r.hook}${on} ${how}${msg}`,
          order: order + 1,
        });
      }
    }
  }
  entries.sort(
    (a, b) => Date.parse(a.time) - Date.parse(b.time) || a.version - b.version || a.order - b.order,
  );
  return entries.map(({ order: _order, ...e }) => e);
}

/** The timeline as a table: TIME, VERSION, EVENT, DETAIL. */
export function timelineTable(entries: readonly TimelineEntry[]): string {
  return formatTable(
    ["TIME", "VERSION", "EVENT", "DETAIL"],
    entries.map((e) => [e.time.replace(/\.\d{3}Z$/, "Z"), String(e.version), e.what, cell(e.detail)]),
  );
}
