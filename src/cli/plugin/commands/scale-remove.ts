/**
 * `kubectl petset scale NAME --replicas N [--remove POD]...`: sets spec.replicas and, for each
 * `--remove`, reserves that pet's ordinal (spec.reserveOrdinals), so the controller removes that
 * pet instead of the highest (the one exception to highest-first, SPEC rule 14). One merge patch
 * with a resourceVersion precondition. Like `kubectl scale`, it changes the live object: a
 * GitOps user makes the same change in Git (docs/cli.md). Without --replicas, replicas drop by
 * the number of pets removed.
 */
import type { ReservedOrdinal } from "../../../api/index.js";
import { petOrdinals } from "../../../controller/planner/ordinals.js";
import { type CommandContext, objectRef } from "../context.js";
import { PluginError, UsageError } from "../errors.js";

export interface ScaleOptions {
  readonly replicas?: string;
  readonly remove: readonly string[];
}

function parseReplicas(value: string): number {
  if (!/^[0-9]+$/.test(value)) throw new UsageError(`--replicas must be a whole number >= 0, not "${value}"`);
  return Number(value);
}

export async function scaleCommand(ctx: CommandContext, name: string, o: ScaleOptions): Promise<number> {
  const { api, io } = ctx;
  if (o.replicas === undefined && o.remove.length === 0)
    throw new UsageError("--replicas or --remove is required");
  const petSet = await api.getPetSet(name);
  const spec = petSet.spec;
  const pets = petOrdinals(spec.ordinals.start, spec.replicas, spec.reserveOrdinals);
  const removed: number[] = [];
  for (const pod of o.remove) {
    const m = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}-([0-9]+)$`).exec(pod);
    const ordinal = m?.[1] !== undefined ? Number(m[1]) : undefined;
    if (ordinal === undefined || !pets.includes(ordinal)) {
      throw new UsageError(
        `--remove ${pod}: not a pet of petset ${name} (its pets are ${pets.map((p) => `${name}-${p}`).join(", ") || "none"})`,
      );
    }
    if (!removed.includes(ordinal)) removed.push(ordinal);
  }
  const replicas = o.replicas !== undefined ? parseReplicas(o.replicas) : spec.replicas - removed.length;
  if (replicas < 0) throw new UsageError(`--replicas would be ${replicas}`);
  const reserve: ReservedOrdinal[] = [...(spec.reserveOrdinals ?? []), ...removed];
  const patch: Record<string, unknown> = {
    spec: { replicas, ...(removed.length > 0 ? { reserveOrdinals: reserve } : {}) },
  };
  try {
    await api.patchPetSet(name, patch, { resourceVersion: petSet.metadata.resourceVersion ?? "" });
  } catch (err) {
    if (err instanceof PluginError && err.reason === "Conflict") {
      throw new PluginError("Conflict", `petset ${name} changed while scaling: run the command again`, 1, {
        cause: err,
      });
    }
    throw err;
  }
  const after = petOrdinals(spec.ordinals.start, replicas, reserve).map((p) => `${name}-${p}`);
  const what =
    removed.length > 0
      ? `, removing ${removed.map((r) => `${name}-${r}`).join(", ")} (spec.reserveOrdinals)`
      : "";
  io.stdout.write(
    `${objectRef(name)} scaled to ${replicas}${what}; pets: ${after.join(", ") || "none"}. This changed the live object: make the same change (replicas, reserveOrdinals) in Git if you deploy from it\n`,
  );
  return 0;
}
