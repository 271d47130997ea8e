/**
 * Targeted replacement: `kubectl petset replace POD [--claims keep|recreate]` annotates the pod
 * petset.dev/replace=keep|recreate (and petset.dev/replace-reason); this pass replaces that one
 * pet (docs/rollouts.md "Targeted replacement"). Pure. The state machine is the cluster's own
 * data, read on every pass, so a restarted controller resumes it: the annotation (asked), the
 * hook record (gated), the claims' state (storage being rebuilt), the pod's deletion (done: the
 * request goes with the pod). The rules:
 *
 *  - Only a pet of the set (spec.ordinals) is replaced; a condemned pod goes by scale-down anyway.
 *    A pod that is terminating, Failed/Succeeded, or already moved by another step of this pass
 *    (a rolling update) is left to that; an unknown value is ignored.
 *  - Hooks, as the change is: `keep` runs preUpdate (the pet restarts on its storage), `recreate`
 *    runs preScaleDown (its data leaves it, as in a scale-down). Ids are
 *    `<hook>.<set>.replace.<ordinal>.<pod uid prefix>`, records on the pod's version. As for
 *    updates, preUpdate is not run on a pod that is not Ready, and an exec preScaleDown on it is
 *    skipped (scale-down-hooks.ts).
 *  - Budget: a Ready pet goes (hook, claims, pod: each phase) only while the unavailable pets
 *    (scale-budget.ts) and the pods this pass already deletes or patches number fewer than
 *    rollingUpdate.maxUnavailable; OrderedReady also only while every pet is available. Pets
 *    already in their replacement (hook started, claims deleting) go first; a started hook
 *    waiting for a slot keeps running. A pet that is not Ready goes at once (it serves nothing,
 *    SPEC rule 4). Not held by pause, steps or preRollout: a replacement is not a move between
 *    versions.
 *  - `recreate`: the pet's claims (its version's templates) are deleted first, the pod stays until
 *    none is left undeleted; then the pod is deleted; pet creation (pet-creation.ts) waits for
 *    terminating claims to go, then creates fresh ones. While asked, a missing claim of the
 *    running pod is not recreated (`rebuildingClaims`).
 *  - The new pod is created by the normal creation rules (pet-creation.ts): at the pet's own
 *    version, unless the rollout in flight moves that pet now, where it is the target, as the
 *    update would have made it.
 */
import { Annotations, claimName } from "../../api/index.js";
import { uidPrefix } from "./hook-records.js";
import { gateHook, type HookRequest } from "./hooks.js";
import { deletePod, event, type PlanContext } from "./plan-context.js";
import { isFinished, isRunningAndReady, isTerminating } from "./pod-health.js";
import { unavailablePets } from "./scale-budget.js";
import { skipExecOnUnreadyPod } from "./scale-down-hooks.js";
import type { ClaimView, PodView } from "./views.js";

export const ReplaceClaimModes = ["keep", "recreate"] as const;
export type ReplaceClaimMode = (typeof ReplaceClaimModes)[number];

export const ReplacementEventReasons = {
  replacing: "ReplacingPet",
} as const;

/** The pod's replacement request, if it carries a valid one. */
export function replaceRequest(pod: Pick<PodView, "annotations">): ReplaceClaimMode | undefined {
  const value = pod.annotations[Annotations.replace];
  return ReplaceClaimModes.find((m) => m === value);
}

/** The pet's storage is being rebuilt: its missing claims must not come back under the old pod. */
export function rebuildingClaims(pod: Pick<PodView, "annotations">): boolean {
  return replaceRequest(pod) === "recreate";
}

/** Id prefix of replacement hooks (scale-down-hooks.ts must not retire them). */
export function replacementHookPrefix(setName: string, hook: "preUpdate" | "preScaleDown"): string {
  return `${hook}.${setName}.replace.`;
}

function hookRequest(ctx: PlanContext, pod: PodView, mode: ReplaceClaimMode): HookRequest {
  const hook = mode === "keep" ? "preUpdate" : "preScaleDown";
  const holder = ctx.index.byNumber(pod.version) ?? ctx.versions.current;
  const req: HookRequest = {
    hook,
    holder,
    pod,
    id: `${replacementHookPrefix(ctx.spec.setName, hook)}${pod.ordinal}.${uidPrefix(pod.uid)}`,
  };
  if (pod.version !== undefined) {
    req.fromVersion = pod.version;
    req.toVersion = pod.version;
  }
  return req;
}

