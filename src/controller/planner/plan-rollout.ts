/**
 * planRollout: the pure decision of one PetSet sync. Plain data in (PetSet, versions, pods,
 * claims, clock), steps + status + events out. The rules (also docs/rollouts.md):
 *
 * Versions
 *  - newest N = highest version number (status.updateVersion). Contents compare by hash: a
 *    pod whose hash equals the target's is up to date and is only relabelled (no restart).
 *  - current C = the version with the latest becameCurrentAt fact (version-facts.ts), else
 *    status.currentVersion, else inferred from the pods (below the partition first). C advances
 *    when every pod runs one content; lastCompleteVersion advances when every pet runs the
 *    target and is available (the autoRollback target).
 *  - target T = the in-flight rollout: the petset.dev/target-version announced on live pods
 *    (else the newest version a pod runs besides C, else N). T becomes N when T's content is
 *    N's, when T is done (every pet >= partition at T and available), or when T is broken
 *    (no T pod is Ready, or one is broken: failing, Failed, or not Ready for a whole
 *    progressDeadline). Otherwise N is queued: it waits until T is done (SPEC rule 2).
 *  - At most two contents live (counting terminating pods and pods created by this plan): a
 *    missing pet is created at T (at C below the partition or while paused), else at the other
 *    of the two if T would be a third, else not yet. With two old contents live (C and a given-
 *    up version X), X's pods are replaced first (refilled at C while X remains), then C's.
 *
 * Pods
 *  - Ordinals: the first `replicas` from start that reserveOrdinals does not reserve
 *    (ordinals.ts); pods outside are condemned (scale-down, highest first; a reserved ordinal is
 *    the one exception). Parallel scaling is limited by scaleStrategy.maxUnavailable
 *    (scale-budget.ts).
 *  - Targeted replacement (replacement.ts): a pod annotated petset.dev/replace is deleted (and
 *    with `recreate` its claims first) through its hooks, within maxUnavailable.
 *  - OrderedReady: create in ordinal order, one at a time, only when every lower pet is
 *    Running+Ready+available (minReadySeconds); scale down one at a time once all pets are
 *    available; rolling updates only when all pets are available and no scale-down runs.
 *    Parallel: create and condemn all at once; updates limited by maxUnavailable only.
 *  - Never a second pod for an ordinal: a pet is created only when no pod of it exists, and
 *    not while a pod the PetSet does not control holds its name (input.blockedOrdinals).
 *  - Failed/Succeeded pods are deleted (reason recreate) and created again.
 *  - RollingUpdate: pets >= start+partition, highest first. Outdated pods that are not Ready are
 *    replaced at once (replace-broken: they serve nothing, SPEC rule 4); Ready ones while fewer
 *    than maxUnavailable pets (missing, terminating or not available, over all pets) are
 *    unavailable. InPlaceIfPossible: when only container images differ, patch them in place;
 *    images and cpu/memory resources, resized in place with a fallback (in-place-resize.ts).
 *  - OnDelete: missing pets are created (at T), pods are never deleted for an update.
 *  - External (external.ts): as OnDelete, but a pod annotated petset.dev/update-requested=T is
 *    moved like a rolling update would (maxUnavailable, hooks); a request for another version is
 *    refused with an Event. currentVersion is promoted once every pet runs T, as under OnDelete.
 *  - paused: no relabel, no update, no announcement; missing pets are created at C; scaling
 *    and recreation of Failed pods go on; Progressing=Unknown/Paused and no deadline.
 *  - When T differs from the announced target, every live pod is annotated
 *    petset.dev/target-version=T (merged into relabel/patch steps for pods that have one).
 *
 * Steps (steps.ts): with rollingUpdate.steps the target moves step by step: an effective
 * partition computed from the step reached (never below the user's), pauses until promoted
 * (annotation petset.dev/promote) or for a duration; state on the target version's status.
 * A step counts pets (step-pets.ts): with spec.roles followers first and the leader last, so
 * the pets a step allows (spec.stepPets) need not be the top ordinals; a canary step whose only
 * pet is the leader holds for a promotion.
 *
 * Deadline: no progress (see lastProgressAt) for progressDeadlineSeconds while not complete
 * and not paused, counted only from when this controller began driving (takeover.ts): Progressing=False/ProgressDeadlineExceeded and a Warning. With autoRollback,
 * once that condition is in status (the next sync), a rollbackTo step to lastCompleteVersion
 * (unless N already has its content):
 * Progressing=False/RolledBack, then True/RolledBack while the rollback version rolls out.
 *
 * Hooks (hooks.ts): preRollout holds every move to T (like a pause, without the Paused status);
 * preUpdate gates each update of a Ready pet and holds a maxUnavailable slot; postUpdate keeps
 * a pet "not yet updated" and the rollout incomplete; postRollout holds completion; preScaleDown
 * gates each condemned pod. A hook failed for good pauses (HookFailed), is ignored, or rolls
 * back; running hooks no longer asked for are cancelled. Hook records live on version status.
 *
 * Roles (roles.ts): with spec.roles, followers update first; the leader's pet goes last, after
 * its switchover hook, once exactly one pod is labelled leader; with none labelled, the pets left
 * go in ordinal order after half the progress deadline (a Warning LeaderUnknown), so an unknown
 * leader never stalls the rollout; scale-down removes a leader only after a switchover, each
 * scale-down its own hook occasion (scale-down-hooks.ts).
 *
 * Claims (claim-updates.ts): under volumeClaimUpdatePolicy InPlace a pet's claims follow it to
 * the target in the same order and budget (grown, relabelled, created); refusals hold that pet.
 *
 * Broken pets (broken-pets.ts): live pods of T's content that are failing, Failed, crash-
 * looping between back-offs, or not Ready for twice the slowest recent start (30 s floor) are
 * named in Progressing at once, with a Warning per newly named pet. Report only: no rule here
 * reads it.
 *
 * Status is derived (version-facts.ts): memory lives as facts on the versions, read before
 * planning and recorded after it (recordVersionStatus steps run first), so a wiped status
 * comes back identical after one sync.
 */
