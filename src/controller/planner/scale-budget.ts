/**
 * How many pets may be unavailable because of scaling or a move (docs/rollouts.md "Scaling
 * budget"). Pure. The rules:
 *
 *  - Unavailable pets: pets of the set (spec.ordinals) that are missing, terminating or not
 *    available (minReadySeconds).
 *  - scaleStrategy.maxUnavailable (Parallel only; OrderedReady scales one pet at a time anyway):
 *    pods unavailable from scaling are the pets' pods that exist and are not available (created
 *    and not yet available, or terminating) and condemned pods being deleted; a pet not created
 *    yet does not count. Creations and scale-down deletions of this pass each take a slot while
 *    those number fewer than it; pets are created lowest ordinal first, then condemned pods go highest
 *    first. Unset: no limit (all at once, as StatefulSets). Recreating a Failed or Succeeded pod
 *    is not scaling and takes no slot (the pet is unavailable already).
 *  - A pod condemned by reserveOrdinals while a pet above it exists (a moved pet, ordinals.ts)
 *    goes, under Parallel, only while the unavailable pets number fewer than the rolling
 *    update's maxUnavailable: with the default 1 its replacement is available first.
 */
import type { PlanContext } from "./plan-context.js";
import { isAvailable, isTerminating } from "./pod-health.js";

/** Slots left in this pass; mutable, one per plan. */
export interface ScaleBudget {
  left: number;
}

/** Pets of the set that are missing, terminating or not available. */
export function unavailablePets(ctx: PlanContext): number {
  let unavailable = 0;
  for (const o of ctx.spec.ordinals) {
    const pod = ctx.podsByOrdinal.get(o);
    if (pod === undefined || isTerminating(pod) || !isAvailable(pod, ctx.spec.minReadyMs, ctx.input.now))
      unavailable++;
  }
  return unavailable;
}

/** The scaleStrategy.maxUnavailable budget of this pass; undefined when there is no limit. */
export function scaleBudget(ctx: PlanContext): ScaleBudget | undefined {
  const max = ctx.spec.scaleMaxUnavailable;
  if (max === undefined) return undefined;
  const pets = new Set(ctx.spec.ordinals);
  let unavailable = 0;
  for (const pod of ctx.podsByOrdinal.values()) {
    if (pets.has(pod.ordinal) ? !isAvailable(pod, ctx.spec.minReadyMs, ctx.input.now) : isTerminating(pod))
      unavailable++;
  }
  return { left: max - unavailable };
}

/** Take one slot: true when there was one (always, without a budget). */
export function takeScaleSlot(budget: ScaleBudget | undefined): boolean {
  if (budget === undefined) return true;
  if (budget.left <= 0) return false;
  budget.left--;
  return true;
}

/** Parallel: may a condemned pod displaced by reserveOrdinals go now (see the header)? */
export function moveMayGo(ctx: PlanContext, ordinal: number): boolean {
  const highest = ctx.spec.ordinals.at(-1);
  if (highest === undefined || ordinal > highest) return true;
  return unavailablePets(ctx) < ctx.spec.maxUnavailable;
}
