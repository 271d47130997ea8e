import { ConditionTypes, ProgressingReasons } from "../../api/index.js";
import type { PlanContext } from "./plan-context.js";
import { findCondition } from "./plan-status.js";
import { isRunningAndReady, isTerminating } from "./pod-health.js";
import { judgedFrom } from "./takeover.js";
import { toMillis } from "./views.js";

/**
 * When the rollout last made progress, from observed state only (the planner keeps no memory
 * of its own): the creation of the target or newest version, a pod created, becoming Ready or
 * asked to terminate, a move planned now, a resume (Progressing was Paused or StepPaused), or the last time
 * Progressing turned True/Unknown. Progressing=False itself is not progress, or the deadline
 * would re-arm itself. Never before this controller began driving (takeover.ts).
 */
export function lastProgressAt(ctx: PlanContext): number {
  const { now } = ctx.input;
  const times: number[] = [];
  for (const v of [ctx.versions.target, ctx.versions.newest]) {
    const created = toMillis(v.metadata.creationTimestamp);
    if (created !== undefined) times.push(created);
  }
  for (const pod of ctx.podsByOrdinal.values()) {
    times.push(pod.createdAt);
    if (pod.readySince !== undefined) times.push(pod.readySince);
    if (pod.deletionRequestedAt !== undefined) times.push(pod.deletionRequestedAt);
  }
  const progressing = findCondition(ctx.input.petSet.status?.conditions, ConditionTypes.progressing);
  if (progressing !== undefined && progressing.status !== "False") {
    const t = toMillis(progressing.lastTransitionTime);
    if (t !== undefined) times.push(t);
  }
  if (ctx.rolloutSteps.progressAt !== undefined) times.push(ctx.rolloutSteps.progressAt);
  const resumed =
    progressing?.reason === ProgressingReasons.paused ||
    progressing?.reason === ProgressingReasons.stepPaused;
  if (ctx.moved || resumed) times.push(now);
  const last = times.length > 0 ? Math.max(...times) : now;
  return Math.min(now, judgedFrom(last, ctx.input.drivingSince));
}

/** Ms until a not-Ready pod counts as broken (isBroken), so the planner wakes up then. */
export function brokenWakeTimes(ctx: PlanContext): number[] {
  const times: number[] = [];
  for (const pod of ctx.podsByOrdinal.values()) {
    if (isTerminating(pod) || isRunningAndReady(pod) || pod.failing !== undefined) continue;
    times.push(pod.createdAt + ctx.spec.deadlineMs);
  }
  return times;
}
