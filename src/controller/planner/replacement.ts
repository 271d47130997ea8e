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
 *  - Hooks, in order, each a phase recorded in the API: `keep` runs preUpdate (the pet restarts
 *    on its storage); `recreate` runs preUpdate first (the pet is about to stop, as in an update:
 *    e.g. it hands over leadership), then, once that succeeded, preScaleDown (its data leaves it,
 *    as in a scale-down), then deletes the claims, then the pod. Ids are
 *    `<hook>.<set>.replace.<ordinal>.<pod uid prefix>`, records on the pod's version; a request
 *    changed from keep to recreate finds its preUpdate done. As for updates, preUpdate is not run
 *    on a pod that is not Ready (a Running one is cancelled), and an exec preScaleDown on it is
 *    skipped (scale-down-hooks.ts).
 *  - Budget: a Ready pet goes (each hook, claims, pod: each phase) only while the unavailable pets
 *    (scale-budget.ts) and the pods this pass already deletes or patches number fewer than
 *    rollingUpdate.maxUnavailable; OrderedReady also only while every pet is available. Pets
 *    already in their replacement (a hook started, claims deleting) go first; a started hook
 *    waiting for a slot keeps running (a finished one stays done). A pet that is not Ready goes
 *    at once (it serves nothing, SPEC rule 4). Not held by pause, steps or preRollout: a
 *    replacement is not a move between versions.
 *  - `recreate`, after its hooks: the pet's claims (its version's templates) are deleted, the pod
 *    stays until none is left undeleted; then the pod is deleted; pet creation (pet-creation.ts)
 *    waits for terminating claims to go, then creates fresh ones. While asked, a missing claim of the
 *    running pod is not recreated (`rebuildingClaims`).
 *  - The new pod is created by the normal creation rules (pet-creation.ts): at the pet's own
 *    version, unless the rollout in flight moves that pet now, where it is the target, as the
 *    update would have made it.
 */
import { Annotations, claimName, type HookRecord } from "../../api/index.js";
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

type ReplacementHook = "preUpdate" | "preScaleDown";

/** The hooks of a replacement, in the order they run (see the header). */
function hooksOf(mode: ReplaceClaimMode): readonly ReplacementHook[] {
  return mode === "keep" ? ["preUpdate"] : ["preUpdate", "preScaleDown"];
}

function hookRequest(ctx: PlanContext, pod: PodView, hook: ReplacementHook): HookRequest {
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

/** The hook records of this replacement that started (not Cancelled). */
function startedRecords(ctx: PlanContext, pod: PodView, mode: ReplaceClaimMode): HookRecord[] {
  return hooksOf(mode)
    .map((hook) => ctx.hooks.records.get(hookRequest(ctx, pod, hook).id ?? "")?.record)
    .filter((r): r is HookRecord => r !== undefined && r.phase !== "Cancelled");
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

/** Started: a hook of it has a record, or its claims are going. It keeps its slot. */
function inProgress(ctx: PlanContext, pod: PodView, mode: ReplaceClaimMode): boolean {
  if (startedRecords(ctx, pod, mode).length > 0) return true;
  return mode === "recreate" && liveClaims(ctx, pod).length < claimCount(ctx, pod);
}

function claimCount(ctx: PlanContext, pod: PodView): number {
  return (ctx.index.byNumber(pod.version) ?? ctx.versions.current).spec.volumeClaimTemplates.length;
}

/** Each hook in order: the next one starts only once the one before is done (or skipped). */
function gate(ctx: PlanContext, pod: PodView, mode: ReplaceClaimMode): "done" | "wait" {
  for (const hook of hooksOf(mode)) {
    if (hook === "preUpdate" && !isRunningAndReady(pod)) continue;
    if (hook === "preScaleDown" && skipExecOnUnreadyPod(ctx, pod)) continue;
    if (gateHook(ctx, hookRequest(ctx, pod, hook)) === "wait") return "wait";
  }
  return "done";
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
        if (started) {
          for (const r of startedRecords(ctx, pod, mode))
            if (r.phase === "Running") ctx.hooks.requested.add(r.id);
        }
        continue;
      }
      budget--;
    }
    if (gate(ctx, pod, mode) === "done") replace(ctx, pod, mode);
  }
}
