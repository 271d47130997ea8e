import { Annotations } from "../../api/index.js";
import { followClaims, targetClaimsRefused } from "./claim-updates.js";
import { gatePreUpdate, inPreUpdate } from "./hooks.js";
import { inPlaceChanges, refuseRecreate } from "./in-place-resize.js";
import {
  contentAllowed,
  deletePod,
  event,
  inUpdateRange,
  moveContent,
  type PlanContext,
} from "./plan-context.js";
import { PlanEventReasons } from "./plan-events.js";
import { isAvailable, isFinished, isRunningAndReady, isTerminating } from "./pod-health.js";
import { versionMarks } from "./pod-template.js";
import { gateLeaderSwitchover, inSwitchover, orderByRole } from "./roles.js";
import type { PodView } from "./views.js";

function targetAnnotation(ctx: PlanContext): Record<string, string> {
  return { [Annotations.targetVersion]: String(ctx.versions.target.spec.version) };
}

function movable(ctx: PlanContext, pod: PodView): boolean {
  return !isTerminating(pod) && !isFinished(pod) && !ctx.touched.has(pod.name);
}

/** Pods that already run the target's content get the target's labels: no restart (SPEC rule 1). */
export function planRelabels(ctx: PlanContext): void {
  const target = ctx.versions.target;
  const marks = versionMarks(target);
  for (const pod of ctx.podsByOrdinal.values()) {
    if (!movable(ctx, pod) || pod.version === target.spec.version) continue;
    if (ctx.index.contentOf(pod) !== target.spec.hash) continue;
    ctx.steps.push({
      kind: "relabelPod",
      podName: pod.name,
      ordinal: pod.ordinal,
      uid: pod.uid,
      resourceVersion: pod.resourceVersion,
      labels: marks.labels,
      annotations: { ...marks.annotations, ...targetAnnotation(ctx) },
      ...(pod.version !== undefined ? { fromVersion: pod.version } : {}),
      toVersion: target.spec.version,
    });
    ctx.touched.add(pod.name);
  }
}

/** Move one outdated pod to the target: patch images in place when allowed, else delete it. */
export function replacePod(ctx: PlanContext, pod: PodView, reason: "update" | "replace-broken"): void {
  // Claims follow versions (claim-updates.ts): resized, relabelled or refused first.
  if (followClaims(ctx, pod)) return;
  const target = ctx.versions.target;
  const content = ctx.index.contentOf(pod);
  const podVersion = ctx.index.byNumber(pod.version) ?? ctx.index.newestWithHash(content);
  // In place (in-place-resize.ts): images and/or cpu/memory resources; InPlaceOnly refuses the rest.
  const inPlace =
    ctx.spec.inPlace && podVersion !== undefined
      ? inPlaceChanges(podVersion, target)
      : { inPlace: false as const, why: "the pod's version is not in history" };
  const changes = inPlace.inPlace ? inPlace : undefined;
  const lastOfItsContent = ctx.liveContents.get(content) === 1;
  if (!inPlace.inPlace && ctx.spec.inPlaceOnly && !isFinished(pod)) {
    refuseRecreate(ctx, pod, inPlace.why);
    return;
  }
  if (changes !== undefined && (lastOfItsContent || contentAllowed(ctx, target.spec.hash))) {
    const marks = versionMarks(target);
    ctx.steps.push({
      kind: "patchPodImages",
      podName: pod.name,
      ordinal: pod.ordinal,
      uid: pod.uid,
      resourceVersion: pod.resourceVersion,
      images: changes.images,
      ...(changes.resources.length > 0 ? { resources: changes.resources } : {}),
      labels: marks.labels,
      annotations: {
        ...marks.annotations,
        ...targetAnnotation(ctx),
        [Annotations.startedVersion]: String(target.spec.version),
      },
      ...(pod.version !== undefined ? { fromVersion: pod.version } : {}),
      toVersion: target.spec.version,
    });
    ctx.touched.add(pod.name);
    moveContent(ctx, content, target.spec.hash);
    ctx.moved = true;
  } else {
    deletePod(ctx, pod, reason);
  }
  if (reason === "replace-broken") {
    event(
      ctx,
      "Warning",
      PlanEventReasons.replacingBrokenPod,
      pod.name,
      `pod ${pod.name} (version ${pod.version ?? "?"}) is not Ready; replacing it with version ${target.spec.version}`,
    );
  }
}

