/** Printer columns of the non-pod built-ins, matching kube's internal printers. */
import { isPlainObject, type KubeObject } from "../types.js";
import { AGE_COLUMN, age, column, NAME_COLUMN, objectAge, type TableConvertor } from "./table.js";

type Obj = Record<string, unknown>;
const get = (o: unknown, ...path: string[]): unknown => {
  let cur = o;
  for (const p of path) cur = isPlainObject(cur) ? cur[p] : undefined;
  return cur;
};
const count = (v: unknown) => (isPlainObject(v) ? Object.keys(v).length : 0);

export const namespaceTable: TableConvertor = {
  columns: [NAME_COLUMN, column("Status", "string", "The status of the namespace"), AGE_COLUMN],
  cells: (o, now) => [o.metadata.name, get(o, "status", "phase") ?? "", objectAge(o, now)],
};

export const configMapTable: TableConvertor = {
  // kube describes the column with the ConfigMap.data field doc.
  columns: [
    NAME_COLUMN,
    column(
      "Data",
      "string",
      "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
    ),
    AGE_COLUMN,
  ],
  cells: (o, now) => [o.metadata.name, count(o.data) + count(o.binaryData), objectAge(o, now)],
};

export const secretTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    column("Type", "string", "The type of the secret"),
    column("Data", "string", "The number of data in the secret"),
    AGE_COLUMN,
  ],
  cells: (o, now) => [
    o.metadata.name,
    o.type ?? "Opaque",
    count(o.data) + count(o.stringData),
    objectAge(o, now),
  ],
};

export const serviceAccountTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    column(
      "Secrets",
      "string",
      "Secrets is the list of secrets allowed to be used by pods running using this ServiceAccount",
    ),
    AGE_COLUMN,
  ],
  cells: (o, now) => [o.metadata.name, Array.isArray(o.secrets) ? o.secrets.length : 0, objectAge(o, now)],
};

