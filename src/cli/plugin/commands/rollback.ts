import { type PetSet, type PetSetVersion, versionName } from "../../../api/index.js";
import { type CommandContext, objectRef } from "../context.js";
import { formatDuration } from "../duration.js";
import { PluginError } from "../errors.js";
import { contentYaml, unifiedDiff, useColor } from "../format-diff.js";
import { planRollback, type RollbackPlan } from "../rollback-plan.js";
import { parseVersionRef, versionsOf } from "../version-select.js";

export type DryRun = "none" | "client" | "server";

export interface RollbackOptions {
  readonly toVersion?: string;
  readonly dryRun: DryRun;
  readonly wait: boolean;
  readonly timeoutMs: number;
}

/** Re-reads after a 409 at most this many times: each attempt re-plans from fresh state. */
const MAX_ATTEMPTS = 5;

/**
 * `kubectl petset rollback NAME [--to-version N] [--dry-run[=client|server]] [--wait]`.
 * Merge-patches the PetSet's versioned content back to version N with a resourceVersion
 * precondition (on a conflict: read again, plan again, try again), then waits for the
 * controller to record the new version. Exit 0 done, 1 error, 2 patched but the new
 * version did not appear in time.
 */
export async function rollbackCommand(
  ctx: CommandContext,
  name: string,
  options: RollbackOptions,
): Promise<number> {
  const { api, io } = ctx;
  const toVersion =
    options.toVersion === undefined ? undefined : parseVersionRef(options.toVersion, name, "--to-version");
  for (let attempt = 1; ; attempt++) {
    const petSet = await api.getPetSet(name);
    const versions = versionsOf(petSet, await api.listVersions(name));
    const plan = planRollback(petSet, versions, toVersion);
    if (plan.kind === "unchanged") {
      io.stdout.write(
        `${objectRef(name)} skipped rollback (the template already matches version ${plan.target.spec.version})\n`,
      );
      return 0;
    }
    if (options.dryRun === "client") {
      io.stdout.write(`${objectRef(name)} rolled back to version ${plan.target.spec.version} (dry run)\n`);
      io.stdout.write(dryRunDiff(ctx, petSet, plan));
      return 0;
    }
    try {
      await api.patchPetSet(name, plan.patch, {
        ...(petSet.metadata.resourceVersion !== undefined
          ? { resourceVersion: petSet.metadata.resourceVersion }
          : {}),
        dryRun: options.dryRun === "server",
      });
    } catch (err) {
      if (err instanceof PluginError && err.reason === "Conflict" && attempt < MAX_ATTEMPTS) continue;
      throw err;
    }
    const suffix = options.dryRun === "server" ? " (server dry run)" : "";
    io.stdout.write(`${objectRef(name)} rolled back to version ${plan.target.spec.version}${suffix}\n`);
    if (petSet.spec.paused)
      io.stderr.write(
        `note: petset "${name}" is paused: pods move once it is resumed (kubectl petset resume ${name})\n`,
      );
    if (options.dryRun === "server" || !options.wait) return 0;
    return waitForNewVersion(ctx, petSet, versions, plan.target, options.timeoutMs);
  }
}

/** Waits until the controller records a version newer than all in `before` with the target's content. */
async function waitForNewVersion(
  ctx: CommandContext,
  petSet: PetSet,
  before: readonly PetSetVersion[],
  target: PetSetVersion,
  timeoutMs: number,
): Promise<number> {
  const name = petSet.metadata.name ?? "";
  const newest = before.at(-1)?.spec.version ?? 0;
  const created = await ctx.api.watchVersions(
    name,
    (all) =>
      versionsOf(petSet, all).find(
        (v) =>
          v.spec.version > newest &&
          (v.spec.hash === target.spec.hash || v.spec.rollbackOf === target.spec.version),
      ),
    timeoutMs,
  );
  if (created === undefined) {
    ctx.io.stderr.write(
      `error: timed out after ${formatDuration(timeoutMs)} waiting for the controller to record the rollback of petset "${name}" ` +
        `as a new version (is the controller running?); kubectl petset history ${name} shows the versions\n`,
    );
    return 2;
  }
  const rollbackOf = created.spec.rollbackOf !== undefined ? ` (rollbackOf ${created.spec.rollbackOf})` : "";
  ctx.io.stdout.write(`created version ${versionName(name, created.spec.version)}${rollbackOf}\n`);
  return 0;
}

/** What a client dry run would change: the PetSet's current content against the target's. */
function dryRunDiff(
  ctx: CommandContext,
  petSet: PetSet,
  plan: Extract<RollbackPlan, { kind: "patch" }>,
): string {
  const name = petSet.metadata.name ?? "";
  return unifiedDiff(contentYaml(petSet.spec), contentYaml(plan.target.spec), {
    fromLabel: `${name} (spec now)`,
    toLabel: versionName(name, plan.target.spec.version),
    color: useColor("auto", ctx.io.stdout.isTTY, ctx.io.noColor),
  });
}
