import {
  Annotations,
  type Condition,
  ConditionTypes,
  type PetSetStatus,
  type ProgressingReason,
  ProgressingReasons,
} from "../../api/index.js";
import { reportBrokenPets } from "./broken-pets.js";
import { activeRecords } from "./hook-records.js";
import { hookWaitMessage } from "./hooks.js";
import { event, type PlanContext } from "./plan-context.js";
import { AvailableReasons, PlanEventReasons } from "./plan-events.js";
import {
  countReplicas,
  findCondition,
  petsSettledAt,
  rolloutComplete,
  selectorString,
  setCondition,
} from "./plan-status.js";
import { brokenWakeTimes, lastProgressAt } from "./progress-deadline.js";
import { describeStep, stepHoldMessage } from "./steps.js";

function roleWaitMessage(ctx: PlanContext): string {
  return ctx.roleProblems.length > 0 ? `; waiting: ${ctx.roleProblems.join("; ")}` : "";
}

/** updateStrategy External: pets move when asked (external.ts); say how to ask. */
function externalWaitMessage(ctx: PlanContext): string {
  if (!ctx.spec.external) return "";
  const n = ctx.versions.target.spec.version;
  return `; waiting for update requests (${Annotations.updateRequested}=${n}, updateStrategy External)`;
}

/**
 * Status, conditions, the deadline and autoRollback for one pass, after the pod steps are
 * planned (a move planned now counts as progress).
 */
