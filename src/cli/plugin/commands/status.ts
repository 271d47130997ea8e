import type { CommandContext } from "../context.js";
import { formatDuration } from "../duration.js";
import { PluginError } from "../errors.js";
import { claimStatusLines } from "../format-claims.js";
import { lostPetLines } from "../format-lost-pets.js";
import { brokenPetHints, progressLine, statusLine } from "../format-status.js";
import { type RolloutState, rolloutState, StatusExit } from "../rollout-state.js";

export interface StatusOptions {
  /** Follow the rollout until it completes or fails (or the timeout passes). */
  readonly watch: boolean;
  /** Give up after this long (exit 2). Implies waiting; without it `--watch` waits forever. */
  readonly timeoutMs?: number;
}

/**
 * `kubectl petset status NAME [--watch] [--timeout D]`. Exit 0 when the rollout is
 * complete, 1 when it failed (ProgressDeadlineExceeded), 2 when it is not complete in time;
 * without --watch or --timeout it reports once, so "not complete yet" is exit 2.
 */
export async function statusCommand(
  ctx: CommandContext,
  name: string,
  options: StatusOptions,
): Promise<number> {
  const { api, io } = ctx;
  if (!options.watch && options.timeoutMs === undefined) {
    const petSet = await api.getPetSet(name);
    const state = rolloutState(petSet);
    io.stdout.write(`${statusLine(state)}\n`);
    io.stdout.write(lines(claimStatusLines(petSet.status, petSet.spec.replicas)));
    io.stdout.write(lines(lostPetLines(petSet.status, petSet.metadata.namespace ?? "default")));
    if (io.stdout.isTTY) io.stdout.write(lines(brokenPetHints(state)));
    return exitCodeOf(state);
  }
  const tty = io.stdout.isTTY;
  let lastLine = "";
  let lastBroken = "";
  let last: RolloutState | undefined;
  const show = (state: RolloutState) => {
    last = state;
    if (tty) {
      // Newly broken pets: their line and what to do, printed above the redrawn bar.
      const broken = state.brokenPets.map((p) => p.pet).join(",");
      if (broken !== "" && broken !== lastBroken)
        io.stdout.write(`\r\x1b[2K${statusLine(state)}\n${lines(brokenPetHints(state))}`);
      lastBroken = broken;
      io.stdout.write(`\r\x1b[2K${progressLine(state, (io.stdout.columns ?? 80) - 1)}`);
      return;
    }
    const line = statusLine(state);
    if (line !== lastLine) io.stdout.write(`${line}\n`);
    lastLine = line;
  };
  const final = await api.watchPetSet(
    name,
    (petSet) => {
      if (petSet === undefined)
        throw new PluginError("NotFound", `petset "${name}" was deleted while watching its rollout`);
      const state = rolloutState(petSet);
      show(state);
      return state.phase === "complete" || state.phase === "failed" ? state : undefined;
    },
    options.timeoutMs,
  );
  if (tty && last !== undefined) io.stdout.write("\n");
  if (final === undefined) {
    const where = last === undefined ? "" : `: ${statusLine(last).replace(`petset "${name}": `, "")}`;
    io.stderr.write(
      `error: timed out after ${formatDuration(options.timeoutMs ?? 0)} waiting for the rollout of petset "${name}"${where}\n`,
    );
    return StatusExit.timeout;
  }
  if (final.phase === "failed") {
    io.stderr.write(`error: ${statusLine(final)}\n`);
    return StatusExit.failed;
  }
  if (tty) io.stdout.write(`${statusLine(final)}\n`);
  return StatusExit.complete;
}

function lines(text: readonly string[]): string {
  return text.map((l) => `${l}\n`).join("");
}

function exitCodeOf(state: RolloutState): number {
  if (state.phase === "complete") return StatusExit.complete;
  return state.phase === "failed" ? StatusExit.failed : StatusExit.timeout;
}
