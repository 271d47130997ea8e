/**
 * The stage engine. Pure: given an object, the stages and a view of the managed nodes, it
 * says which stage applies and after how long (`planStage`), and, given the time the
 * stage fires, which API writes carry it out (`renderStage`). No clock, no I/O: the
 * runner owns timers and the writer owns the API.
 */
import { isLost } from "./lost-nodes.js";
import {
  claimCapacity,
  ProvisionedByAnnotation,
  ProvisionerName,
  renderNodeStatus,
  volumeFor,
  volumeNameFor,
} from "./node-status.js";
import {
  type Claim,
  ClaimSchema,
  hash32,
  hex,
  type KubeObject,
  NodeSchema,
  type Pod,
  PodSchema,
  type Taint,
  type Toleration,
  timestamp,
} from "./objects.js";
import { fill, type NodeView, podVars, renderPodStatus } from "./pod-status.js";
import { heldRequests, planResize, type ResizeNode } from "./resize.js";
import { matchSelector } from "./selector.js";
import {
  type BindVolume,
  type EventTemplate,
  type NodeStatusTemplate,
  PodStageSchema,
  type Stage,
  type StageConfig,
  type StageResource,
} from "./stages.js";

export type { NodeView } from "./pod-status.js";

/** What the engine knows of the world beyond the object: the managed nodes, in order. */
export interface World {
  nodes: readonly NodeView[];
  /** The pods bound to a node (resize.ts counts what they hold); omitted: none known. */
  podsOn?(node: string): readonly KubeObject[];
  /** `namespace/name` of the claims that exist: a pod whose claim is missing is not bound. */
  claims?: { has(key: string): boolean };
}

export interface Plan {
  stage: Stage;
  delayMs: number;
}

/** One API write. `resourceVersion`, when set, is a precondition: the write fails with 409 if stale. */
export type Write =
  | {
      op: "patchStatus";
      resource: StageResource;
      namespace?: string | undefined;
      name: string;
      resourceVersion?: string | undefined;
      status: Record<string, unknown>;
    }
  | {
      op: "patch";
      resource: StageResource;
      namespace?: string | undefined;
      name: string;
      resourceVersion?: string | undefined;
      patch: Record<string, unknown>;
    }
  | { op: "bind"; namespace: string; name: string; uid?: string | undefined; node: string }
  | {
      op: "delete";
      resource: StageResource;
      namespace?: string | undefined;
      name: string;
      uid?: string | undefined;
    }
  | { op: "createVolume"; body: Record<string, unknown> }
  | { op: "patchVolumeStatus"; name: string; status: Record<string, unknown> }
  | { op: "event"; namespace: string; body: Record<string, unknown> };

export const BindCompletedAnnotation = "pv.kubernetes.io/bind-completed";
export const BoundByControllerAnnotation = "pv.kubernetes.io/bound-by-controller";

/**
 * The scheduler's part: the managed Ready node with the fewest pods (ties: the first in world
 * order) that is not cordoned, has every label of the pod's nodeSelector and no NoSchedule or
 * NoExecute taint the pod does not tolerate; none while a
 * claim the pod mounts does not exist (the scheduler's VolumeBinding: the pod stays Pending).
 */
export function chooseNode(world: World, pod?: Pod): NodeView | undefined {
  if (pod && world.claims) {
    const ns = pod.metadata.namespace ?? "default";
    for (const v of pod.spec.volumes ?? []) {
      const claim = v.persistentVolumeClaim?.claimName;
      if (claim && !world.claims.has(`${ns}/${claim}`)) return undefined;
    }
  }
  const selector = Object.entries(pod?.spec.nodeSelector ?? {});
  const tolerations = pod?.spec.tolerations ?? [];
  let best: NodeView | undefined;
  for (const n of world.nodes) {
    if (!n.ready || n.unschedulable || !selector.every(([k, v]) => n.labels?.[k] === v)) continue;
    if (
      !(n.taints ?? []).every(
        (t) => t.effect === "PreferNoSchedule" || tolerations.some((o) => tolerates(o, t)),
      )
    )
      continue;
    if (best === undefined || n.pods < best.pods) best = n;
  }
  return best;
}

/** kube's Toleration.ToleratesTaint: effect (empty: all), key (empty with Exists: all), value. */
export function tolerates(o: Toleration, t: Taint): boolean {
  if (o.effect && o.effect !== t.effect) return false;
  if (o.key && o.key !== t.key) return false;
  if (!o.key && o.operator !== "Exists") return false;
  return o.operator === "Exists" || (o.value ?? "") === (t.value ?? "");
}

