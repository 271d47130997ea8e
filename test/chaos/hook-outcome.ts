/**
 * What a chaos run's hooks are judged on (SPEC rule 10): the side effects, read from a log
 * the hook bodies append to outside the cluster, against the hook records the controller
 * wrote. Pure functions over plain data, unit-tested with planted histories
 * (test/unit/chaos/hook-outcome.test.ts).
 *
 * The log: one line per event, in the order they happened (bodies append with O_APPEND, one
 * short write per line), optionally led by the time in epoch milliseconds:
 *   [<ms>] start <hook id> <attempt>
 *   [<ms>] end <hook id> <attempt>
 * An execution is open from its `start` to its `end`. A body writes `end` when it finishes,
 * fails or is terminated (a `trap … EXIT`); one that cannot (SIGKILLed with its pod) stays
 * open until the harness confirms its process gone and writes the `end` for it. One never
 * confirmed gone (a Job attempt on a lost node) stays open for good: any later start of its
 * id is an overlap, which is what the rule means (nobody can say it is not still running).
 *
 * - `hookOverlaps`: a start of an id while another execution of that id is open;
 * - `hooksForSkippedVersions`: a start for a version after a newer version existed (plus a
 *   grace for the sync that was already deciding when it was created);
 * - `hooksSucceededWithoutRun`: a record Succeeded with no finished execution of its id.
 */

export interface HookLogEvent {
  kind: "start" | "end";
  id: string;
  attempt: number;
  /** Epoch ms, when the line carried it. */
  at?: number;
  /** 1-based line number in the log. */
  line: number;
}

export interface HookExecution {
  id: string;
  attempt: number;
  /** Index in the log (or epoch ms) of its start and end; `end` undefined while open. */
  start: number;
  end?: number;
  at?: number;
}

const LINE = /^(?:(\d+) )?(start|end) (\S+) (\d+)$/;

/** The log's events in order; a line that is none (cut short, blank) is skipped. */
export function parseHookLog(text: string): HookLogEvent[] {
  const out: HookLogEvent[] = [];
  text.split("\n").forEach((raw, i) => {
    const m = LINE.exec(raw.trim());
    if (!m) return;
    out.push({
      kind: m[2] as "start" | "end",
      id: m[3] ?? "",
      attempt: Number(m[4]),
      ...(m[1] !== undefined ? { at: Number(m[1]) } : {}),
      line: i + 1,
    });
  });
  return out;
}

/** Executions, each from its start to the first later `end` of the same id and attempt. */
export function hookExecutions(events: HookLogEvent[]): HookExecution[] {
  const all: HookExecution[] = [];
  const open = new Map<string, HookExecution[]>();
  events.forEach((e, i) => {
    const key = `${e.id}#${e.attempt}`;
    if (e.kind === "start") {
      const x: HookExecution = {
        id: e.id,
        attempt: e.attempt,
        start: i,
        ...(e.at !== undefined ? { at: e.at } : {}),
      };
      all.push(x);
      open.set(key, [...(open.get(key) ?? []), x]);
      return;
    }
    const pending = open.get(key);
    const x = pending?.shift();
    if (x) x.end = i;
  });
  return all;
}

/**
 * Two executions of one hook id open at once: from the log (text or events), or from
 * executions with times (the real backend, where kwok runs no Job: the Jobs' pods' start and
 * finish times; webhooks from the babysitter's own log).
 */
export function hookOverlaps(log: string | HookLogEvent[] | HookExecution[]): string[] {
  const executions: HookExecution[] =
    typeof log === "string"
      ? hookExecutions(parseHookLog(log))
      : log.length > 0 && "kind" in (log[0] as object)
        ? hookExecutions(log as HookLogEvent[])
        : (log as HookExecution[]);
  const byId = new Map<string, HookExecution[]>();
  for (const x of executions) byId.set(x.id, [...(byId.get(x.id) ?? []), x]);
  const found: string[] = [];
  for (const [id, xs] of byId) {
    const sorted = [...xs].sort((a, b) => a.start - b.start);
    sorted.forEach((x, i) => {
      for (const earlier of sorted.slice(0, i)) {
        if (earlier.end !== undefined && earlier.end <= x.start) continue;
        found.push(
          `${id}: attempt ${x.attempt} started while attempt ${earlier.attempt} was ${earlier.end === undefined ? "never seen to end" : "still running"}`,
        );
        break;
      }
    });
  }
  return found;
}

/** The version a hook id runs for (`<hook>.<set>.v<N>.…`); undefined for preScaleDown ids. */
export function versionOfHookId(id: string): { petSet: string; version: number } | undefined {
  const m = /^[A-Za-z]+\.(.+)\.v(\d+)\.(?:\d+\.)?[^.]+$/.exec(id);
  return m ? { petSet: m[1] ?? "", version: Number(m[2]) } : undefined;
}

/** When each version was first seen created (epoch ms), per PetSet. */
export interface VersionSeen {
  petSet: string;
  version: number;
  createdAt: number;
}

/**
 * Starts (with their time) of a hook for a version after a newer version of its PetSet was
 * created: it was no longer the target (SPEC rule 2: a skipped version never runs). `graceMs`
 * allows for the sync that had planned before the newer version reached the controller's
 * cache (its start may be logged a moment after the creation).
 */
export function hooksForSkippedVersions(
  events: HookLogEvent[],
  versions: VersionSeen[],
  graceMs: number,
): string[] {
  const found: string[] = [];
  for (const e of events) {
    if (e.kind !== "start") continue;
    const of = versionOfHookId(e.id);
    if (!of) continue;
    if (e.at === undefined) {
      found.push(`${e.id}: start (line ${e.line}) carries no time, so it cannot be judged`);
      continue;
    }
    const newer = versions
      .filter((v) => v.petSet === of.petSet && v.version > of.version)
      .sort((a, b) => a.createdAt - b.createdAt)[0];
    if (newer && e.at > newer.createdAt + graceMs)
      found.push(
        `${e.id}: attempt ${e.attempt} started ${e.at - newer.createdAt} ms after v${newer.version} superseded v${of.version}`,
      );
  }
  return found;
}

/** The fields of a hook record (status.hooks of a version) this judge reads. */
export interface JudgedHookRecord {
  id: string;
  handler: string;
  phase: string;
  attempts: number;
}

/**
 * Records Succeeded without any execution of their id that started and ended: the controller
 * reported a side effect that never happened. `external` hooks run nothing the log sees.
 */
export function hooksSucceededWithoutRun(records: JudgedHookRecord[], events: HookLogEvent[]): string[] {
  const finished = new Set(
    hookExecutions(events)
      .filter((x) => x.end !== undefined)
      .map((x) => x.id),
  );
  return records
    .filter((r) => r.phase === "Succeeded" && r.handler !== "external" && !finished.has(r.id))
    .map(
      (r) =>
        `${r.id}: ${r.handler} hook Succeeded (attempt ${r.attempts}) but no execution of it ran to its end`,
    );
}
