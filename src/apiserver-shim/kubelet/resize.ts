/**
 * In-place pod resize as the kubelet plays it (Kubernetes 1.33, InPlacePodVerticalScaling).
 * Pure: the pod, its node's allocatable and what the node's other pods hold in, the status to
 * write out. The rules:
 *
 *  - Only Running pods bound to a managed node. Desired = the cpu/memory requests and limits of
 *    `spec.containers`; allocated = `status.containerStatuses[].resources` (written when a
 *    container starts, pod-status.ts). Nothing differs and no resize condition: nothing to do.
 *  - A difference, not yet admitted (no PodResizeInProgress):
 *    - a request larger than the node's allocatable: PodResizePending reason Infeasible;
 *    - the node's other pods (their allocated requests) leave too little: reason Deferred;
 *    - the annotation `kubelet.petset.dev/resize` = Infeasible or Deferred forces that reason
 *      (the convention the kwok stages share, test/cluster/kwok-stages/pod.yaml);
 *    - else PodResizeInProgress (the pending condition goes).
 *    A pending condition keeps its lastTransitionTime while its reason stays (the controller
 *    times Deferred from it); an unchanged status is not written again.
 *  - Admitted (PodResizeInProgress): the desired resources become the containers' status
 *    resources; a container whose changed resource (cpu or memory) has resizePolicy
 *    RestartContainer restarts (restartCount + 1, a new containerID, lastState terminated
 *    reason Resized); the others keep running. PodResizeInProgress goes.
 *  - Nothing differs but a resize condition is left (the spec went back): the conditions go.
 */
import { canonicalQuantity } from "../../versions/quantity.js";
import { type Condition, type ContainerStatus, hex, type Pod, timestamp } from "./objects.js";

export const ResizeAnnotation = "kubelet.petset.dev/resize";
const RESIZABLE = ["cpu", "memory"] as const;
type Obj = Record<string, unknown>;
type Resources = { requests?: Record<string, string>; limits?: Record<string, string> };

function obj(v: unknown): Obj {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {};
}

/** The cpu/memory requests and limits of a container spec, as written. */
export function specResources(container: unknown): Resources {
  const res = obj(obj(container).resources);
  const pick = (v: unknown) => {
    const m = obj(v);
    const out: Record<string, string> = {};
    for (const r of RESIZABLE)
      if (typeof m[r] === "string" || typeof m[r] === "number") out[r] = String(m[r]);
    return out;
  };
  const requests = pick(res.requests);
  const limits = pick(res.limits);
  return {
    ...(Object.keys(requests).length > 0 ? { requests } : {}),
    ...(Object.keys(limits).length > 0 ? { limits } : {}),
  };
}

/** A quantity as a number (cpu in cores, memory in bytes); 0 when absent or not one. */
export function amount(q: unknown): number {
  if (typeof q !== "string" && typeof q !== "number") return 0;
  return Number(canonicalQuantity(q) ?? 0);
}

function same(a: Resources | undefined, b: Resources | undefined): boolean {
  for (const kind of ["requests", "limits"] as const) {
    for (const r of RESIZABLE) if (amount(a?.[kind]?.[r]) !== amount(b?.[kind]?.[r])) return false;
  }
  return true;
}

/** Requests a pod holds on its node: what its containers were allocated (else their spec). */
export function heldRequests(pod: Pod): Record<(typeof RESIZABLE)[number], number> {
  const statuses = pod.status?.containerStatuses ?? [];
  const held = { cpu: 0, memory: 0 };
  for (const c of pod.spec.containers) {
    const allocated = obj(statuses.find((s) => s.name === c.name)?.resources) as Resources;
    const res = Object.keys(allocated).length > 0 ? allocated : specResources(c);
    for (const r of RESIZABLE) held[r] += amount(res.requests?.[r] ?? res.limits?.[r]);
  }
  return held;
}

export interface ResizeNode {
  /** status.allocatable of the node. */
  allocatable: Readonly<Record<string, string>>;
  /** Requests held by the node's other pods (heldRequests summed). */
  used: Readonly<Record<(typeof RESIZABLE)[number], number>>;
}

const display = (r: string, n: number) => (r === "cpu" ? `${Math.round(n * 1000)}m` : String(n));

