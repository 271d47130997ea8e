/**
 * The hooks of a scale-down (docs/hooks.md "Hook points", docs/rollouts.md "Roles"): a condemned
 * pod's preScaleDown and, when it leads, its switchover. Pure. The rules:
 *
 *  - Each scale-down of a pet is an occasion with its own hook ids: `preScaleDown.<set>.<ordinal>.
 *    <pod uid prefix>` and `switchover.<set>.down.<ordinal>.<pod uid prefix>` for the first, the
 *    same with `.2`, `.3`, ... for later ones of the same pod. A record never answers for another
 *    occasion: an update's switchover (`switchover.<set>.v<to>...`) is not a scale-down's, and a
 *    scale-down that failed (or succeeded) before the pet was scaled back up is not the next one's.
 *  - An occasion ends when the pet is back in range: its running hooks are cancelled (hooks.ts:
 *    not asked for any more) and its finished records are retired (phase Cancelled, "back in
 *    range"), so the next scale-down starts a new id. The current occasion is the highest-numbered
 *    record of the pod that is not Cancelled; when there is none, a new one.
 *  - While a pod is condemned its running scale-down hooks stay asked for even in a pass that
 *    does not gate them (OrderedReady waits for another pet, or a lower condemned pod): a blip of
 *    another pet's health does not cancel a decommission.
 *  - An `exec` preScaleDown needs a running container: on a condemned pod that is not Running and
 *    Ready (crash-looping, pending, never Ready) it is skipped with a Warning Event
 *    (`HookSkipped`), as preUpdate skips pods that are not Ready. Job, webhook and external
 *    handlers do not run in the pod and are never skipped.
 *  - A condemned leader's switchover in flight is seen through even when the label already moved
 *    (the script relabels before it answers).
 */
import { type HookName, type HookRecord, hookSpecOf } from "../../api/index.js";
import { uidPrefix, writeRecord } from "./hook-records.js";
import { event, type PlanContext } from "./plan-context.js";
import { isRunningAndReady, isTerminating } from "./pod-health.js";
import type { PodView } from "./views.js";

export type ScaleDownHook = Extract<HookName, "preScaleDown" | "switchover">;

export const HookSkippedReason = "HookSkipped";

function baseId(ctx: PlanContext, hook: ScaleDownHook, pod: Pick<PodView, "ordinal" | "uid">): string {
  const kind = hook === "switchover" ? "switchover" : "preScaleDown";
  const down = hook === "switchover" ? ".down" : "";
  return `${kind}.${ctx.spec.setName}${down}.${pod.ordinal}.${uidPrefix(pod.uid)}`;
}

/** The records of every occasion of `hook` for `pod`, by occasion number (1, 2, ...). */
function occasions(ctx: PlanContext, hook: ScaleDownHook, pod: PodView): Map<number, HookRecord> {
  const base = baseId(ctx, hook, pod);
  const found = new Map<number, HookRecord>();
  for (const [id, { record }] of ctx.hooks.records) {
    if (id === base) found.set(1, record);
    else if (id.startsWith(`${base}.`)) {
      const n = Number(id.slice(base.length + 1));
      if (Number.isInteger(n) && n > 1) found.set(n, record);
    }
  }
  return found;
}

const withOccasion = (base: string, n: number) => (n === 1 ? base : `${base}.${n}`);

/** The id of this scale-down occasion's `hook` for `pod` (see the header). */
export function scaleDownHookId(ctx: PlanContext, hook: ScaleDownHook, pod: PodView): string {
  const found = occasions(ctx, hook, pod);
  const base = baseId(ctx, hook, pod);
  if (found.size === 0) return base;
  const last = Math.max(...found.keys());
  return found.get(last)?.phase === "Cancelled" ? withOccasion(base, last + 1) : withOccasion(base, last);
}

/** The record of this occasion's `hook` for `pod`, if it started. */
export function scaleDownRecord(ctx: PlanContext, hook: ScaleDownHook, pod: PodView): HookRecord | undefined {
  return ctx.hooks.records.get(scaleDownHookId(ctx, hook, pod))?.record;
}

/** Condemned pods not gated this pass keep their running scale-down hooks (see the header). */
export function keepRunningScaleDownHooks(ctx: PlanContext, condemned: readonly PodView[]): void {
  for (const pod of condemned) {
    if (isTerminating(pod)) continue;
    for (const hook of ["preScaleDown", "switchover"] as const) {
      const record = scaleDownRecord(ctx, hook, pod);
      if (record?.phase === "Running") ctx.hooks.requested.add(record.id);
    }
  }
}

/** Pets back in range: their finished scale-down records are retired (see the header). One pass. */
export function retireScaleDownRecords(ctx: PlanContext): void {
  const iso = new Date(ctx.input.now).toISOString();
  const inRange = new Set(ctx.spec.ordinals);
  const downSwitchover = `switchover.${ctx.spec.setName}.down.`;
  for (const [id, { record, holder }] of ctx.hooks.records) {
    if (record.phase !== "Succeeded" && record.phase !== "Failed") continue;
    if (record.hook !== "preScaleDown" && !id.startsWith(downSwitchover)) continue;
    // A targeted replacement's preScaleDown is of a pet in range by design (replacement.ts).
    if (id.startsWith(`preScaleDown.${ctx.spec.setName}.replace.`)) continue;
    if (record.ordinal === undefined || !inRange.has(record.ordinal)) continue;
    const pod = ctx.podsByOrdinal.get(record.ordinal);
    if (pod === undefined || pod.uid !== record.podUID) continue;
    writeRecord(ctx.hooks, holder, {
      ...record,
      phase: "Cancelled",
      finishedAt: record.finishedAt ?? iso,
      message: `the pet is back in range (scaled up) after: ${record.phase}${record.message !== undefined ? ` (${record.message})` : ""}; a later scale-down runs the hook again under a new id`,
    });
  }
}

/**
 * An exec preScaleDown on a pod that is not Running and Ready cannot run: skip it (Event).
 * True when skipped.
 */
export function skipExecOnUnreadyPod(ctx: PlanContext, pod: PodView): boolean {
  const spec = hookSpecOf(ctx.input.petSet.spec, "preScaleDown");
  if (spec?.exec === undefined || isRunningAndReady(pod)) return false;
  const why = pod.failing ?? (pod.phase !== "Running" ? pod.phase : "not Ready");
  event(
    ctx,
    "Warning",
    HookSkippedReason,
    pod.name,
    `preScaleDown on ${pod.name}: skipped, the pod is not Running and Ready (${why}) so the exec hook cannot run in it; the pod is removed without it`,
  );
  return true;
}