import { podName } from "../../api/index.js";
import { withClaimStatus } from "./claim-updates.js";
import { planExternalUpdates } from "./external.js";
import { readHookBook } from "./hook-records.js";
import { cancelUnrequestedHooks, holdForPostRollout, holdForPreRollout, planPostUpdates } from "./hooks.js";
import { planResizeFallbacks } from "./in-place-resize.js";
import { planNodeFailure, withLostPets } from "./node-failure.js";
import { planPetCreation } from "./pet-creation.js";
import { chooseKeptOld, event, type PlanContext, resolveSpec } from "./plan-context.js";
import { PlanEventReasons } from "./plan-events.js";
import { petsSettledAt, selectorString } from "./plan-status.js";
import type { Plan, PlanInput, Step } from "./plan-types.js";
import { isAvailable } from "./pod-health.js";
import { planAnnouncements, planRelabels, planRollingUpdate } from "./pod-updates.js";
import { planReplacements } from "./replacement.js";
import { planStatus } from "./rollout-status.js";
import { chooseRolloutVersions } from "./rollout-target.js";
import { scaleBudget } from "./scale-budget.js";
import { condemnedPods, planClaimRetention, planScaleDown } from "./scale-down.js";
import { planSteps } from "./steps.js";
import { deriveStatus, planVersionFacts } from "./version-facts.js";
import { indexVersions } from "./version-index.js";
import type { ClaimView, PodView } from "./views.js";

const stepOrder: Record<Step["kind"], number> = {
  recordVersionStatus: -1,
  rollbackTo: 0,
  annotateTargetVersion: 1,
  relabelPod: 2,
  deletePod: 3,
  forceDeleteLostPod: 3,
  patchPodImages: 4,
  patchClaim: 4.5,
  createClaim: 5,
  createPod: 6,
  deleteClaim: 7,
};

