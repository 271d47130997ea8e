import type { Condition, LabelSelector } from "../../api/index.js";
import type { PlanContext } from "./plan-context.js";
import { isAvailable, isRunningAndReady, isTerminating } from "./pod-health.js";

export interface ReplicaCounts {
  replicas: number;
  readyReplicas: number;
  availableReplicas: number;
  currentReplicas: number;
  updatedReplicas: number;
}

/**
 * As apps/v1: replicas counts every pod (terminating too), ready/available count Running+Ready
 * pods, current/updated count live pods running the current/newest version's content.
 */
export function countReplicas(ctx: PlanContext): ReplicaCounts {
  const { now } = ctx.input;
  const counts: ReplicaCounts = {
    replicas: 0,
    readyReplicas: 0,
    availableReplicas: 0,
    currentReplicas: 0,
    updatedReplicas: 0,
  };
  for (const pod of ctx.podsByOrdinal.values()) {
    counts.replicas++;
    if (isRunningAndReady(pod)) counts.readyReplicas++;
    if (isAvailable(pod, ctx.spec.minReadyMs, now)) counts.availableReplicas++;
    if (isTerminating(pod)) continue;
    const content = ctx.index.contentOf(pod);
    if (content === ctx.versions.current.spec.hash) counts.currentReplicas++;
    if (content === ctx.versions.newest.spec.hash) counts.updatedReplicas++;
  }
  return counts;
}

/** Every pet exists and is available, nothing is condemned, and the pets >= partition run `hash`. */
export function petsSettledAt(ctx: PlanContext, hash: string, fromOrdinal: number): boolean {
  const inRange = new Set(ctx.spec.ordinals);
  for (const pod of ctx.podsByOrdinal.values()) if (!inRange.has(pod.ordinal)) return false;
  return ctx.spec.ordinals.every((o) => {
    const pod = ctx.podsByOrdinal.get(o);
    if (pod === undefined || !isAvailable(pod, ctx.spec.minReadyMs, ctx.input.now)) return false;
    return o < fromOrdinal || ctx.index.contentOf(pod) === hash;
  });
}

/**
 * The newest version has rolled out: with a partition, the pets below it stay at the current
 * version; with OnDelete, nothing is left for the controller to do (pods move when a human
 * deletes them, as a StatefulSet's); with External, every pet runs it (the hand-off moves them
 * on request, and "complete" before they moved would be false: issue 24 item 10).
 */
export function rolloutComplete(ctx: PlanContext): boolean {
  if (ctx.versions.queued) return false;
  const { spec } = ctx;
  const from = spec.rollingUpdate
    ? spec.partitionOrdinal
    : spec.external
      ? Number.NEGATIVE_INFINITY
      : Number.POSITIVE_INFINITY;
  return petsSettledAt(ctx, ctx.versions.newest.spec.hash, from);
}

/** The label selector as a string, for the scale subresource (`status.selector`). */
export function selectorString(selector: LabelSelector): string {
  const parts = Object.entries(selector.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of selector.matchExpressions ?? []) {
    const values = (e.values ?? []).join(",");
    if (e.operator === "In") parts.push(`${e.key} in (${values})`);
    else if (e.operator === "NotIn") parts.push(`${e.key} notin (${values})`);
    else if (e.operator === "Exists") parts.push(e.key);
    else parts.push(`!${e.key}`);
  }
  return parts.join(",");
}

export interface ConditionUpdate {
  type: string;
  status: Condition["status"];
  reason: string;
  message: string;
}

/** Replace a condition, keeping lastTransitionTime unless the status changes. */
export function setCondition(
  conditions: readonly Condition[],
  update: ConditionUpdate,
  now: number,
  observedGeneration: number | undefined,
): Condition[] {
  const previous = conditions.find((c) => c.type === update.type);
  const lastTransitionTime =
    previous !== undefined && previous.status === update.status && previous.lastTransitionTime !== undefined
      ? previous.lastTransitionTime
      : new Date(now).toISOString();
  const next: Condition = { ...update, lastTransitionTime };
  if (observedGeneration !== undefined) next.observedGeneration = observedGeneration;
  return [...conditions.filter((c) => c.type !== update.type), next];
}

export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}
