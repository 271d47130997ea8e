/**
 * How `adopt` and `release` wait, the pure half: they never wait silently. Rules:
 * - a progress line when the wait starts and then at least every `progressEveryMs` (10 s);
 * - what the awaited party writes (its `status`, the pods it owns) is observed as a
 *   fingerprint; when it has not changed for `stallAfterMs` (30 s), the wait is `stalled`:
 *   the command says what it awaits and from whom, and exits with what to do (resuming is
 *   running the same command again);
 * - past the `--timeout` deadline the wait is `timeout`, whatever moved.
 * Time comes from the caller (`now`), so every decision is a table test.
 */

export const WAIT_PROGRESS_EVERY_MS = 10_000;
export const WAIT_STALL_AFTER_MS = 30_000;

export interface WaitLimits {
  /** Absolute time (ms) after which the wait fails as timed out (`--timeout`). */
  readonly deadline: number;
  readonly progressEveryMs: number;
  readonly stallAfterMs: number;
}

export interface WaitWatch {
  readonly startedAt: number;
  /** When the last progress line was printed; undefined before the first. */
  readonly reportedAt: number | undefined;
  /** When the fingerprint last changed (or the wait started). */
  readonly movedAt: number;
  readonly seen: string | undefined;
}

export type WaitVerdict =
  /** Keep waiting; `report`: print a progress line now. */
  | { readonly kind: "wait"; readonly report: boolean }
  /** Nothing moved for stallAfterMs: `stillFor` is how long. */
  | { readonly kind: "stalled"; readonly stillForMs: number }
  | { readonly kind: "timeout" };

export function startWatch(now: number): WaitWatch {
  return { startedAt: now, reportedAt: undefined, movedAt: now, seen: undefined };
}

/** One observation of a wait that is not over yet: the next watch and what to do. */
export function observeWait(
  watch: WaitWatch,
  now: number,
  seen: string,
  limits: WaitLimits,
): { watch: WaitWatch; verdict: WaitVerdict } {
  const moved = watch.seen !== undefined && watch.seen !== seen;
  const movedAt = moved ? now : watch.movedAt;
  const next = { ...watch, movedAt, seen };
  if (now >= limits.deadline) return { watch: next, verdict: { kind: "timeout" } };
  if (now - movedAt >= limits.stallAfterMs)
    return { watch: next, verdict: { kind: "stalled", stillForMs: now - movedAt } };
  const report = watch.reportedAt === undefined || now - watch.reportedAt >= limits.progressEveryMs;
  return { watch: report ? { ...next, reportedAt: now } : next, verdict: { kind: "wait", report } };
}

/** The progress line: `waiting for WHAT (12s): PROGRESS`. */
export function progressLine(what: string, watch: WaitWatch, now: number, progress: string): string {
  return `waiting for ${what} (${Math.floor((now - watch.startedAt) / 1000)}s): ${progress}`;
}
