/**
 * Status is derived, not remembered. The PetSet's status is a cache: a restore without status
 * or a `kubectl replace --subresource=status` may wipe it at any time. What the planner used
 * to remember there is recorded as facts on the versions themselves (PetSetVersion `status`,
 * written only by the controller, spec stays immutable), and read back from them.
 *
 * Reading (deriveStatus, before planning):
 *  - currentVersion = the version with the latest `becameCurrentAt`; lastCompleteVersion = the
 *    one with the latest `fullyRolledOutAt` (ties: the higher number). The facts win over the
 *    PetSet status (a stale restored status cannot move a partition); the status is used only
 *    while no version has the fact (sets from before facts existed); else the rollout target
 *    infers current from the pods (rollout-target.ts).
 *  - The previous updateVersion (NewVersionObserved vs RollingOut): the status', else the
 *    highest version with `observedAt`.
 *  - A missing Progressing condition is rebuilt from the facts, first match wins:
 *    newest has `rolledBackAt` (a rollback was asked for) -> False/RolledBack;
 *    newest has `completedAt` -> True/RolloutComplete;
 *    the latest `deadlineExceededAt` is after every pod's last progress, the newest version's
 *    creation and any resume -> False/ProgressDeadlineExceeded (so autoRollback goes on);
 *    newest has `rollbackOf` and the version before it `rolledBackAt` -> True/RolledBack;
 *    else True/RollingOut. True ones carry lastTransitionTime = the latest `observedAt` or
 *    `resumedAt`, the deadline clock's last restart (a wipe must not restart it).
 *
 * Recording (planVersionFacts, after planning; steps run before any pod step, so a fact is
 * durable before the moves that rely on it). Times are the injected clock's:
 *  - observedAt: on the newest version, once.
 *  - rolloutStartedAt: on the target, once, when a pod is live or created and the set is not
 *    paused or the target is the current version (a pause holds moves, not the current pets).
 *  - supersededAt/By: once, on every started version below a started target.
 *  - becameCurrentAt: on the plan's current version when the facts name another one.
 *  - fullyRolledOutAt: on the plan's lastCompleteVersion when the facts name another one.
 *    Both are set later than any existing one, so the written version wins.
 *  - completedAt: on the newest, once, when Progressing is RolloutComplete.
 *  - rolledBackAt: on the version a rollbackTo step leaves, once.
 *  - deadlineExceededAt: on the target when Progressing turns ProgressDeadlineExceeded.
 *  - resumedAt: on the target when a paused set is resumed.
 *  - steps: on the target when the step-wise rollout moved (steps.ts).
 *  Every status written carries formatVersion = STATE_FORMAT (src/controller/state-format.ts).
 * So after every sync the derivation equals the status written: a wipe changes nothing.
 */
import {
  type Condition,
  ConditionTypes,
  type PetSet,
  type PetSetStatus,
  type PetSetVersion,
  type PetSetVersionStatus,
  ProgressingReasons,
} from "../../api/index.js";
import { STATE_FORMAT } from "../../api/state-format.js";
import { factTime, type TimeFact, versionWithLatest } from "../../versions/facts.js";
import { mergedRecords } from "./hook-records.js";
import type { PlanContext } from "./plan-context.js";
import { findCondition } from "./plan-status.js";
import type { VersionIndex } from "./version-index.js";
import { type PodView, toMillis } from "./views.js";

const EMPTY_STATUS: PetSetStatus = {
  replicas: 0,
  readyReplicas: 0,
  availableReplicas: 0,
  currentReplicas: 0,
  updatedReplicas: 0,
  conditions: [],
};

