import type { V1ContainerStatus, V1PersistentVolumeClaim, V1Pod } from "@kubernetes/client-node";
import { Annotations, Labels } from "../../api/index.js";
import { canonicalQuantity } from "../../versions/quantity.js";

export type PodPhase = "Pending" | "Running" | "Succeeded" | "Failed" | "Unknown";

export interface ContainerView {
  name: string;
  /** Image in the pod spec. */
  image: string;
  /** Image the kubelet reports running, when it reports one. */
  runningImage?: string;
  /** cpu/memory requests and limits in the pod spec (canonical quantities; in-place-resize.ts). */
  resources?: ResourceView;
  /** What the kubelet reports applied (`status.containerStatuses[].resources`), when it reports it. */
  statusResources?: ResourceView;
}

export interface ResourceView {
  requests?: Readonly<Record<string, string>>;
  limits?: Readonly<Record<string, string>>;
}

/**
 * What the planner needs to know about a pod: plain data, times in ms since the epoch.
 * Built from a V1Pod by podViewFromV1Pod; tests build it directly.
 */
export interface PodView {
  name: string;
  /** The name's `-<n>` suffix, else label petset.dev/pod-index; -1 when neither parses. */
  ordinal: number;
  uid: string;
  resourceVersion: string;
  labels: Readonly<Record<string, string>>;
  annotations: Readonly<Record<string, string>>;
  /** Label petset.dev/version. */
  version?: number;
  /** Label petset.dev/hash: the content the pod runs. */
  hash?: string;
  /** Annotation petset.dev/target-version. */
  targetVersion?: number;
  phase: PodPhase;
  /** Condition Ready=True. */
  ready: boolean;
  /** When Ready last became True (for minReadySeconds). */
  readySince?: number;
  /** When Ready last became False, while it is not True (broken-pets.ts). */
  notReadySince?: number;
  createdAt: number;
  deletionTimestamp?: number;
  /** When deletion was asked for (deletionTimestamp minus the grace period). */
  deletionRequestedAt?: number;
  containers: readonly ContainerView[];
  initContainers: readonly ContainerView[];
  restartCount: number;
  /** A waiting/terminated reason that means the pod is failing (CrashLoopBackOff, ImagePullBackOff, ...). */
  failing?: string;
  /**
   * A container runs again, not ready, after a crash and a crash-loop back-off (its run started
   * at least CRASH_LOOP_GAP_MS after the failed run ended): between two CrashLoopBackOff waits.
   */
  restartedAfterBackOff?: boolean;
  /** spec.nodeName: the node the pod is bound to (node-failure.ts). */
  nodeName?: string;
  /** Condition PodResizePending (reason Infeasible or Deferred; since = lastTransitionTime). */
  resizePending?: { reason: string; message?: string; since?: number };
  /** Condition PodResizeInProgress is present. */
  resizeInProgress?: boolean;
}

export interface ClaimView {
  name: string;
  uid: string;
  resourceVersion: string;
  labels: Readonly<Record<string, string>>;
  deletionTimestamp?: number;
  /** Controlled by something other than this PetSet: retention never deletes it (ownership.ts). */
  foreign?: boolean;
  /** What claim-updates.ts compares with a version's template (volumeClaimUpdatePolicy InPlace). */
  annotations?: Readonly<Record<string, string>>;
  /** spec.resources.requests.storage, as written. */
  storageRequest?: string;
  /** status.capacity.storage. */
  capacity?: string;
  storageClassName?: string;
  accessModes?: readonly string[];
  volumeAttributesClassName?: string;
  /** A resize that failed: the ControllerResizeError/NodeResizeError message or an Infeasible status. */
  resizeError?: string;
  /** The volume is grown, the file system waits for the node (NodeResizePending / FileSystemResizePending). */
  nodeResizePending?: boolean;
}

/** Waiting reasons after which a container will not start without a change. */
export const FailingReasons: ReadonlySet<string> = new Set([
  "CrashLoopBackOff",
  "ImagePullBackOff",
  "ErrImagePull",
  "InvalidImageName",
  "CreateContainerConfigError",
  "CreateContainerError",
  "RunContainerError",
]);

const PHASES: ReadonlySet<string> = new Set(["Pending", "Running", "Succeeded", "Failed", "Unknown"]);

