/**
 * When some controller replica could act (node faults' judge, node-judge.ts): a replica serves
 * from the later of its "became leader" and "caches synced" log lines until the first of its
 * "lost leadership" line, its exit, or its freeze (the fleet's SIGSTOP). Read from the
 * replicas' own logs after the run, so the judge counts recovery time only while a controller
 * could have worked, and never calls a fault window with no controller a slow product.
 */
import type { ReplicaHistory } from "./controller-fleet.js";

export interface Interval {
  from: number;
  to: number;
}

/** The time of the first line whose msg is `msg` (pino JSON), at or after `after`. */
function lineAt(log: string, msg: string, after = 0): number | undefined {
  for (const line of log.split("\n")) {
    if (!line.includes(`"msg":"${msg}"`)) continue;
    try {
      const time = (JSON.parse(line) as { time?: unknown }).time;
      if (typeof time === "number" && time >= after) return time;
    } catch {
      // a torn last line
    }
  }
  return undefined;
}

/** The serving intervals of each replica (see the header), `now` closing those still serving. */
export function servingIntervals(replicas: readonly ReplicaHistory[], now: number): Interval[] {
  const out: Interval[] = [];
  for (const r of replicas) {
    const log = r.log();
    const led = lineAt(log, "became leader");
    if (led === undefined) continue;
    const synced = lineAt(log, "caches synced", led);
    if (synced === undefined) continue;
    const ends = [lineAt(log, "lost leadership", led), r.exitedAt, r.frozenAt].filter(
      (t): t is number => t !== undefined && t >= led,
    );
    const to = Math.min(now, ...ends);
    if (to > synced) out.push({ from: synced, to });
  }
  return out;
}

/** How much of [from, to] some interval covers (their union). */
export function coveredMs(intervals: readonly Interval[], from: number, to: number): number {
  const clipped = intervals
    .map((i) => ({ from: Math.max(i.from, from), to: Math.min(i.to, to) }))
    .filter((i) => i.to > i.from)
    .sort((a, b) => a.from - b.from);
  let total = 0;
  let end = from;
  for (const i of clipped) {
    const start = Math.max(i.from, end);
    if (i.to > start) total += i.to - start;
    end = Math.max(end, i.to);
  }
  return total;
}