/** The pod's claims (its version's templates) that exist and are not being deleted. */
function liveClaims(ctx: PlanContext, pod: PodView): ClaimView[] {
  const version = ctx.index.byNumber(pod.version) ?? ctx.versions.current;
  return version.spec.volumeClaimTemplates
    .map((t) => ctx.claimsByName.get(claimName(t.metadata.name, ctx.spec.setName, pod.ordinal)))
    .filter(
      (c): c is ClaimView => c !== undefined && c.deletionTimestamp === undefined && c.foreign !== true,
    );
}

/** Started: its hook has a record, or its claims are going. It keeps its slot. */
function inProgress(ctx: PlanContext, pod: PodView, mode: ReplaceClaimMode): boolean {
  const id = hookRequest(ctx, pod, mode).id ?? "";
  const record = ctx.hooks.records.get(id)?.record;
  if (record !== undefined && record.phase !== "Cancelled") return true;
  return mode === "recreate" && liveClaims(ctx, pod).length < claimCount(ctx, pod);
}

function claimCount(ctx: PlanContext, pod: PodView): number {
  return (ctx.index.byNumber(pod.version) ?? ctx.versions.current).spec.volumeClaimTemplates.length;
}

function gate(ctx: PlanContext, pod: PodView, mode: ReplaceClaimMode): "done" | "wait" {
  const req = hookRequest(ctx, pod, mode);
  if (mode === "keep" && !isRunningAndReady(pod)) return "done";
  if (mode === "recreate" && skipExecOnUnreadyPod(ctx, pod)) return "done";
  return gateHook(ctx, req);
}

function replace(ctx: PlanContext, pod: PodView, mode: ReplaceClaimMode): void {
  if (mode === "recreate") {
    const claims = liveClaims(ctx, pod);
    if (claims.length > 0) {
      for (const claim of claims) {
        ctx.steps.push({
          kind: "deleteClaim",
          ordinal: pod.ordinal,
          claimName: claim.name,
          uid: claim.uid,
          resourceVersion: claim.resourceVersion,
          reason: "replace",
        });
      }
      ctx.touched.add(pod.name);
      return;
    }
  }
  deletePod(ctx, pod, "replace");
  const why = pod.annotations[Annotations.replaceReason];
  event(
    ctx,
    "Normal",
    ReplacementEventReasons.replacing,
    pod.name,
    `pod ${pod.name}: replaced as asked (kubectl petset replace${why !== undefined && why !== "" ? `: ${why}` : ""}); ${mode === "keep" ? "its claims are kept" : "its claims are recreated"}`,
  );
}

/** Replace the pets asked for (see the header). Call after the rolling update. */
export function planReplacements(ctx: PlanContext, allPetsHealthy: boolean): void {
  const { spec } = ctx;
  const asked: { pod: PodView; mode: ReplaceClaimMode; started: boolean }[] = [];
  for (const o of spec.ordinals) {
    const pod = ctx.podsByOrdinal.get(o);
    const mode = pod === undefined ? undefined : replaceRequest(pod);
    if (pod === undefined || mode === undefined) continue;
    if (isTerminating(pod) || isFinished(pod) || ctx.touched.has(pod.name)) continue;
    asked.push({ pod, mode, started: inProgress(ctx, pod, mode) });
  }
  if (asked.length === 0) return;
  const movedNow = ctx.steps.filter(
    (s) => (s.kind === "deletePod" || s.kind === "patchPodImages") && spec.ordinals.includes(s.ordinal),
  ).length;
  let budget = spec.maxUnavailable - unavailablePets(ctx) - movedNow;
  if (spec.orderedReady && !allPetsHealthy) budget = Math.min(budget, 0);
  asked.sort((a, b) => Number(b.started) - Number(a.started) || b.pod.ordinal - a.pod.ordinal);
  for (const { pod, mode, started } of asked) {
    if (isRunningAndReady(pod)) {
      if (budget <= 0) {
        // No slot now: a started hook keeps running (not cancelled); the pet goes later.
        const id = hookRequest(ctx, pod, mode).id;
        if (started && id !== undefined && ctx.hooks.records.has(id)) ctx.hooks.requested.add(id);
        continue;
      }
      budget--;
    }
    if (gate(ctx, pod, mode) === "done") replace(ctx, pod, mode);
  }
}