export function toMillis(t: Date | string | undefined | null): number | undefined {
  if (t === undefined || t === null) return undefined;
  const ms = t instanceof Date ? t.getTime() : Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}

function toInt(s: string | undefined): number | undefined {
  if (s === undefined || !/^[0-9]+$/.test(s)) return undefined;
  return Number.parseInt(s, 10);
}

/**
 * The pet a pod belongs to: its name's `-<n>` suffix. The name is what the API server keeps
 * unique and what a create of the pet collides with; the petset.dev/pod-index label is only
 * told to the pet, and a label edited to disagree must not hide the pod (the pet would be
 * created again and again, each create refused with AlreadyExists). The label is read only
 * when the name has no ordinal.
 */
function ordinalOf(name: string, labels: Record<string, string>): number {
  const match = /-([0-9]+)$/.exec(name);
  if (match?.[1] !== undefined) return Number.parseInt(match[1], 10);
  return toInt(labels[Labels.podIndex]) ?? -1;
}

/**
 * The kubelet restarts an exited container at once the first time, then after a back-off of
 * at least 10 s (CrashLoopBackOff); an in-place image change restarts it at once. A gap of 5 s
 * between the last run's end and this run's start tells them apart on whole-second timestamps.
 */
export const CRASH_LOOP_GAP_MS = 5_000;

function restartedAfterBackOff(statuses: readonly V1ContainerStatus[]): boolean {
  return statuses.some((s) => {
    if (s.ready) return false;
    const last = s.lastState?.terminated;
    const started = toMillis(s.state?.running?.startedAt);
    const finished = toMillis(last?.finishedAt);
    if (last === undefined || started === undefined || finished === undefined) return false;
    return started - finished >= CRASH_LOOP_GAP_MS;
  });
}

function failingReason(statuses: readonly V1ContainerStatus[]): string | undefined {
  for (const s of statuses) {
    const waiting = s.state?.waiting?.reason;
    if (waiting !== undefined && FailingReasons.has(waiting)) return waiting;
  }
  return undefined;
}

export function podViewFromV1Pod(pod: V1Pod): PodView {
  const meta = pod.metadata ?? {};
  // The cache's own maps, not copies (read only, as the pod; issue 29: a view per cached pod).
  const labels = meta.labels ?? {};
  const annotations = meta.annotations ?? {};
  const name = meta.name ?? "";
  const statuses = pod.status?.containerStatuses ?? [];
  const initStatuses = pod.status?.initContainerStatuses ?? [];
  const readyCondition = pod.status?.conditions?.find((c) => c.type === "Ready");
  const ready = readyCondition?.status === "True";
  const phase = pod.status?.phase;
  const deletionTimestamp = toMillis(meta.deletionTimestamp);
  const view: PodView = {
    name,
    ordinal: ordinalOf(name, labels),
    uid: meta.uid ?? "",
    resourceVersion: meta.resourceVersion ?? "",
    labels,
    annotations,
    phase: phase !== undefined && PHASES.has(phase) ? (phase as PodPhase) : "Pending",
    ready,
    createdAt: toMillis(meta.creationTimestamp) ?? 0,
    containers: (pod.spec?.containers ?? []).map((c) => {
      const view = containerView(c.name, c.image, statuses);
      const wanted = resourceView(c.resources);
      if (wanted.requests !== undefined || wanted.limits !== undefined) view.resources = wanted;
      const reported = statuses.find((s) => s.name === c.name)?.resources;
      if (reported !== undefined) view.statusResources = resourceView(reported);
      return view;
    }),
    initContainers: (pod.spec?.initContainers ?? []).map((c) => containerView(c.name, c.image, initStatuses)),
    restartCount: statuses.reduce((sum, s) => sum + s.restartCount, 0),
  };
  const version = toInt(labels[Labels.version]);
  if (version !== undefined) view.version = version;
  const hash = labels[Labels.hash];
  if (hash !== undefined) view.hash = hash;
  const target = toInt(annotations[Annotations.targetVersion]);
  if (target !== undefined) view.targetVersion = target;
  const readySince = ready ? toMillis(readyCondition?.lastTransitionTime) : undefined;
  if (readySince !== undefined) view.readySince = readySince;
  const notReadySince = ready ? undefined : toMillis(readyCondition?.lastTransitionTime);
  if (notReadySince !== undefined) view.notReadySince = notReadySince;
  if (deletionTimestamp !== undefined) {
    view.deletionTimestamp = deletionTimestamp;
    view.deletionRequestedAt = deletionTimestamp - (meta.deletionGracePeriodSeconds ?? 0) * 1000;
  }
  const failing = failingReason([...initStatuses, ...statuses]);
  if (failing !== undefined) view.failing = failing;
  if (restartedAfterBackOff(statuses)) view.restartedAfterBackOff = true;
  if (pod.spec?.nodeName) view.nodeName = pod.spec.nodeName;
  const pending = pod.status?.conditions?.find((c) => c.type === "PodResizePending" && c.status === "True");
  if (pending !== undefined) {
    view.resizePending = { reason: pending.reason ?? "" };
    if (pending.message) view.resizePending.message = pending.message;
    const since = toMillis(pending.lastTransitionTime);
    if (since !== undefined) view.resizePending.since = since;
  }
  if (pod.status?.conditions?.some((c) => c.type === "PodResizeInProgress" && c.status === "True"))
    view.resizeInProgress = true;
  return view;
}