export const serviceTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    column("Type", "string", "The type of the service"),
    column("Cluster-IP", "string", "The IP address of the service"),
    column("External-IP", "string", "The external IP address of the service"),
    column("Port(s)", "string", "The ports of the service"),
    AGE_COLUMN,
    column("Selector", "string", "The selector of the service", 1),
  ],
  cells: (o, now) => {
    const spec = (o.spec ?? {}) as Obj;
    const ports = Array.isArray(spec.ports)
      ? spec.ports
          .map((p: Obj) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ""}/${p.protocol ?? "TCP"}`)
          .join(",")
      : "";
    const external =
      Array.isArray(spec.externalIPs) && spec.externalIPs.length ? spec.externalIPs.join(",") : "<none>";
    const selector = isPlainObject(spec.selector)
      ? Object.entries(spec.selector)
          .map(([k, v]) => `${k}=${v}`)
          .sort()
          .join(",")
      : "<none>";
    return [
      o.metadata.name,
      spec.type ?? "ClusterIP",
      spec.clusterIP ?? "<none>",
      external,
      ports || "<none>",
      objectAge(o, now),
      selector,
    ];
  },
};

const accessModes = (v: unknown): string =>
  Array.isArray(v)
    ? v
        .map(
          (m) =>
            ({ ReadWriteOnce: "RWO", ReadOnlyMany: "ROX", ReadWriteMany: "RWX", ReadWriteOncePod: "RWOP" })[
              String(m)
            ] ?? String(m),
        )
        .join(",")
    : "";

export const pvcTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    column("Status", "string", "The phase of the claim"),
    column("Volume", "string", "The volume bound to the claim"),
    column("Capacity", "string", "The capacity of the volume"),
    column("Access Modes", "string", "The access modes"),
    column("StorageClass", "string", "The storage class"),
    column("VolumeAttributesClass", "string", "The volume attributes class"),
    AGE_COLUMN,
    column("VolumeMode", "string", "The volume mode", 1),
  ],
  cells: (o, now) => [
    o.metadata.name,
    get(o, "status", "phase") ?? "Pending",
    get(o, "spec", "volumeName") ?? "",
    get(o, "status", "capacity", "storage") ?? "",
    accessModes(get(o, "status", "accessModes")),
    get(o, "spec", "storageClassName") ?? "<unset>",
    get(o, "spec", "volumeAttributesClassName") ?? "<unset>",
    objectAge(o, now),
    get(o, "spec", "volumeMode") ?? "Filesystem",
  ],
};

export const pvTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    column("Capacity", "string", "The capacity"),
    column("Access Modes", "string", "The access modes"),
    column("Reclaim Policy", "string", "The reclaim policy"),
    column("Status", "string", "The phase"),
    column("Claim", "string", "The bound claim"),
    column("StorageClass", "string", "The storage class"),
    column("VolumeAttributesClass", "string", "The volume attributes class"),
    column("Reason", "string", "The reason"),
    AGE_COLUMN,
    column("VolumeMode", "string", "The volume mode", 1),
  ],
  cells: (o, now) => {
    const ref = get(o, "spec", "claimRef") as Obj | undefined;
    return [
      o.metadata.name,
      get(o, "spec", "capacity", "storage") ?? "",
      accessModes(get(o, "spec", "accessModes")),
      get(o, "spec", "persistentVolumeReclaimPolicy") ?? "Retain",
      get(o, "status", "phase") ?? "Pending",
      ref ? `${ref.namespace}/${ref.name}` : "",
      get(o, "spec", "storageClassName") ?? "",
      get(o, "spec", "volumeAttributesClassName") ?? "<unset>",
      get(o, "status", "reason") ?? "",
      objectAge(o, now),
      get(o, "spec", "volumeMode") ?? "Filesystem",
    ];
  },
};

export const nodeTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    column("Status", "string", "The status of the node"),
    column("Roles", "string", "The roles of the node"),
    AGE_COLUMN,
    column("Version", "string", "Kubelet Version reported by the node."),
    column("Internal-IP", "string", "List of internal IPs in the node.", 1),
    column("External-IP", "string", "List of external IPs in the node.", 1),
    column("OS-Image", "string", "OS image reported by the node.", 1),
    column("Kernel-Version", "string", "Kernel version reported by the node.", 1),
    column("Container-Runtime", "string", "Container runtime reported by the node.", 1),
  ],
  cells: (o, now) => {
    const conds = (get(o, "status", "conditions") as Obj[] | undefined) ?? [];
    const ready = conds.find((c) => c.type === "Ready");
    let status = ready ? (ready.status === "True" ? "Ready" : "NotReady") : "Unknown";
    if (get(o, "spec", "unschedulable")) status += ",SchedulingDisabled";
    const roles = Object.keys(o.metadata.labels ?? {})
      .filter((k) => k.startsWith("node-role.kubernetes.io/"))
      .map((k) => k.slice("node-role.kubernetes.io/".length));
    const addrs = (get(o, "status", "addresses") as Obj[] | undefined) ?? [];
    const addr = (t: string) =>
      addrs
        .filter((a) => a.type === t)
        .map((a) => a.address)
        .join(",") || "<none>";
    const info = (k: string) => get(o, "status", "nodeInfo", k) ?? "";
    return [
      o.metadata.name,
      status,
      roles.length ? roles.join(",") : "<none>",
      objectAge(o, now),
      info("kubeletVersion"),
      addr("InternalIP"),
      addr("ExternalIP"),
      info("osImage"),
      info("kernelVersion"),
      info("containerRuntimeVersion"),
    ];
  },
};

export const eventTable: TableConvertor = {
  columns: [
    column("Last Seen", "string", "Time when last event from this series was observed"),
    column("Type", "string", "Type of this event"),
    column("Reason", "string", "Reason is why the action was taken"),
    column("Object", "string", "The object this Event is about"),
    column("Message", "string", "A human-readable description of the status of this operation"),
    column("Source", "string", "The component reporting this event", 1),
    column("First Seen", "string", "The first time this event was seen", 1),
    column("Count", "string", "The number of times this event occurred", 1),
    NAME_COLUMN,
  ].map((c) => (c.name === "Name" ? { ...c, priority: 1 } : c)),
  cells: (o, now) => {
    const inv = (o.involvedObject ?? o.regarding ?? {}) as Obj;
    const last = o.lastTimestamp ?? o.deprecatedLastTimestamp ?? o.eventTime ?? o.metadata.creationTimestamp;
    const first =
      o.firstTimestamp ?? o.deprecatedFirstTimestamp ?? o.eventTime ?? o.metadata.creationTimestamp;
    const src = (o.source ?? {}) as Obj;
    return [
      age(last, now),
      o.type ?? "",
      o.reason ?? "",
      `${String(inv.kind ?? "").toLowerCase()}/${inv.name ?? ""}`,
      o.message ?? o.note ?? "",
      src.component ?? o.reportingController ?? o.reportingComponent ?? "",
      age(first, now),
      o.count ?? o.deprecatedCount ?? 1,
      o.metadata.name,
    ];
  },
};

export const leaseTable: TableConvertor = {
  columns: [NAME_COLUMN, column("Holder", "string", "Name of the Lease holder"), AGE_COLUMN],
  cells: (o: KubeObject, now) => [o.metadata.name, get(o, "spec", "holderIdentity") ?? "", objectAge(o, now)],
};