/** The PetSet status as the planner reads it: memory from the versions' facts where they have it. */
export function deriveStatus(
  petSet: PetSet,
  index: VersionIndex,
  pods: readonly PodView[],
): PetSetStatus | undefined {
  const previous = petSet.status;
  const current = versionWithLatest(index.sorted, "becameCurrentAt");
  const complete = versionWithLatest(index.sorted, "fullyRolledOutAt");
  const observed = [...index.sorted].reverse().find((v) => v.status?.observedAt !== undefined);
  if (current === undefined && complete === undefined && observed === undefined) return previous;
  const status: PetSetStatus = { ...(previous ?? EMPTY_STATUS) };
  if (current !== undefined) status.currentVersion = current.spec.version;
  if (complete !== undefined) status.lastCompleteVersion = complete.spec.version;
  if (status.updateVersion === undefined && observed !== undefined)
    status.updateVersion = observed.spec.version;
  if (findCondition(status.conditions, ConditionTypes.progressing) === undefined) {
    const progressing = rebuildProgressing(index, pods);
    if (progressing !== undefined) status.conditions = [...status.conditions, progressing];
  }
  return status;
}

function rebuildProgressing(index: VersionIndex, pods: readonly PodView[]): Condition | undefined {
  const newest = index.newest;
  if (newest === undefined) return undefined;
  const latest = (fact: TimeFact) => {
    const v = versionWithLatest(index.sorted, fact);
    return v === undefined ? undefined : factTime(v, fact);
  };
  const resumedAt = latest("resumedAt");
  // Progressing turned True when a version was first observed or a rollout resumed (a recovery
  // from False is a pod's progress, seen anyway). The deadline clock reads this time, so a wipe
  // must not restart it: the rebuilt condition carries it.
  const since = Math.max(
    latest("observedAt") ?? Number.NEGATIVE_INFINITY,
    resumedAt ?? Number.NEGATIVE_INFINITY,
  );
  const condition = (status: Condition["status"], reason: string): Condition => ({
    type: ConditionTypes.progressing,
    status,
    reason,
    ...(status === "True" && Number.isFinite(since)
      ? { lastTransitionTime: new Date(since).toISOString() }
      : {}),
  });
  if (newest.status?.rolledBackAt !== undefined) return condition("False", ProgressingReasons.rolledBack);
  if (newest.status?.completedAt !== undefined) return condition("True", ProgressingReasons.rolloutComplete);
  const stalledAt = latest("deadlineExceededAt");
  if (stalledAt !== undefined && stalledAt >= lastActivity(newest, pods) && stalledAt > (resumedAt ?? -1)) {
    return condition("False", ProgressingReasons.progressDeadlineExceeded);
  }
  const before = index.sorted.filter((v) => v.spec.version < newest.spec.version).at(-1);
  if (newest.spec.rollbackOf !== undefined && before?.status?.rolledBackAt !== undefined) {
    return condition("True", ProgressingReasons.rolledBack);
  }
  return condition("True", ProgressingReasons.rollingOut);
}

/** The latest thing that counts as progress without memory: the newest version, pod changes. */
function lastActivity(newest: PetSetVersion, pods: readonly PodView[]): number {
  const times = [toMillis(newest.metadata.creationTimestamp) ?? 0];
  for (const pod of pods) {
    times.push(pod.createdAt);
    if (pod.readySince !== undefined) times.push(pod.readySince);
    if (pod.deletionRequestedAt !== undefined) times.push(pod.deletionRequestedAt);
  }
  return Math.max(...times);
}

type Facts = Map<number, PetSetVersionStatus>;

