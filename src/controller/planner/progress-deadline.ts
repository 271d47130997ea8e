/**
 * The progress clock: when the rollout last made progress, from observed state only (the
 * planner keeps no memory of its own). The deadline (rollout-status.ts) fires when
 * now - lastProgressAt >= progressDeadlineSeconds while the rollout is neither complete nor
 * paused. The rules (docs/rollouts.md "Broken rollouts"):
 *
 *  - Progress: the creation of the target or newest version (a version this sync records has
 *    no creationTimestamp yet: now); the moment the target became the target (its
 *    `rolloutStartedAt` fact; now while it has none and the pods are not told it yet); a pod created, becoming Ready or asked to
 *    terminate; a move planned now; a resume (Progressing was Paused or StepPaused); the last
 *    time Progressing turned True/Unknown; a step of a step-wise rollout; a hook started,
 *    retried or finished (acknowledged) among those this pass gates on.
 *  - Waiting is not "no progress". While the rollout waits on a hook that is running, the clock
 *    holds (counts as now): the hook is judged by its own timeoutSeconds and failure policy,
 *    not by the deadline, so a slow migration is never rolled back mid-run and a retried hook
 *    is never cancelled by a deadline that ran out during the HookFailed pause before it.
 *    Likewise under updateStrategy External while no pet is asked to move: the pace is the
 *    requester's (external.ts). Paused and step-paused sets have no deadline at all.
 *  - Progressing=False itself is not progress, or the deadline would re-arm itself.
 *  - Never before this controller began driving (takeover.ts).
 *
 * Found by issue 24: every hooked rollout of a set idle longer than the deadline was reported
 * ProgressDeadlineExceeded on its first sync (the version had no creationTimestamp yet and no
 * pod moved), and `hook retry` after a long HookFailed pause rolled back.
 */
import { Annotations, ConditionTypes, ProgressingReasons } from "../../api/index.js";
import { claimRefusalStands } from "./claim-updates.js";
import type { PlanContext } from "./plan-context.js";
import { findCondition } from "./plan-status.js";
import { isAvailable, isRunningAndReady, isTerminating } from "./pod-health.js";
import { judgedFrom } from "./takeover.js";
import { toMillis } from "./views.js";

export function lastProgressAt(ctx: PlanContext): number {
  const { now } = ctx.input;
  const { target, newest } = ctx.versions;
  const times: number[] = [];
  for (const v of [target, newest]) times.push(toMillis(v.metadata.creationTimestamp) ?? now);
  // Became the target: its fact, else now unless the pods already carry it (a set whose
  // rollout began before the fact was recorded).
  const startedAt = toMillis(target.status?.rolloutStartedAt);
  if (startedAt !== undefined) times.push(startedAt);
  else if (ctx.versions.announced !== target.spec.version) times.push(now);
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
  times.push(...hookProgress(ctx));
  const resumed =
    progressing?.reason === ProgressingReasons.paused ||
    progressing?.reason === ProgressingReasons.stepPaused;
  // A claim update refused (claim-updates.ts) waits for the user, not for the deadline.
  if (ctx.moved || resumed || waitingForRequests(ctx) || claimRefusalStands(ctx)) times.push(now);
  const last = Math.min(now, Math.max(...times));
  return Math.min(now, judgedFrom(last, ctx.input.drivingSince));
}

/** Starts and ends of the hooks this pass gates on; now while one of them runs. */
function hookProgress(ctx: PlanContext): number[] {
  const times: number[] = [];
  for (const id of ctx.hooks.requested) {
    const record = ctx.hooks.records.get(id)?.record;
    if (record === undefined) continue;
    const started = Date.parse(record.startedAt);
    if (!Number.isNaN(started)) times.push(started);
    const finished = record.finishedAt !== undefined ? Date.parse(record.finishedAt) : Number.NaN;
    if (!Number.isNaN(finished)) times.push(finished);
  }
  if (ctx.hooks.waiting.length > 0) times.push(ctx.input.now);
  return times;
}

/**
 * updateStrategy External with nothing to do until an outside actor asks: every pet has a
 * live, available pod, and none at another content than the target's is asked to move to it
 * (a request of the kept old content waits for the given-up version's pods: external.ts).
 */
function waitingForRequests(ctx: PlanContext): boolean {
  if (!ctx.spec.external) return false;
  const target = ctx.versions.target;
  return ctx.spec.ordinals.every((o) => {
    const pod = ctx.podsByOrdinal.get(o);
    if (pod === undefined || isTerminating(pod) || !isAvailable(pod, ctx.spec.minReadyMs, ctx.input.now))
      return false;
    const content = ctx.index.contentOf(pod);
    if (content === target.spec.hash || content === ctx.keptOld?.spec.hash) return true;
    return pod.annotations[Annotations.updateRequested] !== String(target.spec.version);
  });
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
