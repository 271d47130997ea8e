/**
 * How `adopt` and `release` wait for another party (the garbage collector, a StatefulSet
 * controller, the petset controller): poll, print a progress line on stderr when the wait
 * starts and at least every 10 s, and fail with a message that names the awaited party and
 * what to do when what it writes has not moved for 30 s (decisions: migrate/wait-watch.ts).
 */
import type { CommandContext } from "../context.js";
import { formatDuration } from "../duration.js";
import { PluginError } from "../errors.js";
import {
  observeWait,
  progressLine,
  startWatch,
  WAIT_PROGRESS_EVERY_MS,
  WAIT_STALL_AFTER_MS,
} from "../migrate/wait-watch.js";

/** One look at the awaited state. */
export interface WaitLook<T> {
  /** Set when the wait is over. */
  readonly done?: T | undefined;
  /** For the progress line: where it stands, e.g. `1 of 2 pods adopted, no revision yet`. */
  readonly progress: string;
  /** A fingerprint of what the awaited party writes: a change means it is at work. */
  readonly seen: string;
  /** When this look shows another party holding things up: its stall message instead of the wait's. */
  readonly stalled?: ((stillFor: string) => string) | undefined;
}

export interface MigrationWait<T> {
  /** What is awaited, after "waiting for": `statefulset/web to adopt the pods`. */
  readonly what: string;
  /** The error when nothing moved for `stillFor` (e.g. "30s"): who, and what to do. */
  readonly stalled: (stillFor: string) => string;
  readonly look: () => Promise<WaitLook<T>>;
}

export interface WaitTiming {
  /** Absolute deadline of the command's --timeout (ctx.clock time). */
  readonly deadline: number;
  readonly pollMs: number;
  readonly progressEveryMs?: number;
  readonly stallAfterMs?: number;
}

export async function waitFor<T>(
  ctx: CommandContext,
  wait: MigrationWait<T>,
  timing: WaitTiming,
): Promise<T> {
  const limits = {
    deadline: timing.deadline,
    progressEveryMs: timing.progressEveryMs ?? WAIT_PROGRESS_EVERY_MS,
    stallAfterMs: timing.stallAfterMs ?? WAIT_STALL_AFTER_MS,
  };
  let watch = startWatch(ctx.clock.now());
  for (;;) {
    const look = await wait.look();
    if (look.done !== undefined) return look.done;
    const now = ctx.clock.now();
    const observed = observeWait(watch, now, look.seen, limits);
    watch = observed.watch;
    const { verdict } = observed;
    if (verdict.kind === "timeout")
      throw new PluginError(
        "Timeout",
        `timed out after ${formatDuration(now - watch.startedAt)} waiting for ${wait.what} (${look.progress}); run the same command again to resume`,
        2,
      );
    if (verdict.kind === "stalled")
      throw new PluginError(
        "Timeout",
        (look.stalled ?? wait.stalled)(formatDuration(Math.floor(verdict.stillForMs / 1000) * 1000)),
        2,
      );
    if (verdict.report) ctx.io.stderr.write(`${progressLine(wait.what, watch, now, look.progress)}\n`);
    await new Promise((resolve) => setTimeout(resolve, timing.pollMs));
  }
}
