/**
 * Hand-off (`updateStrategy.type: External`; docs/rollouts.md "Hand-off"). Versions are
 * recorded, pets are told the target and hooks run, but a pod moves to the target only when an
 * outside actor asks, with the annotation `petset.dev/update-requested: "<N>"` on the pod
 * (N = the target version). Pure. The rules:
 *
 *  - A request for the target: the pod is replaced (or patched in place) as in a rolling update:
 *    a pod that is not Ready at once, a Ready one while fewer than maxUnavailable pets are
 *    unavailable (rollingUpdate.maxUnavailable, default 1), after its switchover and preUpdate
 *    hooks. The order is the requester's. Under OrderedReady a Ready pod moves only while every
 *    pet exists and is available and no scale-down runs, as in a rolling update (SPEC rule 3).
 *  - With two old contents live (a version given up by a rollback or a newer version, besides
 *    the kept one: plan-context.ts chooseKeptOld), a pod of the kept content cannot move yet: it
 *    would come back at the kept content (a third content is never live), restarted for nothing.
 *    Its request waits (said in Progressing; the deadline holds) until the given-up version's
 *    pods have moved; those move when asked, refilled at the kept content while others remain.
 *  - A request for any other version is refused (a Warning Event and the Progressing message
 *    say why): moving a pet anywhere but the target could make a third version live (SPEC
 *    rule 2) or run a version petset is not rolling out.
 *  - Missing pets are created at the target, and currentVersion is promoted once every pet runs
 *    it, as under OnDelete (a StatefulSet under OnDelete never promotes it: kubernetes#73492).
 *  - Complete (RolloutComplete, completedAt, lastCompleteVersion) only once every pet runs the
 *    target, available, and postRollout is done (plan-status.ts rolloutComplete); until then
 *    Progressing says it waits for requests. The progress deadline holds while no pet is asked
 *    to move (progress-deadline.ts): the pace is the requester's, not a stall of the version.
 */
import { Annotations } from "../../api/index.js";
import { gatePreUpdate } from "./hooks.js";
import { event, type PlanContext } from "./plan-context.js";
import { isAvailable, isFinished, isRunningAndReady, isTerminating } from "./pod-health.js";
import { replacePod } from "./pod-updates.js";
import { gateLeaderSwitchover } from "./roles.js";

export function planExternalUpdates(
  ctx: PlanContext,
  allPetsHealthy: boolean,
  scalingDown: boolean,
  postUpdatePending: ReadonlySet<number>,
): void {
  const { spec, input } = ctx;
  const target = ctx.versions.target;
  const kept = ctx.keptOld?.spec.hash;
  const asked: { ordinal: number; ready: boolean }[] = [];
  for (const pod of ctx.podsByOrdinal.values()) {
    const raw = pod.annotations[Annotations.updateRequested];
    if (raw === undefined || isTerminating(pod) || isFinished(pod) || ctx.touched.has(pod.name)) continue;
    if (ctx.index.contentOf(pod) === target.spec.hash) continue;
    if (raw !== String(target.spec.version)) {
      const why = `${pod.name} asks for version ${raw} (${Annotations.updateRequested}), but the target is version ${target.spec.version}: refused (at most two versions live; pets move to the target only)`;
      ctx.externalRefusals.push(why);
      event(ctx, "Warning", "UpdateRequestRefused", pod.name, why);
      continue;
    }
    if (ctx.index.contentOf(pod) === kept) {
      ctx.externalRefusals.push(heldMessage(ctx, pod.name, raw));
      continue;
    }
    asked.push({ ordinal: pod.ordinal, ready: isRunningAndReady(pod) });
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
  for (const { ordinal, ready } of asked.sort((a, b) => Number(a.ready) - Number(b.ready))) {
    const pod = ctx.podsByOrdinal.get(ordinal);
    if (pod === undefined) continue;
    if (!ready) {
      replacePod(ctx, pod, "replace-broken");
      continue;
    }
    if (budget <= 0) break;
    budget--;
    if (gateLeaderSwitchover(ctx, pod, target) !== "done") continue;
    if (gatePreUpdate(ctx, pod) === "done") replacePod(ctx, pod, "update");
  }
}

/** Why a request of the kept old content waits: the given-up version's pods move first. */
function heldMessage(ctx: PlanContext, podName: string, asked: string): string {
  const target = ctx.versions.target.spec.hash;
  const kept = ctx.keptOld?.spec.hash;
  const givenUp = [...ctx.podsByOrdinal.values()]
    .filter((p) => !isTerminating(p))
    .filter((p) => {
      const content = ctx.index.contentOf(p);
      return content !== target && content !== kept;
    })
    .map((p) => {
      const version = ctx.index.byNumber(p.version) ?? ctx.index.newestWithHash(ctx.index.contentOf(p));
      return `${p.name} runs version ${version?.spec.version ?? "?"}`;
    });
  const who = givenUp.length > 0 ? givenUp.join(", ") : "the given-up version's pods are terminating";
  const verb = givenUp.length === 1 ? "it moves" : "they move";
  return `${podName} asks for version ${asked}, but ${who}, given up: ${verb} first (at most two versions live); the request waits`;
}