/** Delay of `stage` for `obj`; jitter is a stable function of the object and its version. */
export function delayFor(stage: Stage, obj: KubeObject, params: Record<string, number>): number {
  const d = stage.delay;
  if (!d) return 0;
  let base = (d.param !== undefined ? params[d.param] : undefined) ?? d.ms ?? 0;
  const fromAnnotation = d.fromAnnotation ? obj.metadata.annotations?.[d.fromAnnotation] : undefined;
  if (fromAnnotation !== undefined && /^\d+$/.test(fromAnnotation)) base = Number(fromAnnotation);
  if (!d.jitterMs) return base;
  const m = obj.metadata;
  return base + (hash32(`${m.uid ?? m.name}/${stage.name}/${m.resourceVersion ?? ""}`) % (d.jitterMs + 1));
}

/**
 * The stage to schedule for the object, or null when none applies. Pods bound to nodes
 * outside `world` and nodes outside it belong to someone else and are never touched; a lost
 * node (label kubelet.petset.dev/lost=true) and its pods get no stage.
 */
export function planStage(
  config: StageConfig,
  resource: StageResource,
  obj: KubeObject,
  world: World,
): Plan | null {
  let pod: Pod | undefined;
  if (resource === "pods") {
    const parsed = PodSchema.safeParse(obj);
    if (!parsed.success) return null;
    pod = parsed.data;
    const nodeName = pod.spec.nodeName;
    if (nodeName) {
      const node = world.nodes.find((n) => n.name === nodeName);
      // Someone else's node, or a lost one: its pods' status is frozen (lost-nodes.ts).
      if (!node || isLost(node.labels)) return null;
      // In-place resize (resize.ts) goes before the configured stages.
      if (resizeStatus(pod, world, 0) !== undefined)
        return { stage: ResizeStage, delayMs: config.params.resizeDelayMs ?? 200 };
    }
  } else if (resource === "nodes") {
    if (!world.nodes.some((n) => n.name === obj.metadata.name) || isLost(obj.metadata.labels)) return null;
  }
  for (const stage of config.stages) {
    if (stage.resource !== resource || !matchSelector(stage.selector, obj, pod)) continue;
    if (stage.resource === "pods" && stage.next.bind && chooseNode(world, pod) === undefined) continue;
    return { stage, delayMs: delayFor(stage, obj, config.params) };
  }
  return null;
}

/** The writes that carry out `stage` on `obj` at time `now`, in order. */
export function renderStage(stage: Stage, obj: KubeObject, world: World, now: number): Write[] {
  const { name, namespace, uid, resourceVersion } = obj.metadata;
  const writes: Write[] = [];
  const target = { resource: stage.resource, namespace, name };
  switch (stage.resource) {
    case "pods": {
      const pod = PodSchema.parse(obj);
      if (stage === ResizeStage) {
        const status = resizeStatus(pod, world, now);
        return status === undefined ? [] : [{ op: "patchStatus", ...target, resourceVersion, status }];
      }
      const { next } = stage;
      let node = pod.spec.nodeName ?? "";
      if (next.bind) {
        node = chooseNode(world, pod)?.name ?? "";
        writes.push({ op: "bind", namespace: namespace ?? "default", name, uid, node });
      }
      if (next.statusPatch) {
        const status = renderPodStatus(next.statusPatch, pod, world.nodes, now);
        writes.push({ op: "patchStatus", ...target, resourceVersion, status });
      }
      if (next.event)
        writes.push(
          eventWrite(stage, next.event, obj, podVars({ ...pod, spec: { ...pod.spec, nodeName: node } }), now),
        );
      if (next.delete) writes.push({ op: "delete", ...target, uid });
      return writes;
    }
    case "nodes": {
      const node = NodeSchema.parse(obj);
      const t: NodeStatusTemplate | undefined = stage.next.statusPatch;
      if (t)
        writes.push({
          op: "patchStatus",
          ...target,
          resourceVersion,
          status: renderNodeStatus(t, node, now),
        });
      if (stage.next.event) writes.push(eventWrite(stage, stage.next.event, obj, { name, node: name }, now));
      return writes;
    }
    case "persistentvolumeclaims": {
      const claim = ClaimSchema.parse(obj);
      const b = stage.next.bindVolume;
      if (b) writes.push(...bindClaim(claim, b));
      if (stage.next.event) {
        writes.push(eventWrite(stage, stage.next.event, obj, { name, namespace: namespace ?? "" }, now));
      }
      if (stage.next.delete) writes.push({ op: "delete", ...target, uid });
      return writes;
    }
  }
}

