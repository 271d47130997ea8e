/**
 * Hand-off (`updateStrategy.type: External`; docs/rollouts.md "Hand-off"). Versions are
 * recorded, pets are told the target and hooks run, but a pod moves to the target only when an
 * outside actor asks, with the annotation `petset.dev/update-requested: "<N>"` on the pod
 * (N = the target version). Pure. The rules:
 *
 *  - A request for the target: the pod is replaced (or patched in place) as in a rolling update:
 *    a pod that is not Ready at once, a Ready one while fewer than maxUnavailable pets are
 *    unavailable (rollingUpdate.maxUnavailable, default 1), after its switchover and preUpdate
 *    hooks. The order is the requester's.
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

export function planExternalUpdates(ctx: PlanContext, postUpdatePending: ReadonlySet<number>): void {
  const { spec, input } = ctx;
  const target = ctx.versions.target;
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
