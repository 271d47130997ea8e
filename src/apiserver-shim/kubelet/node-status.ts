/** Fills node status templates and renders claim bindings. Pure. */
import type { Claim, Node } from "./objects.js";
import { hash32, timestamp } from "./objects.js";
import { mergeConditions } from "./pod-status.js";
import type { BindVolume, NodeStatusTemplate } from "./stages.js";

/** The annotation marking objects the simulated kubelet made (kwok's convention for nodes). */
export const FakeNodeAnnotation = "kwok.x-k8s.io/node";
export const ProvisionedByAnnotation = "pv.kubernetes.io/provisioned-by";
export const ProvisionerName = "petset.dev/simulated-kubelet";

/** Trailing ordinal of `petset-node-3`, else a stable number from the name. */
export function nodeOrdinal(name: string): number {
  const m = /-(\d+)$/.exec(name);
  return m ? Number(m[1]) : hash32(name) % 200;
}

export function nodeInternalIP(name: string): string {
  const n = nodeOrdinal(name) + 10;
  return `10.0.${Math.floor(n / 250)}.${n % 250}`;
}

export function renderNodeStatus(t: NodeStatusTemplate, node: Node, now: number): Record<string, unknown> {
  const prev = node.status;
  const status: Record<string, unknown> = {};
  if (t.phase !== undefined) status.phase = t.phase;
  if (t.conditions || t.heartbeat) {
    const vars = { name: node.metadata.name, namespace: "", node: node.metadata.name };
    let conditions = mergeConditions(prev?.conditions ?? [], t.conditions ?? {}, now, vars);
    if (t.heartbeat) conditions = conditions.map((c) => ({ ...c, lastHeartbeatTime: timestamp(now) }));
    status.conditions = conditions;
  }
  if (t.addresses && !(prev?.addresses ?? []).length) {
    status.addresses = [
      { type: "InternalIP", address: nodeInternalIP(node.metadata.name) },
      { type: "Hostname", address: node.metadata.name },
    ];
  }
  if (t.capacity) {
    if (!prev?.capacity) status.capacity = { ...t.capacity };
    if (!prev?.allocatable) status.allocatable = { ...t.capacity };
  }
  if (t.nodeInfo) {
    // The API server defaults every nodeInfo field to "": keep only values someone set.
    const set = Object.entries(prev?.nodeInfo ?? {}).filter(
      ([, v]) => v !== "" && v !== undefined && v !== null,
    );
    status.nodeInfo = { ...t.nodeInfo, ...Object.fromEntries(set) };
  }
  return status;
}

export function volumeNameFor(claim: Claim): string {
  return `pvc-${claim.metadata.uid ?? `${claim.metadata.namespace}-${claim.metadata.name}`}`;
}

/** The PersistentVolume a dynamic provisioner would create for the claim, pre-bound to it. */
export function volumeFor(claim: Claim, b: BindVolume): Record<string, unknown> {
  const name = volumeNameFor(claim);
  const spec = claim.spec ?? {};
  return {
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: { name, annotations: { [ProvisionedByAnnotation]: ProvisionerName } },
    spec: {
      accessModes: spec.accessModes ?? ["ReadWriteOnce"],
      capacity: { storage: claimCapacity(claim, b) },
      persistentVolumeReclaimPolicy: "Delete",
      ...(spec.storageClassName ? { storageClassName: spec.storageClassName } : {}),
      volumeMode: spec.volumeMode ?? "Filesystem",
      claimRef: {
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        namespace: claim.metadata.namespace,
        name: claim.metadata.name,
        uid: claim.metadata.uid,
      },
      hostPath: { path: `${b.storagePath}/${name}` },
    },
  };
}

export function claimCapacity(claim: Claim, b: BindVolume): string {
  const requested = claim.spec?.resources?.requests?.storage;
  return typeof requested === "string" || typeof requested === "number"
    ? String(requested)
    : b.defaultCapacity;
}
