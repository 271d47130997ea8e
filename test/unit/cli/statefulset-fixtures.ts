/** A StatefulSet `web` as the API shows it mid-life: two ControllerRevisions, pods, claims. */
import type { Claim, ControllerRevision, Pod, StatefulSet } from "../../../src/cli/plugin/migrate/objects.js";

export const STS_UID = "uid-sts-web";

export function template(image: string): Record<string, unknown> {
  return {
    metadata: { creationTimestamp: null, labels: { app: "web" } },
    spec: {
      containers: [
        {
          name: "app",
          image,
          ports: [{ containerPort: 80, protocol: "TCP" }],
          volumeMounts: [{ name: "data", mountPath: "/data" }],
          terminationMessagePath: "/dev/termination-log",
          terminationMessagePolicy: "File",
          imagePullPolicy: "IfNotPresent",
          resources: {},
        },
      ],
      restartPolicy: "Always",
      dnsPolicy: "ClusterFirst",
      schedulerName: "default-scheduler",
      securityContext: {},
      terminationGracePeriodSeconds: 30,
    },
  };
}

export const claimTemplates = [
  {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name: "data", creationTimestamp: null },
    spec: {
      accessModes: ["ReadWriteOnce"],
      resources: { requests: { storage: "1Gi" } },
      volumeMode: "Filesystem",
    },
    status: { phase: "Pending" },
  },
];

export function statefulSet(image = "nginx:1.27", overrides: Record<string, unknown> = {}): StatefulSet {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: {
      name: "web",
      namespace: "default",
      uid: STS_UID,
      resourceVersion: "10",
      generation: 2,
      creationTimestamp: "2026-01-01T00:00:00Z",
      labels: { app: "web" },
      annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{}", team: "storage" },
      managedFields: [{ manager: "kubectl" }],
    },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: "web" } },
      serviceName: "web",
      template: template(image),
      volumeClaimTemplates: structuredClone(claimTemplates),
      podManagementPolicy: "OrderedReady",
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } },
      revisionHistoryLimit: 10,
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain" },
      ...overrides,
    },
    status: { replicas: 3, currentRevision: "web-bbb", updateRevision: "web-bbb" },
  };
}

export function revision(name: string, number: number, image: string): ControllerRevision {
  return {
    apiVersion: "apps/v1",
    kind: "ControllerRevision",
    metadata: {
      name,
      namespace: "default",
      uid: `uid-${name}`,
      labels: { app: "web", "controller-revision-hash": name.slice(4) },
      ownerReferences: [
        { apiVersion: "apps/v1", kind: "StatefulSet", name: "web", uid: STS_UID, controller: true },
      ],
    },
    revision: number,
    data: { spec: { template: { ...template(image), $patch: "replace" } } },
  };
}

export function pod(
  ordinal: number,
  revisionName: string,
  options: { ready?: boolean; restarts?: number } = {},
): Pod {
  return {
    metadata: {
      name: `web-${ordinal}`,
      namespace: "default",
      uid: `uid-pod-${ordinal}`,
      resourceVersion: String(20 + ordinal),
      labels: { app: "web", "controller-revision-hash": revisionName },
      ownerReferences: [
        { apiVersion: "apps/v1", kind: "StatefulSet", name: "web", uid: STS_UID, controller: true },
      ],
    },
    status: {
      phase: "Running",
      conditions: [{ type: "Ready", status: options.ready === false ? "False" : "True" }],
      containerStatuses: [{ name: "app", restartCount: options.restarts ?? 0 }],
    },
  };
}

export function claim(ordinal: number): Claim {
  return {
    metadata: {
      name: `data-web-${ordinal}`,
      namespace: "default",
      uid: `uid-pvc-${ordinal}`,
      resourceVersion: String(40 + ordinal),
      labels: { app: "web" },
    },
  };
}

/** web at nginx:1.27 (revision 2, web-bbb), pods 0 and 1 still on nginx:1.26 (web-aaa) would be 2 live. */
export function midLife() {
  return {
    statefulSet: statefulSet(),
    revisions: [revision("web-bbb", 2, "nginx:1.27"), revision("web-aaa", 1, "nginx:1.26")],
    pods: [pod(0, "web-bbb"), pod(1, "web-bbb"), pod(2, "web-bbb", { restarts: 2 })],
    claims: [claim(0), claim(1), claim(2)],
  };
}