function bindClaim(claim: Claim, b: BindVolume): Write[] {
  const { name, namespace, resourceVersion } = claim.metadata;
  const volumeName = claim.spec?.volumeName || volumeNameFor(claim);
  const writes: Write[] = [];
  if (b.createVolume && !claim.spec?.volumeName) {
    writes.push({ op: "createVolume", body: volumeFor(claim, b) });
    writes.push({ op: "patchVolumeStatus", name: volumeName, status: { phase: "Bound" } });
  }
  writes.push({
    op: "patch",
    resource: "persistentvolumeclaims",
    namespace,
    name,
    resourceVersion,
    patch: {
      metadata: {
        annotations: {
          [BindCompletedAnnotation]: "yes",
          [BoundByControllerAnnotation]: "yes",
        },
      },
      spec: { volumeName },
    },
  });
  writes.push({
    op: "patchStatus",
    resource: "persistentvolumeclaims",
    namespace,
    name,
    status: {
      phase: "Bound",
      accessModes: claim.spec?.accessModes ?? ["ReadWriteOnce"],
      capacity: { storage: claimCapacity(claim, b) },
    },
  });
  return writes;
}

function eventWrite(
  stage: Stage,
  t: EventTemplate,
  obj: KubeObject,
  vars: Record<string, string>,
  now: number,
): Write {
  const { name, namespace, uid, resourceVersion } = obj.metadata;
  const kind = { pods: "Pod", nodes: "Node", persistentvolumeclaims: "PersistentVolumeClaim" }[
    stage.resource
  ];
  const ns = namespace ?? "default";
  const at = timestamp(now);
  return {
    op: "event",
    namespace: ns,
    body: {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: `${name}.${hex(`${uid}/${stage.name}/${now}`, 16)}`, namespace: ns },
      involvedObject: {
        apiVersion: "v1",
        kind,
        name,
        ...(namespace ? { namespace } : {}),
        uid,
        resourceVersion,
      },
      type: t.type,
      reason: t.reason,
      message: fill(t.message, vars),
      source: { component: "kubelet", ...(vars.node ? { host: vars.node } : {}) },
      reportingComponent: "kubelet",
      reportingInstance: vars.node ?? "",
      firstTimestamp: at,
      lastTimestamp: at,
      count: 1,
    },
  };
}

/** The built-in stage that plays in-place resize (resize.ts); not configurable. */
export const ResizeStage: Stage = PodStageSchema.parse({ name: "pod-resize", resource: "pods", next: {} });

/**
 * The pod's resize status (resize.ts). What the node's other pods hold is summed only when the
 * plan asks for it (a resize not yet admitted): every evaluation of every Running pod comes
 * here, and summing (a parse per pod of the node) on each made populating 10,000 × 3 quadratic.
 */
function resizeStatus(pod: Pod, world: World, now: number): Record<string, unknown> | undefined {
  const node = world.nodes.find((n) => n.name === pod.spec.nodeName);
  if (node === undefined || pod.status?.phase !== "Running") return undefined;
  let used: { cpu: number; memory: number } | undefined;
  const sumUsed = () => {
    const sum = { cpu: 0, memory: 0 };
    for (const other of world.podsOn?.(node.name) ?? []) {
      if (other.metadata.uid === pod.metadata.uid || other.metadata.deletionTimestamp) continue;
      const parsed = PodSchema.safeParse(other);
      if (!parsed.success) continue;
      const phase = parsed.data.status?.phase;
      if (phase === "Succeeded" || phase === "Failed") continue;
      const held = heldRequests(parsed.data);
      sum.cpu += held.cpu;
      sum.memory += held.memory;
    }
    return sum;
  };
  const resizeNode: ResizeNode = {
    allocatable: node.allocatable ?? {},
    get used() {
      used ??= sumUsed();
      return used;
    },
  };
  return planResize(pod, resizeNode, now);
}

/** Marks a volume this kubelet created, so it can delete it with its claim. */
export function isOwnVolume(annotations: Record<string, string> | null | undefined): boolean {
  return annotations?.[ProvisionedByAnnotation] === ProvisionerName;
}