function set(facts: Facts, version: PetSetVersion, update: PetSetVersionStatus): void {
  facts.set(version.spec.version, { ...(facts.get(version.spec.version) ?? {}), ...update });
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A time later than the latest `fact` on any version, so the version written now wins. */
function winningTime(ctx: PlanContext, fact: TimeFact): number {
  const latest = versionWithLatest(ctx.index.sorted, fact);
  const at = latest !== undefined ? factTime(latest, fact) : undefined;
  return Math.max(ctx.input.now, (at ?? Number.NEGATIVE_INFINITY) + 1);
}

/** Record the facts that make deriveStatus(next input) equal `status`: recordVersionStatus steps. */
export function planVersionFacts(ctx: PlanContext, status: PetSetStatus): void {
  const { index, versions, spec, input } = ctx;
  const now = iso(input.now);
  const facts: Facts = new Map();
  const { newest, target, current } = versions;
  const prevReason = findCondition(input.petSet.status?.conditions, ConditionTypes.progressing)?.reason;
  const reason = findCondition(status.conditions, ConditionTypes.progressing)?.reason;

  if (newest.status?.observedAt === undefined) set(facts, newest, { observedAt: now });

  const live = [...ctx.podsByOrdinal.values()].some((p) => p.deletionTimestamp === undefined);
  const creates = ctx.steps.some((s) => s.kind === "createPod" && s.version === target.spec.version);
  // A pause holds moves between versions, not the current version's own pets: a set paused
  // before its first sync still creates its pets at version 1, and that is its rollout (else
  // the next version counted as the set's first and skipped its preRollout: a migration never
  // run, seen in the chaos slice on kube-apiserver).
  const pausedAtCurrent = spec.paused && target.spec.version === current.spec.version;
  const targetStarted =
    target.status?.rolloutStartedAt !== undefined || ((!spec.paused || pausedAtCurrent) && (live || creates));
  if (target.status?.rolloutStartedAt === undefined && targetStarted)
    set(facts, target, { rolloutStartedAt: now });
  if (targetStarted) {
    for (const v of index.sorted) {
      if (v.spec.version >= target.spec.version) break;
      if (v.status?.rolloutStartedAt === undefined || v.status.supersededAt !== undefined) continue;
      set(facts, v, { supersededAt: now, supersededBy: target.spec.version });
    }
  }

  if (versionWithLatest(index.sorted, "becameCurrentAt") !== current)
    set(facts, current, { becameCurrentAt: iso(winningTime(ctx, "becameCurrentAt")) });
  const lastComplete = index.byNumber(status.lastCompleteVersion);
  if (lastComplete !== undefined && versionWithLatest(index.sorted, "fullyRolledOutAt") !== lastComplete)
    set(facts, lastComplete, { fullyRolledOutAt: iso(winningTime(ctx, "fullyRolledOutAt")) });

  if (reason === ProgressingReasons.rolloutComplete && newest.status?.completedAt === undefined)
    set(facts, newest, { completedAt: now });
  for (const step of ctx.steps) {
    if (step.kind !== "rollbackTo") continue;
    const from = index.byNumber(step.fromVersion);
    if (from !== undefined && from.status?.rolledBackAt === undefined)
      set(facts, from, { rolledBackAt: now });
  }
  if (
    reason === ProgressingReasons.progressDeadlineExceeded &&
    prevReason !== ProgressingReasons.progressDeadlineExceeded
  )
    set(facts, target, { deadlineExceededAt: now });
  if (prevReason === ProgressingReasons.paused && !spec.paused) set(facts, target, { resumedAt: now });

  const stepsRecord = ctx.rolloutSteps.record;
  if (stepsRecord !== undefined) set(facts, target, { steps: stepsRecord });

  for (const [n, writes] of ctx.hooks.writes) {
    const version = index.byNumber(n);
    if (version !== undefined) set(facts, version, { hooks: mergedRecords(version, writes) });
  }

  for (const [n, update] of facts) {
    const version = index.byNumber(n);
    // Created by this very sync and not in the cache yet: its facts are recorded next sync.
    if (version?.metadata.resourceVersion === undefined) continue;
    ctx.steps.push({
      kind: "recordVersionStatus",
      versionName: version.metadata.name ?? "",
      version: n,
      resourceVersion: version.metadata.resourceVersion,
      status: { ...(version.status ?? {}), ...update, formatVersion: STATE_FORMAT },
      facts: Object.keys(update),
    });
  }
}
