/**
 * What the embedded attach/detach controller does, as a pure function of pods, claims,
 * volumes, nodes, VolumeAttachments and the time (kube 1.33 pkg/controller/volume/attachdetach
 * semantics, for the simulated volumes):
 * - desired: every (volume, node) where a pod scheduled to the node mounts a bound claim, unless
 *   the pod is terminated (phase Succeeded/Failed, or deleting with no container running:
 *   IsPodTerminated). A Terminating pod whose containers still run (a lost node's, frozen) keeps
 *   its volumes attached;
 * - attach: a desired pair without a VolumeAttachment gets one, named as the CSI attacher names
 *   it (`csi-<sha256(volumeHandle + attacher + node)>`), marked attached (the external-attacher's
 *   part), unless the volume is ReadWriteOnce(Pod) and attached to another node: then a
 *   `FailedAttachVolume` Multi-Attach error, as kube reports it, and no attachment;
 * - detach: an attachment no pod needs any more is deleted at once from a Ready node (its
 *   kubelet unmounts at once here), or a node that is gone; from a node that is not Ready it
 *   stays (nothing confirms the unmount) until the node has the `node.kubernetes.io/out-of-service`
 *   taint or maxWaitForUnmountDuration (6 min) has passed since the detach was first wanted
 *   (kube's force detach). Deleting it by hand (as a fencer does) is the other way.
 * Every node counts as controller-managed (the simulated kubelet attaches nothing itself).
 */
import { createHash } from "node:crypto";
import { isPlainObject, type KubeObject } from "../types.js";

type Obj = Record<string, unknown>;

export const OutOfServiceTaint = "node.kubernetes.io/out-of-service";
/** kube-controller-manager's maxWaitForUnmountDuration. */
export const MaxWaitForUnmountMs = 6 * 60_000;

export interface AttachInput {
  pods: readonly KubeObject[];
  /** `namespace/name` → claim. */
  claims: ReadonlyMap<string, KubeObject>;
  /** name → volume. */
  volumes: ReadonlyMap<string, KubeObject>;
  /** name → node. */
  nodes: ReadonlyMap<string, KubeObject>;
  attachments: readonly KubeObject[];
  /** Attachment name → when its detach was first wanted (epoch ms); kept by the caller. */
  detachWantedAt: ReadonlyMap<string, number>;
  /** The attacher of volumes that name no CSI driver (the simulated provisioner's). */
  defaultAttacher: string;
  now: number;
}

export interface AttachmentToCreate {
  name: string;
  attacher: string;
  volume: string;
  node: string;
}

export interface MultiAttachError {
  pod: KubeObject;
  volume: string;
  message: string;
}

export interface AttachPlan {
  create: AttachmentToCreate[];
  /** Attachments to delete (detach), by name. */
  delete: string[];
  multiAttach: MultiAttachError[];
  /** Detaches wanted but held (node not Ready), with when they were first wanted. */
  held: Map<string, number>;
  /** When a held detach is due (epoch ms), if any. */
  checkAt?: number;
}

const get = (o: unknown, key: string): Obj => {
  const v = isPlainObject(o) ? o[key] : undefined;
  return isPlainObject(v) ? v : {};
};

/** kube's getAttachmentName for CSI volumes. */
export function attachmentName(volumeHandle: string, attacher: string, node: string): string {
  return `csi-${createHash("sha256").update(`${volumeHandle}${attacher}${node}`).digest("hex")}`;
}

/** kube's IsPodTerminated: phase Succeeded/Failed, or deleting with no container running. */
export function podTerminated(pod: KubeObject): boolean {
  const status = get(pod, "status");
  if (status.phase === "Succeeded" || status.phase === "Failed") return true;
  if (!pod.metadata.deletionTimestamp) return false;
  const statuses = Array.isArray(status.containerStatuses) ? status.containerStatuses : [];
  return statuses.every((s) => {
    const state = get(s, "state");
    return state.terminated !== undefined || state.waiting !== undefined;
  });
}