export function planRollout(raw: PlanInput): Plan {
  const userSpec = resolveSpec(raw.petSet);
  // Versions of other PetSets in the namespace must never count (newest, contents, targets).
  const index = indexVersions(raw.versions.filter((v) => v.spec.petSet === userSpec.setName));
  const derived = deriveStatus(raw.petSet, index, raw.pods);
  const input: PlanInput =
    derived === undefined ? raw : { ...raw, petSet: { ...raw.petSet, status: derived } };
  const podsByOrdinal = new Map<number, PodView>();
  for (const pod of input.pods) {
    if (pod.ordinal >= 0 && pod.name === podName(userSpec.setName, pod.ordinal))
      podsByOrdinal.set(pod.ordinal, pod);
  }
  const claimsByName = new Map<string, ClaimView>(input.claims.map((c) => [c.name, c]));
  const updatable = userSpec.ordinals.filter(
    (o) => !userSpec.rollingUpdate || o >= userSpec.partitionOrdinal,
  );
  const versions = chooseRolloutVersions({
    index,
    pods: [...podsByOrdinal.values()],
    statusCurrentVersion: input.petSet.status?.currentVersion,
    petOrdinals: userSpec.ordinals,
    updatableOrdinals: updatable,
    minReadyMs: userSpec.minReadyMs,
    deadlineMs: userSpec.deadlineMs,
    now: input.now,
  });

  if (versions === undefined) {
    // No version recorded yet: the version sync runs first. Report what exists, change nothing.
    const previous = input.petSet.status;
    const pods = [...podsByOrdinal.values()];
    return {
      steps: [],
      events: [],
      status: {
        ...(previous ?? { conditions: [] }),
        replicas: pods.length,
        readyReplicas: previous?.readyReplicas ?? 0,
        availableReplicas: previous?.availableReplicas ?? 0,
        currentReplicas: previous?.currentReplicas ?? 0,
        updatedReplicas: previous?.updatedReplicas ?? 0,
        selector: selectorString(input.petSet.spec.selector),
        conditions: previous?.conditions ?? [],
      },
    };
  }

  const rolloutSteps = planSteps({
    petSet: input.petSet,
    spec: userSpec,
    index,
    versions,
    podsByOrdinal,
    now: input.now,
  });
  const spec = {
    ...userSpec,
    partitionOrdinal: rolloutSteps.partitionOrdinal,
    ...(rolloutSteps.pets !== undefined ? { stepPets: rolloutSteps.pets } : {}),
  };
  const liveContents = new Map<string, number>();
  for (const pod of podsByOrdinal.values()) {
    const content = index.contentOf(pod);
    liveContents.set(content, (liveContents.get(content) ?? 0) + 1);
  }
  const ctx: PlanContext = {
    input,
    spec,
    index,
    versions,
    keptOld: chooseKeptOld([...podsByOrdinal.values()], index, versions),
    podsByOrdinal,
    claimsByName,
    steps: [],
    events: [],
    touched: new Set(),
    liveContents,
    wakeAt: [],
    moved: false,
    hooks: readHookBook(index),
    holdAtCurrent: false,
    hooksPending: false,
    rolloutSteps,
    roleProblems: [],
    externalRefusals: [],
  };
  if (rolloutSteps.wakeAt !== undefined) ctx.wakeAt.push(rolloutSteps.wakeAt);

  if (input.petSet.metadata.deletionTimestamp !== undefined) {
    planClaimRetention(ctx);
    return finish(ctx, planStatus(ctx));
  }

  const target = versions.target.spec.version;
  // preRollout (hooks.ts): until it is done no pet moves to the target.
  ctx.holdAtCurrent = holdForPreRollout(ctx);
  if (versions.superseded !== undefined) {
    event(
      ctx,
      "Warning",
      PlanEventReasons.rolloutSuperseded,
      "petset",
      `PetSet ${spec.setName}: version ${versions.superseded.spec.version} has pods that are not Ready; moving to version ${target} instead`,
    );
  }
  const live = [...podsByOrdinal.values()].some((p) => p.deletionTimestamp === undefined);
  if (!spec.paused && !ctx.holdAtCurrent && live && versions.announced !== target) {
    event(
      ctx,
      "Normal",
      PlanEventReasons.rolloutStarted,
      "petset",
      `PetSet ${spec.setName}: rolling out version ${target} (current version ${versions.current.spec.version})`,
    );
  }
  if (versions.queued && input.petSet.status?.updateVersion !== versions.newest.spec.version) {
    event(
      ctx,
      "Normal",
      PlanEventReasons.rolloutQueued,
      "petset",
      `PetSet ${spec.setName}: version ${versions.newest.spec.version} waits until version ${target} finishes rolling out (at most two versions run at once)`,
    );
  }

  // Lost nodes (node-failure.ts): fence, then move; the pods it acts on are touched first.
  const lostPets = planNodeFailure(ctx);
  const budget = scaleBudget(ctx);
  const allPetsHealthy = planPetCreation(ctx, budget);
  const scalingDown = condemnedPods(ctx).length > 0;
  planScaleDown(ctx, allPetsHealthy, budget);
  planClaimRetention(ctx);
  if (!spec.paused && !ctx.holdAtCurrent) {
    planRelabels(ctx);
    if (spec.inPlace) planResizeFallbacks(ctx);
    const postPending = planPostUpdates(ctx, (p) => isAvailable(p, spec.minReadyMs, input.now));
    if (spec.rollingUpdate) planRollingUpdate(ctx, allPetsHealthy, scalingDown, postPending);
    else if (spec.external) planExternalUpdates(ctx, allPetsHealthy, scalingDown, postPending);
    planAnnouncements(ctx);
    ctx.hooksPending = postPending.size > 0;
    if (!ctx.hooksPending && petsSettledAt(ctx, versions.target.spec.hash, Number.NEGATIVE_INFINITY))
      ctx.hooksPending = holdForPostRollout(ctx);
  } else {
    ctx.hooksPending = ctx.holdAtCurrent;
  }
  // Targeted replacement (replacement.ts): not a version move, so neither pause nor preRollout holds it.
  planReplacements(ctx, allPetsHealthy);
  const status = withClaimStatus(ctx, withLostPets(ctx, planStatus(ctx), lostPets));
  cancelUnrequestedHooks(ctx, hookCancelReason(ctx));
  planVersionFacts(ctx, status);
  return lostPets.length > 0 ? { ...finish(ctx, status), lostPets } : finish(ctx, status);
}

/** Why running hooks not asked for any more are cancelled, for their record and Event. */
function hookCancelReason(ctx: PlanContext): string {
  if (ctx.spec.paused) return "the PetSet is paused";
  if (ctx.steps.some((s) => s.kind === "rollbackTo")) return "rolled back";
  return `no longer needed: the target is version ${ctx.versions.target.spec.version} with ${ctx.spec.replicas} replicas`;
}

function finish(ctx: PlanContext, status: Plan["status"]): Plan {
  const steps = ctx.steps
    .map((step, i) => ({ step, i }))
    .sort((a, b) => stepOrder[a.step.kind] - stepOrder[b.step.kind] || a.i - b.i)
    .map(({ step }) => step);
  const future = ctx.wakeAt.filter((t) => t > ctx.input.now);
  const plan: Plan = { steps, status, events: ctx.events };
  if (future.length > 0) plan.requeueAfterMs = Math.min(...future) - ctx.input.now;
  return plan;
}
