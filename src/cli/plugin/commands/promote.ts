import { Annotations } from "../../../api/index.js";
import { type CommandContext, objectRef } from "../context.js";
import { PluginError } from "../errors.js";
import { rollbackCommand } from "./rollback.js";

/**
 * `kubectl petset promote NAME [--full]`: writes the annotation petset.dev/promote =
 * `<version>#<step>` (pass the step reached, as `status.rolloutStep` shows it) or
 * `<version>#full` (pass every remaining step). The controller owns the annotation and applies
 * each value once, so promoting twice before the controller acted promotes one step.
 */
export async function promoteCommand(ctx: CommandContext, name: string, full: boolean): Promise<number> {
  const { api, io } = ctx;
  const petSet = await api.getPetSet(name);
  const at = petSet.status?.rolloutStep;
  if (at === undefined) {
    throw new PluginError(
      "BadRequest",
      `petset "${name}" has no step-wise rollout in flight (spec.updateStrategy.rollingUpdate.steps); kubectl petset status ${name} shows the rollout`,
    );
  }
  const value = `${at.version}#${full ? "full" : at.step}`;
  if (petSet.metadata.annotations?.[Annotations.promote] === value) {
    io.stdout.write(
      `${objectRef(name)} already promoted (${Annotations.promote}=${value}); waiting for the controller\n`,
    );
    return 0;
  }
  await api.patchPetSet(name, { metadata: { annotations: { [Annotations.promote]: value } } });
  const what = full
    ? `past every remaining step (steps ${at.step}-${at.total})`
    : `past step ${at.step} of ${at.total} (${at.description})`;
  io.stdout.write(`${objectRef(name)} promoted: version ${at.version} ${what}\n`);
  return 0;
}

export interface AbortOptions {
  readonly wait: boolean;
  readonly timeoutMs: number;
}

/**
 * `kubectl petset abort NAME`: give up the rollout in flight by rolling back to the current
 * version (status.currentVersion): the same machinery as `rollback --to-version`, so the
 * rollback version (rollbackOf) skips the steps and replaces the canaries at once.
 */
export async function abortCommand(
  ctx: CommandContext,
  name: string,
  options: AbortOptions,
): Promise<number> {
  const petSet = await ctx.api.getPetSet(name);
  const current = petSet.status?.currentVersion;
  if (current === undefined) {
    throw new PluginError(
      "NoRollbackTarget",
      `petset "${name}" has no current version yet (status.currentVersion): nothing to go back to`,
    );
  }
  return rollbackCommand(ctx, name, {
    toVersion: String(current),
    dryRun: "none",
    wait: options.wait,
    timeoutMs: options.timeoutMs,
  });
}