function pendingReason(pod: Pod, node: ResizeNode): { reason: string; message: string } | undefined {
  const forced = pod.metadata.annotations?.[ResizeAnnotation];
  if (forced === "Infeasible" || forced === "Deferred")
    return { reason: forced, message: `${ResizeAnnotation}=${forced} on the pod (simulated)` };
  const wanted = { cpu: 0, memory: 0 };
  for (const c of pod.spec.containers) {
    const res = specResources(c);
    for (const r of RESIZABLE) wanted[r] += amount(res.requests?.[r] ?? res.limits?.[r]);
  }
  for (const r of RESIZABLE) {
    const capacity = amount(node.allocatable[r]);
    if (capacity > 0 && wanted[r] > capacity)
      return {
        reason: "Infeasible",
        message: `Node didn't have enough capacity: ${r}, requested: ${display(r, wanted[r])}, capacity: ${display(r, capacity)}`,
      };
  }
  for (const r of RESIZABLE) {
    const capacity = amount(node.allocatable[r]);
    if (capacity > 0 && wanted[r] + node.used[r] > capacity)
      return {
        reason: "Deferred",
        message: `Node didn't have enough resource: ${r}, requested: ${display(r, wanted[r])}, used: ${display(r, node.used[r])}, capacity: ${display(r, capacity)}`,
      };
  }
  return undefined;
}

function restarts(container: Obj, from: Resources | undefined, to: Resources): boolean {
  const policies = Array.isArray(container.resizePolicy) ? (container.resizePolicy as Obj[]) : [];
  return RESIZABLE.some((r) => {
    const changed =
      amount(from?.requests?.[r]) !== amount(to.requests?.[r]) ||
      amount(from?.limits?.[r]) !== amount(to.limits?.[r]);
    return changed && policies.some((p) => p.resourceName === r && p.restartPolicy === "RestartContainer");
  });
}

const RESIZE_CONDITIONS = new Set(["PodResizePending", "PodResizeInProgress"]);

/** The status to write for the pod's resize (see the header), or undefined when there is none. */
export function planResize(pod: Pod, node: ResizeNode, now: number): Obj | undefined {
  if (pod.status?.phase !== "Running" || !pod.spec.nodeName || pod.metadata.deletionTimestamp)
    return undefined;
  const statuses = pod.status.containerStatuses ?? [];
  const conditions = pod.status.conditions ?? [];
  const others = conditions.filter((c) => !RESIZE_CONDITIONS.has(c.type));
  const pending = conditions.find((c) => c.type === "PodResizePending");
  const inProgress = conditions.some((c) => c.type === "PodResizeInProgress");
  const differs = pod.spec.containers.some((c) => {
    const s = statuses.find((x) => x.name === c.name);
    return (
      s !== undefined && Boolean(s.state?.running) && !same(obj(s.resources) as Resources, specResources(c))
    );
  });
  if (!differs) return pending !== undefined || inProgress ? { conditions: others } : undefined;
  if (!inProgress) {
    const why = pendingReason(pod, node);
    if (why === undefined) {
      const admitted: Condition = {
        type: "PodResizeInProgress",
        status: "True",
        lastProbeTime: null,
        lastTransitionTime: timestamp(now),
      };
      return { conditions: [...others, admitted] };
    }
    if (pending?.reason === why.reason && pending.message === why.message) return undefined;
    const since = pending?.reason === why.reason ? pending.lastTransitionTime : timestamp(now);
    const condition: Condition = {
      type: "PodResizePending",
      status: "True",
      lastProbeTime: null,
      lastTransitionTime: since,
      ...why,
    };
    return { conditions: [...others, condition] };
  }
  const containerStatuses = statuses.map((s): ContainerStatus => {
    const c = pod.spec.containers.find((x) => x.name === s.name);
    if (c === undefined || !s.state?.running) return s;
    const to = specResources(c);
    const from = obj(s.resources) as Resources;
    if (!restarts(c, from, to)) return { ...s, resources: to };
    const restartCount = s.restartCount + 1;
    const podID = pod.metadata.uid ?? `${pod.metadata.namespace}/${pod.metadata.name}`;
    return {
      ...s,
      resources: to,
      restartCount,
      containerID: `containerd://${hex(`${podID}/${s.name}/${restartCount}`)}`,
      state: { running: { startedAt: timestamp(now) } },
      lastState: {
        terminated: {
          exitCode: 0,
          reason: "Resized",
          startedAt: s.state.running?.startedAt ?? timestamp(now),
          finishedAt: timestamp(now),
        },
      },
    };
  });
  return { conditions: others, containerStatuses };
}