const RESIZABLE = ["cpu", "memory"];

function resourceView(
  r: { requests?: Record<string, unknown>; limits?: Record<string, unknown> } | undefined,
) {
  const pick = (m: Record<string, unknown> | undefined) => {
    const out: Record<string, string> = {};
    for (const k of RESIZABLE) {
      const q = m?.[k];
      if (typeof q === "string" || typeof q === "number") out[k] = canonicalQuantity(q) ?? String(q);
    }
    return out;
  };
  const view: ResourceView = {};
  const requests = pick(r?.requests);
  const limits = pick(r?.limits);
  if (Object.keys(requests).length > 0) view.requests = requests;
  if (Object.keys(limits).length > 0) view.limits = limits;
  return view;
}

function containerView(
  name: string,
  image: string | undefined,
  statuses: readonly V1ContainerStatus[],
): ContainerView {
  const view: ContainerView = { name, image: image ?? "" };
  const running = statuses.find((s) => s.name === name)?.image;
  if (running) view.runningImage = running;
  return view;
}

export function claimViewFromV1(pvc: V1PersistentVolumeClaim): ClaimView {
  const meta = pvc.metadata ?? {};
  const view: ClaimView = {
    name: meta.name ?? "",
    uid: meta.uid ?? "",
    resourceVersion: meta.resourceVersion ?? "",
    labels: { ...(meta.labels ?? {}) },
  };
  const deletion = toMillis(meta.deletionTimestamp);
  if (deletion !== undefined) view.deletionTimestamp = deletion;
  return { ...view, ...claimStorageView(pvc) };
}

/** The storage facts of a claim (claim-updates.ts); fields absent when the claim lacks them. */
function claimStorageView(pvc: V1PersistentVolumeClaim): Partial<ClaimView> {
  const out: Partial<ClaimView> = {};
  const annotations = pvc.metadata?.annotations;
  if (annotations !== undefined) out.annotations = { ...annotations };
  const spec = pvc.spec;
  const request = spec?.resources?.requests?.storage;
  if (request !== undefined) out.storageRequest = String(request);
  const capacity = pvc.status?.capacity?.storage;
  if (capacity !== undefined) out.capacity = String(capacity);
  if (spec?.storageClassName) out.storageClassName = spec.storageClassName;
  if (spec?.accessModes !== undefined) out.accessModes = [...spec.accessModes];
  if (spec?.volumeAttributesClassName) out.volumeAttributesClassName = spec.volumeAttributesClassName;
  const conditions = pvc.status?.conditions ?? [];
  const failed = conditions.find(
    (c) => (c.type === "ControllerResizeError" || c.type === "NodeResizeError") && c.status === "True",
  );
  const resize = pvc.status?.allocatedResourceStatuses?.storage;
  if (failed !== undefined) out.resizeError = `${failed.type}: ${failed.message ?? "no message"}`;
  else if (resize?.endsWith("Infeasible")) out.resizeError = resize;
  if (
    resize === "NodeResizePending" ||
    conditions.some((c) => c.type === "FileSystemResizePending" && c.status === "True")
  )
    out.nodeResizePending = true;
  return out;
}