function nodeReady(node: KubeObject | undefined): boolean {
  const conditions = get(node, "status").conditions;
  return (
    Array.isArray(conditions) &&
    conditions.some((c) => isPlainObject(c) && c.type === "Ready" && c.status === "True")
  );
}

function outOfService(node: KubeObject | undefined): boolean {
  const taints = get(node, "spec").taints;
  return Array.isArray(taints) && taints.some((t) => isPlainObject(t) && t.key === OutOfServiceTaint);
}

function exclusive(volume: KubeObject): boolean {
  const modes = get(volume, "spec").accessModes;
  const list = Array.isArray(modes) ? modes : [];
  return !list.includes("ReadWriteMany") && !list.includes("ReadOnlyMany");
}

export function planAttachments(input: AttachInput): AttachPlan {
  // Desired (volume, node) pairs and the pods that want them.
  const desired = new Map<string, { volume: string; node: string; pods: KubeObject[] }>();
  for (const pod of input.pods) {
    const node = get(pod, "spec").nodeName;
    if (typeof node !== "string" || !node || podTerminated(pod)) continue;
    const volumes = get(pod, "spec").volumes;
    for (const v of Array.isArray(volumes) ? volumes : []) {
      const claimName = get(v, "persistentVolumeClaim").claimName;
      if (typeof claimName !== "string") continue;
      const claim = input.claims.get(`${pod.metadata.namespace}/${claimName}`);
      const volume = get(claim, "spec").volumeName;
      if (typeof volume !== "string" || !volume || !input.volumes.has(volume)) continue;
      const key = `${volume}\n${node}`;
      const entry = desired.get(key) ?? { volume, node, pods: [] };
      entry.pods.push(pod);
      desired.set(key, entry);
    }
  }
  const actual = new Map<string, KubeObject>();
  for (const a of input.attachments) {
    const pv = get(get(a, "spec"), "source").persistentVolumeName;
    const node = get(a, "spec").nodeName;
    if (typeof pv === "string" && typeof node === "string") actual.set(`${pv}\n${node}`, a);
  }
  const plan: AttachPlan = { create: [], delete: [], multiAttach: [], held: new Map() };
  for (const [key, want] of [...desired].sort(([a], [b]) => a.localeCompare(b))) {
    if (actual.has(key)) continue;
    const volume = input.volumes.get(want.volume)!;
    const elsewhere = [...actual.keys()].find((k) => k.startsWith(`${want.volume}\n`) && k !== key);
    if (elsewhere && exclusive(volume)) {
      const message = `Multi-Attach error for volume "${want.volume}" Volume is already exclusively attached to one node and can't be attached to another`;
      for (const pod of want.pods) plan.multiAttach.push({ pod, volume: want.volume, message });
      continue;
    }
    const csi = get(get(volume, "spec"), "csi");
    const attacher = typeof csi.driver === "string" ? csi.driver : input.defaultAttacher;
    const handle = typeof csi.volumeHandle === "string" ? csi.volumeHandle : want.volume;
    const name = attachmentName(handle, attacher, want.node);
    plan.create.push({ name, attacher, volume: want.volume, node: want.node });
    actual.set(key, { apiVersion: "storage.k8s.io/v1", kind: "VolumeAttachment", metadata: { name } });
  }
  for (const [key, a] of actual) {
    if (desired.has(key) || !a.metadata.resourceVersion) continue;
    const name = a.metadata.name!;
    const nodeName = String(get(a, "spec").nodeName);
    const node = input.nodes.get(nodeName);
    if (!node || nodeReady(node) || outOfService(node)) {
      plan.delete.push(name);
      continue;
    }
    const since = input.detachWantedAt.get(name) ?? input.now;
    if (input.now - since > MaxWaitForUnmountMs) {
      plan.delete.push(name);
      continue;
    }
    plan.held.set(name, since);
    plan.checkAt = Math.min(plan.checkAt ?? Infinity, since + MaxWaitForUnmountMs + 1);
  }
  return plan;
}
