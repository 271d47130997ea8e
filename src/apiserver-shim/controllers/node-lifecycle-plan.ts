/**
 * What the simulated node lifecycle controller does with one Node, as a pure function of the
 * Node, the time its kubelet was last heard from and the time (kube 1.33
 * pkg/controller/nodelifecycle semantics):
 * - a node not heard from (Ready heartbeat or node Lease renewal) for longer than the grace
 *   period gets Ready, MemoryPressure, DiskPressure and PIDPressure `Unknown`, reason
 *   `NodeStatusUnknown` ("Kubelet stopped posting node status."); a condition the kubelet
 *   never posted is added as `Unknown`, reason `NodeStatusNeverUpdated`;
 * - taints follow the Ready condition: Unknown → `node.kubernetes.io/unreachable`, False →
 *   `node.kubernetes.io/not-ready`, each as NoSchedule (no timeAdded, as TaintNodesByCondition)
 *   and NoExecute (timeAdded); True → neither. Other taints are kept;
 * - the pods of a node whose Ready is not True get their Ready condition False (MarkPodsNotReady).
 * Left alone: a node that never posted a Ready condition (no kubelet plays it here). Not
 * simulated: zone disruption rate limits, eviction (the taint-eviction controller).
 */
import { isPlainObject, type KubeObject } from "../types.js";

type Obj = Record<string, unknown>;

export const UnreachableTaint = "node.kubernetes.io/unreachable";
export const NotReadyTaint = "node.kubernetes.io/not-ready";
/** kube-controller-manager's --node-monitor-grace-period default (1.33). */
export const DefaultNodeMonitorGracePeriodMs = 50_000;

const HealthConditions = ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"];

export interface NodeHealthPlan {
  /** The node's new status.conditions, when they change. */
  conditions?: Obj[];
  /** The node's new spec.taints, when they change. */
  taints?: Obj[];
  /** The Ready status after this plan ("True", "False", "Unknown"), or undefined when never posted. */
  ready: string | undefined;
  /** When to look again if nothing changes (the grace period runs out), epoch ms. */
  checkAt?: number;
}

const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

export function nodeConditions(node: KubeObject): Obj[] {
  const status = isPlainObject(node.status) ? node.status : {};
  return (Array.isArray(status.conditions) ? status.conditions : []).filter(isPlainObject);
}

/**
 * `probeAt` is when the controller last saw the kubelet's heartbeat or Lease move (kube keeps
 * this observation time rather than trusting the kubelet's clock); `now` and `graceMs` as named.
 */
export function planNodeHealth(
  node: KubeObject,
  probeAt: number,
  now: number,
  graceMs: number,
): NodeHealthPlan {
  const conditions = nodeConditions(node);
  const ready = conditions.find((c) => c.type === "Ready");
  if (!ready) return { ready: undefined };
  let next: Obj[] | undefined;
  let checkAt: number | undefined;
  if (now > probeAt + graceMs) {
    next = conditions.map((c) =>
      HealthConditions.includes(String(c.type)) && c.status !== "Unknown"
        ? {
            ...c,
            status: "Unknown",
            reason: "NodeStatusUnknown",
            message: "Kubelet stopped posting node status.",
            lastTransitionTime: iso(now),
          }
        : c,
    );
    for (const type of HealthConditions) {
      if (next.some((c) => c.type === type)) continue;
      next.push({
        type,
        status: "Unknown",
        reason: "NodeStatusNeverUpdated",
        message: "Kubelet never posted node status.",
        lastHeartbeatTime: node.metadata.creationTimestamp,
        lastTransitionTime: iso(now),
      });
    }
    if (next.every((c, i) => c === conditions[i]) && next.length === conditions.length) next = undefined;
  } else {
    checkAt = probeAt + graceMs + 1;
  }
  const readyNow = String((next ?? conditions).find((c) => c.type === "Ready")?.status ?? "Unknown");
  const taints = taintsFor(node, readyNow, now);
  return {
    ready: readyNow,
    ...(next ? { conditions: next } : {}),
    ...(taints ? { taints } : {}),
    ...(checkAt !== undefined ? { checkAt } : {}),
  };
}

/** The node's taints for a Ready status, or undefined when they already match. */
export function taintsFor(node: KubeObject, ready: string, now: number): Obj[] | undefined {
  const spec = isPlainObject(node.spec) ? node.spec : {};
  const current = (Array.isArray(spec.taints) ? spec.taints : []).filter(isPlainObject);
  const want = ready === "Unknown" ? UnreachableTaint : ready === "False" ? NotReadyTaint : undefined;
  const ours = (t: Obj) => t.key === UnreachableTaint || t.key === NotReadyTaint;
  const has = (effect: string) => current.some((t) => t.key === want && t.effect === effect);
  const stale = current.some((t) => ours(t) && t.key !== want);
  if (!stale && (want === undefined || (has("NoSchedule") && has("NoExecute")))) return undefined;
  const kept = current.filter((t) => !ours(t) || t.key === want);
  if (want !== undefined) {
    if (!has("NoSchedule")) kept.push({ key: want, effect: "NoSchedule" });
    if (!has("NoExecute")) kept.push({ key: want, effect: "NoExecute", timeAdded: iso(now) });
  }
  return kept;
}

/**
 * The pod's new status.conditions with Ready False (lastTransitionTime now), or undefined when
 * it has no Ready condition or it is already False.
 */
export function podNotReady(pod: KubeObject, now: number): Obj[] | undefined {
  const status = isPlainObject(pod.status) ? pod.status : {};
  const conditions = (Array.isArray(status.conditions) ? status.conditions : []).filter(isPlainObject);
  const ready = conditions.find((c) => c.type === "Ready");
  if (!ready || ready.status === "False") return undefined;
  return conditions.map((c) => (c === ready ? { ...c, status: "False", lastTransitionTime: iso(now) } : c));
}
