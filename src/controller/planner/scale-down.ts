import { gatePreScaleDown } from "./hooks.js";
import { deletePod, type PlanContext } from "./plan-context.js";
import { isRunningAndReady, isTerminating } from "./pod-health.js";
import { gateCondemnedLeader } from "./roles.js";
import { moveMayGo, type ScaleBudget, takeScaleSlot } from "./scale-budget.js";
import { keepRunningScaleDownHooks, retireScaleDownRecords } from "./scale-down-hooks.js";
import type { PodView } from "./views.js";

/** Pods whose ordinal is not a pet's (above the set, or reserved: ordinals.ts), highest ordinal first. */
export function condemnedPods(ctx: PlanContext): PodView[] {
  const inRange = new Set(ctx.spec.ordinals);
  return [...ctx.podsByOrdinal.values()]
    .filter((p) => !inRange.has(p.ordinal))
    .sort((a, b) => b.ordinal - a.ordinal);
}

/**
 * Scale down: highest ordinal first. OrderedReady: one pod at a time, only once every other
 * pet is available, no condemned pod is still terminating and, if the next one is unhealthy,
 * no lower condemned pod is (upstream's "halt if any stateful pod is unhealthy"). Parallel: all at once. Each pod
 * goes only once its preScaleDown hook is done (hooks.ts), and a leader only after a switchover
 * (roles.ts); each scale-down is its own hook occasion (scale-down-hooks.ts). Parallel deletions
 * take scaleStrategy.maxUnavailable slots, and a pet displaced by reserveOrdinals waits for the
 * rolling update's budget (scale-budget.ts). A pod at a reserved ordinal is condemned like one
 * above the set: the one exception to highest-first (SPEC rule 14, ordinals.ts).
 */
export function planScaleDown(ctx: PlanContext, allPetsHealthy: boolean, budget?: ScaleBudget): void {
  const condemned = condemnedPods(ctx);
  retireScaleDownRecords(ctx);
  keepRunningScaleDownHooks(ctx, condemned);
  if (ctx.spec.orderedReady) {
    if (!allPetsHealthy || condemned.some(isTerminating)) return;
    const highest = condemned[0];
    // As StatefulSets: an unhealthy condemned pod goes only when it is the lowest unhealthy one
    // (upstream's firstUnhealthyPod), so scale-down halts while a lower condemned pod is unhealthy.
    const lowestUnhealthy = condemned.findLast((p) => !isRunningAndReady(p));
    if (highest !== undefined && !isRunningAndReady(highest) && highest !== lowestUnhealthy) return;
    if (highest !== undefined && mayGo(ctx, highest)) deletePod(ctx, highest, "scale-down");
    return;
  }
  for (const pod of condemned) {
    if (isTerminating(pod) || !moveMayGo(ctx, pod.ordinal)) continue;
    if (budget !== undefined && budget.left <= 0) break;
    if (mayGo(ctx, pod) && takeScaleSlot(budget)) deletePod(ctx, pod, "scale-down");
  }
}

/** A condemned pod goes once a leader handed over (roles.ts) and its preScaleDown hook is done. */
function mayGo(ctx: PlanContext, pod: PodView): boolean {
  return gateCondemnedLeader(ctx, pod) === "done" && gatePreScaleDown(ctx, pod) === "done";
}

/** `<anything>-<set>-<ordinal>` → ordinal, for claims of this set; undefined otherwise. */
function claimOrdinal(name: string, setName: string): number | undefined {
  const match = new RegExp(`-${setName.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}-([0-9]+)$`).exec(name);
  return match?.[1] !== undefined ? Number.parseInt(match[1], 10) : undefined;
}

/**
 * Retention: whenScaled=Delete deletes the claims of ordinals outside the range once their pod
 * is gone; whenDeleted=Delete deletes every claim once its pod is gone while the PetSet is being
 * deleted (claims created with whenDeleted=Delete are also owned by the PetSet). Never a claim
 * another controller holds, nor one of an ordinal whose name a foreign pod holds.
 */
export function planClaimRetention(ctx: PlanContext): void {
  const policy = ctx.input.petSet.spec.persistentVolumeClaimRetentionPolicy;
  const setDeleting = ctx.input.petSet.metadata.deletionTimestamp !== undefined;
  const inRange = new Set(ctx.spec.ordinals);
  for (const claim of ctx.claimsByName.values()) {
    if (claim.deletionTimestamp !== undefined || claim.foreign === true) continue;
    const ordinal = claimOrdinal(claim.name, ctx.spec.setName);
    if (ordinal === undefined || ctx.podsByOrdinal.has(ordinal)) continue;
    // A pod the PetSet does not control holds the pet's name and may use the claim.
    if (ctx.input.blockedOrdinals?.includes(ordinal)) continue;
    let reason: "whenScaled" | "whenDeleted" | undefined;
    if (setDeleting && policy.whenDeleted === "Delete") reason = "whenDeleted";
    else if (!setDeleting && !inRange.has(ordinal) && policy.whenScaled === "Delete") reason = "whenScaled";
    if (reason === undefined) continue;
    ctx.steps.push({
      kind: "deleteClaim",
      ordinal,
      claimName: claim.name,
      uid: claim.uid,
      resourceVersion: claim.resourceVersion,
      reason,
    });
  }
}