export function planStatus(ctx: PlanContext): PetSetStatus {
  const { input, spec, versions } = ctx;
  const { petSet, now } = input;
  const previous = petSet.status;
  const setName = spec.setName;
  const counts = countReplicas(ctx);
  const hold = ctx.rolloutSteps.hold;
  const stepPaused = hold !== undefined && hold.waitingFor !== "pets";
  const complete = rolloutComplete(ctx) && !ctx.hooksPending && hold === undefined;
  const generation = petSet.metadata.generation;
  const prevProgressing = findCondition(previous?.conditions, ConditionTypes.progressing);

  // lastCompleteVersion: the newest version every pet reached (the autoRollback target).
  let lastComplete = previous?.lastCompleteVersion;
  if (petsSettledAt(ctx, versions.target.spec.hash, Number.NEGATIVE_INFINITY) && !ctx.hooksPending) {
    lastComplete = versions.target.spec.version;
  }

  const inProgress = !complete && !spec.paused && !stepPaused;
  const progressAt = lastProgressAt(ctx);
  const exceeded = inProgress && now - progressAt >= spec.deadlineMs;
  if (inProgress && !exceeded) ctx.wakeAt.push(progressAt + spec.deadlineMs);
  if (!spec.paused) ctx.wakeAt.push(...brokenWakeTimes(ctx));

  const newestN = versions.newest.spec.version;
  const progress = (status: Condition["status"], reason: ProgressingReason, message: string) => ({
    type: ConditionTypes.progressing,
    status,
    reason,
    message,
  });
  const pets = `${counts.updatedReplicas} of ${spec.replicas} pets at version ${newestN}`;
  let progressing: ReturnType<typeof progress>;

  const rollbackTarget = ctx.index.byNumber(lastComplete);
  const canRollBack =
    exceeded &&
    petSet.metadata.deletionTimestamp === undefined &&
    petSet.spec.autoRollback &&
    rollbackTarget !== undefined &&
    rollbackTarget.spec.hash !== versions.newest.spec.hash;
  // The user first sees ProgressDeadlineExceeded (condition and Warning); the rollback follows
  // on the next sync, once that condition is in the API (state lives there, not in memory).
  const deadlineReported =
    prevProgressing?.reason === ProgressingReasons.progressDeadlineExceeded ||
    prevProgressing?.reason === ProgressingReasons.rolledBack;
  const rollback = canRollBack && deadlineReported;
  // A hook failed for good with failurePolicy Rollback: roll back at once (hooks.ts).
  const hookRollback =
    ctx.hooks.rollback !== undefined &&
    petSet.metadata.deletionTimestamp === undefined &&
    rollbackTarget !== undefined &&
    rollbackTarget.spec.hash !== versions.newest.spec.hash;
  const pausedHook = ctx.hooks.paused[0] ?? (hookRollback ? undefined : ctx.hooks.rollback);

  if (spec.paused) {
    progressing = progress(
      "Unknown",
      ProgressingReasons.paused,
      `PetSet ${setName} is paused (spec.paused); ${pets}`,
    );
  } else if (hookRollback && rollbackTarget !== undefined && ctx.hooks.rollback !== undefined) {
    const failed = ctx.hooks.rollback;
    const on = failed.pod !== undefined ? ` on ${failed.pod}` : "";
    const cause = `hook ${failed.hook}${on} failed (failurePolicy Rollback): ${failed.message ?? "no message"}; rolled back from version ${newestN} to version ${rollbackTarget.spec.version}`;
    ctx.steps.push({
      kind: "rollbackTo",
      version: rollbackTarget.spec.version,
      fromVersion: newestN,
      changeCause: cause,
    });
    progressing = progress("False", ProgressingReasons.rolledBack, `PetSet ${setName}: ${cause}`);
    if (prevProgressing?.reason !== ProgressingReasons.rolledBack) {
      event(ctx, "Warning", PlanEventReasons.rolledBack, "petset", `PetSet ${setName}: ${cause}`);
    }
  } else if (pausedHook !== undefined) {
    const on =
      pausedHook.pod !== undefined ? ` on ${pausedHook.pod}` : ` of version ${pausedHook.toVersion ?? "?"}`;
    const noTarget =
      pausedHook.outcome === "RolledBack"
        ? " (failurePolicy Rollback, but no earlier complete version to roll back to)"
        : "";
    progressing = progress(
      "False",
      ProgressingReasons.hookFailed,
      `PetSet ${setName}: hook ${pausedHook.hook}${on} failed after ${pausedHook.attempts} attempt(s): ${pausedHook.message ?? "no message"}${noTarget}; ${pets}. Fix it and run kubectl petset hook retry ${setName}, or apply a new version`,
    );
  } else if (rollback && rollbackTarget !== undefined) {
    const cause = `autoRollback: version ${newestN} made no progress for ${petSet.spec.progressDeadlineSeconds}s (spec.progressDeadlineSeconds); rolled back to version ${rollbackTarget.spec.version}`;
    ctx.steps.push({
      kind: "rollbackTo",
      version: rollbackTarget.spec.version,
      fromVersion: newestN,
      changeCause: cause,
    });
    progressing = progress("False", ProgressingReasons.rolledBack, `PetSet ${setName}: ${cause}`);
    if (prevProgressing?.reason !== ProgressingReasons.rolledBack) {
      event(ctx, "Warning", PlanEventReasons.rolledBack, "petset", `PetSet ${setName}: ${cause}`);
    }
  } else if (exceeded) {
    // The rollback is the next sync's, and only if still no progress by then: the message (and
    // its Event) must not announce as done what may not happen.
    const then =
      canRollBack && rollbackTarget !== undefined
        ? `; rolling back to version ${rollbackTarget.spec.version} (spec.autoRollback) unless the rollout progresses first`
        : "";
    const message = `PetSet ${setName}: version ${versions.target.spec.version} made no progress for ${petSet.spec.progressDeadlineSeconds}s (spec.progressDeadlineSeconds); ${pets}${then}`;
    if (canRollBack) ctx.wakeAt.push(now + 1);
    progressing = progress("False", ProgressingReasons.progressDeadlineExceeded, message);
    if (prevProgressing?.reason !== ProgressingReasons.progressDeadlineExceeded) {
      event(ctx, "Warning", PlanEventReasons.progressDeadlineExceeded, "petset", message);
    }
  } else if (stepPaused && hold !== undefined) {
    const waiting = versions.queued
      ? `; version ${newestN} waits until version ${hold.version} finishes`
      : "";
    progressing = progress(
      "True",
      ProgressingReasons.stepPaused,
      `PetSet ${setName}: ${stepHoldMessage(setName, hold)}; ${pets}${waiting}`,
    );
  } else if (complete) {
    const partitioned = spec.rollingUpdate && spec.partitionOrdinal > spec.start;
    const message = partitioned
      ? `PetSet ${setName}: partitioned rollout complete: pets at ordinals >= ${spec.partitionOrdinal} run version ${newestN}, lower ones version ${versions.current.spec.version} (spec.updateStrategy.rollingUpdate.partition)`
      : `PetSet ${setName}: ${pets}, all available`;
    progressing = progress("True", ProgressingReasons.rolloutComplete, message);
    if (prevProgressing !== undefined && prevProgressing.reason !== ProgressingReasons.rolloutComplete) {
      event(ctx, "Normal", PlanEventReasons.rolloutComplete, "petset", message);
    }
  } else if (
    prevProgressing?.reason === ProgressingReasons.rolledBack &&
    versions.newest.spec.rollbackOf !== undefined
  ) {
    progressing = progress("True", ProgressingReasons.rolledBack, `PetSet ${setName}: rolling back; ${pets}`);
  } else if (previous?.updateVersion !== newestN) {
    progressing = progress(
      "True",
      ProgressingReasons.newVersionObserved,
      `PetSet ${setName}: observed version ${newestN}`,
    );
  } else {
    const waiting = versions.queued
      ? `; version ${newestN} waits until version ${versions.target.spec.version} finishes (at most two versions run at once)`
      : "";
    const step = hold !== undefined ? `; ${stepHoldMessage(setName, hold)}` : "";
    progressing = progress(
      "True",
      ProgressingReasons.rollingOut,
      `PetSet ${setName}: ${pets}${waiting}${step}${externalWaitMessage(ctx)}${hookWaitMessage(ctx)}${roleWaitMessage(ctx)}`,
    );
  }

  // Refused update requests (updateStrategy External) are said whatever the state.
  if (ctx.externalRefusals.length > 0)
    progressing = { ...progressing, message: `${progressing.message}; ${ctx.externalRefusals.join("; ")}` };
  // Pets of the target that will not become Ready are named at once, whatever the state.
  progressing = {
    ...progressing,
    message: reportBrokenPets(ctx, progressing.message, prevProgressing?.message),
  };

  const required = spec.replicas > 0 ? Math.max(1, spec.replicas - spec.maxUnavailable) : 0;
  const availableOk = counts.availableReplicas >= required;
  const available = {
    type: ConditionTypes.available,
    status: availableOk ? ("True" as const) : ("False" as const),
    reason: availableOk ? AvailableReasons.minimumAvailable : AvailableReasons.minimumUnavailable,
    message: `PetSet ${setName}: ${counts.availableReplicas} of ${spec.replicas} pets available, ${required} required`,
  };

  let conditions = setCondition(previous?.conditions ?? [], available, now, generation);
  conditions = setCondition(conditions, progressing, now, generation);

  const status: PetSetStatus = {
    ...counts,
    currentVersion: versions.current.spec.version,
    updateVersion: newestN,
    selector: selectorString(petSet.spec.selector),
    conditions,
  };
  if (generation !== undefined) status.observedGeneration = generation;
  if (lastComplete !== undefined) status.lastCompleteVersion = lastComplete;
  const hooks = activeRecords(ctx.hooks);
  if (hooks.length > 0) status.hooks = hooks;
  if (hold !== undefined) {
    status.rolloutStep = {
      version: hold.version,
      step: hold.index + 1,
      total: hold.total,
      description: describeStep(hold.step),
      waitingFor: hold.waitingFor,
      ...(hold.resumeAt !== undefined ? { resumeAt: new Date(hold.resumeAt).toISOString() } : {}),
    };
  }
  return status;
}
