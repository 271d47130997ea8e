import type { PetSetVersion } from "../../api/index.js";
import { targetClaimsRefused } from "./claim-updates.js";
import {
  contentAllowed,
  createPet,
  deletePod,
  ensureClaims,
  inUpdateRange,
  type PlanContext,
} from "./plan-context.js";
import { availableAt, isAvailable, isFinished, isTerminating } from "./pod-health.js";
import { rebuildingClaims } from "./replacement.js";
import { type ScaleBudget, takeScaleSlot } from "./scale-budget.js";

/**
 * The version a missing pet is created at: the target, except below the partition and while
 * paused or held by preRollout (hooks.ts), where it is the old version (current, or the kept one when two old versions are
 * live); if that would make a third live version, the other one; if none keeps at most two
 * versions live, none (the pet waits).
 */
export function chooseCreateVersion(ctx: PlanContext, ordinal: number): PetSetVersion | undefined {
  const { current, target } = ctx.versions;
  const old = ctx.keptOld ?? current;
  const keepOld =
    ctx.spec.paused || ctx.holdAtCurrent || !inUpdateRange(ctx, ordinal) || targetClaimsRefused(ctx);
  const preferences = keepOld ? [old, current, target] : [target, old, current];
  return preferences.find((v) => contentAllowed(ctx, v.spec.hash));
}

/**
 * Create missing pets and recreate finished (Failed/Succeeded) pods.
 * OrderedReady: in ordinal order, one at a time, each only once every lower pet is available.
 * Parallel: all at once (scaleStrategy.maxUnavailable limits them, scale-budget.ts). Never while the pet's old pod still exists (one pod per pet), nor
 * while a pod the PetSet does not control holds the pet's name (input.blockedOrdinals).
 * Returns true when every pet exists and is available (OrderedReady may then scale down/update).
 */
export function planPetCreation(ctx: PlanContext, budget?: ScaleBudget): boolean {
  const { spec, input } = ctx;
  let allHealthy = true;
  for (const ordinal of spec.ordinals) {
    const pod = ctx.podsByOrdinal.get(ordinal);
    if (pod === undefined) {
      allHealthy = false;
      // The name is held by a pod this PetSet does not control (ownership.ts): wait.
      const blocked = input.blockedOrdinals?.includes(ordinal) ?? false;
      const version = blocked ? undefined : chooseCreateVersion(ctx, ordinal);
      // scaleStrategy.maxUnavailable (scale-budget.ts): a creation takes a slot.
      if (version !== undefined && takeScaleSlot(budget)) createPet(ctx, version, ordinal);
      if (spec.orderedReady) return false;
      continue;
    }
    if (isTerminating(pod)) {
      allHealthy = false;
      if (spec.orderedReady) return false;
      continue;
    }
    if (isFinished(pod)) {
      allHealthy = false;
      deletePod(ctx, pod, "recreate");
      if (spec.orderedReady) return false;
      continue;
    }
    const podVersion = ctx.index.byNumber(pod.version);
    // A pet whose storage is being rebuilt (replacement.ts) does not get its claims back yet.
    if (podVersion !== undefined && !rebuildingClaims(pod)) ensureClaims(ctx, podVersion, ordinal);
    if (!isAvailable(pod, spec.minReadyMs, input.now)) {
      allHealthy = false;
      const at = availableAt(pod, spec.minReadyMs);
      if (at !== undefined) ctx.wakeAt.push(at);
      if (spec.orderedReady) return false;
    }
  }
  return allHealthy;
}