/**
 * RollingUpdate: ordinals >= partition (and among the pets a step allows), highest first. Outdated pods that are not Ready are
 * replaced at once (they serve nothing; SPEC rule 4). Ready ones are replaced while fewer than
 * maxUnavailable pets are unavailable (missing, terminating or not available count, and pets
 * whose postUpdate hook is not done), and for OrderedReady only while every pet is available
 * and no scale-down is in progress. A Ready pet first runs its preUpdate hook (hooks.ts): it
 * keeps serving but holds a slot; pets already in the hook go first. With spec.roles the
 * leader's pet goes last, after its switchover hook (roles.ts).
 */
export function planRollingUpdate(
  ctx: PlanContext,
  allPetsHealthy: boolean,
  scalingDown: boolean,
  postUpdatePending: ReadonlySet<number> = new Set(),
): void {
  const { spec, input } = ctx;
  const targetHash = ctx.versions.target.spec.hash;
  const kept = ctx.keptOld?.spec.hash;
  const candidates = spec.ordinals
    .filter((o) => inUpdateRange(ctx, o))
    .sort((a, b) => b - a)
    .map((o) => ctx.podsByOrdinal.get(o))
    .filter((p): p is PodView => p !== undefined && movable(ctx, p))
    .filter((p) => {
      const content = ctx.index.contentOf(p);
      return content !== targetHash && content !== kept;
    })
    .filter(() => !targetClaimsRefused(ctx));

  for (const pod of candidates) {
    if (!isRunningAndReady(pod)) replacePod(ctx, pod, "replace-broken");
  }

  let unavailable = 0;
  for (const o of spec.ordinals) {
    const pod = ctx.podsByOrdinal.get(o);
    if (pod === undefined || isTerminating(pod) || !isAvailable(pod, spec.minReadyMs, input.now))
      unavailable++;
    else if (postUpdatePending.has(o)) unavailable++;
  }
  let budget = spec.maxUnavailable - unavailable;
  if (spec.orderedReady && (!allPetsHealthy || scalingDown)) budget = 0;
  const inHook = candidates.filter((p) => inPreUpdate(ctx, p) || inSwitchover(ctx, p));
  // Roles (roles.ts): followers first, the leader's pet last; pets not allowed yet are left out.
  const byRole = orderByRole(
    ctx,
    candidates.filter((p) => !inHook.includes(p) && !ctx.touched.has(p.name)),
    budget - inHook.length > 0,
  );
  const ordered = [...inHook, ...byRole];
  for (const pod of ordered) {
    if (ctx.touched.has(pod.name)) continue;
    if (budget <= 0) {
      // No slot now: a pet already in its hook keeps it running (not cancelled), moves later.
      if (!inHook.includes(pod)) break;
      gatePreUpdate(ctx, pod);
      continue;
    }
    budget--;
    if (gateLeaderSwitchover(ctx, pod, ctx.versions.target) !== "done") continue;
    if (gatePreUpdate(ctx, pod) === "done") replacePod(ctx, pod, "update");
  }
}

/** Tell every live pod the target version (SPEC rule 5); pods with another step get it there. */
export function planAnnouncements(ctx: PlanContext): void {
  const target = ctx.versions.target.spec.version;
  const starting = ctx.versions.announced !== target;
  for (const pod of ctx.podsByOrdinal.values()) {
    if (!movable(ctx, pod) || pod.targetVersion === target) continue;
    ctx.steps.push({
      kind: "annotateTargetVersion",
      podName: pod.name,
      ordinal: pod.ordinal,
      uid: pod.uid,
      resourceVersion: pod.resourceVersion,
      targetVersion: target,
    });
    ctx.touched.add(pod.name);
    if (starting) {
      event(
        ctx,
        "Normal",
        PlanEventReasons.targetVersion,
        pod.name,
        `pod ${pod.name}: target version ${target}`,
      );
    }
  }
}
