/** Built-in kinds with their own strategies: Pod, Service, PVC, Lease, Event. */
import type { Scenario } from "../types.js";
import {
  core,
  del,
  get,
  group,
  MERGE_PATCH,
  patch,
  pod,
  post,
  put,
  STRATEGIC_PATCH,
  TABLE,
} from "./helpers.js";

const leases = (name = "") => group("coordination.k8s.io/v1", "leases", name);
const eventsV1 = (name = "") => group("events.k8s.io/v1", "events", name);

const pvc = (name: string, extra = {}) => ({
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { name },
  spec: {
    storageClassName: "conformance-none",
    accessModes: ["ReadWriteOnce"],
    resources: { requests: { storage: "1Gi" } },
    ...extra,
  },
});

const service = (name: string, spec = {}) => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name },
  spec: { clusterIP: "None", selector: { app: name }, ports: [{ name: "http", port: 80 }], ...spec },
});

export const coreResourceScenarios: Scenario[] = [
  {
    id: "pod/create-defaults",
    steps: [post("create", core("pods"), pod("p1")), get("get", core("pods", "p1"))],
  },
  {
    id: "pod/service-account-token-volume",
    steps: [post("create", core("pods"), pod("p1", { automountServiceAccountToken: true }))],
  },
  {
    id: "pod/spec-immutable",
    steps: [
      post("create", core("pods"), pod("p1")),
      patch("change-image", core("pods", "p1"), STRATEGIC_PATCH, {
        spec: { containers: [{ name: "app", image: "nginx:1.28" }] },
      }),
      patch(
        "add-env",
        core("pods", "p1"),
        STRATEGIC_PATCH,
        { spec: { containers: [{ name: "app", env: [{ name: "A", value: "1" }] }] } },
        422,
      ),
    ],
  },
  {
    id: "pod/status-subresource",
    steps: [
      post("create", core("pods"), pod("p1")),
      patch("patch-status", core("pods", "p1/status"), MERGE_PATCH, {
        spec: { containers: [{ name: "app", image: "ignored:1" }] },
        status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] },
      }),
      get("get", core("pods", "p1")),
    ],
  },
  {
    id: "pod/delete-unscheduled",
    steps: [
      post("create", core("pods"), pod("p1")),
      del("delete", core("pods", "p1")),
      get("get", core("pods", "p1"), 404),
    ],
  },
  {
    id: "pod/strategic-merge-containers",
    steps: [
      post(
        "create",
        core("pods"),
        pod("p1", {
          containers: [
            { name: "a", image: "nginx:1.27", env: [{ name: "X", value: "1" }] },
            { name: "b", image: "busybox:1.36", command: ["sleep", "3600"] },
          ],
        }),
      ),
      patch("patch", core("pods", "p1"), STRATEGIC_PATCH, {
        metadata: { labels: { app: null, tier: "web" } },
        spec: { containers: [{ name: "b", image: "busybox:1.37" }] },
      }),
    ],
  },
  {
    id: "pod/invalid",
    steps: [
      post(
        "create",
        core("pods"),
        pod("p1", { containers: [{ name: "Bad_Name", image: "" }], restartPolicy: "Sometimes" }),
        422,
      ),
    ],
  },
  {
    id: "pod/table",
    steps: [
      post("create", core("pods"), pod("p1")),
      get("table", core("pods"), 200, { accept: TABLE }),
      get("table-one", core("pods", "p1"), 200, { accept: TABLE, query: { includeObject: "None" } }),
    ],
  },
  {
    id: "service/headless",
    steps: [post("create", core("services"), service("s1")), get("get", core("services", "s1"))],
  },
  {
    id: "service/invalid-port",
    steps: [post("create", core("services"), service("s1", { ports: [{ port: 70000 }] }), 422)],
  },
  {
    id: "service/cluster-ip-immutable",
    steps: [
      post("create", core("services"), service("s1")),
      patch("patch", core("services", "s1"), MERGE_PATCH, { spec: { clusterIP: "10.0.0.99" } }, 422),
    ],
  },
  {
    id: "pvc/create",
    steps: [
      post("create", core("persistentvolumeclaims"), pvc("c1")),
      get("get", core("persistentvolumeclaims", "c1")),
    ],
  },
  {
    // Fuzz findings: the embedded server took claims without access modes and env names kube refuses.
    id: "pvc/invalid-access-modes",
    steps: [
      post("no-modes", core("persistentvolumeclaims"), pvc("c1", { accessModes: [] }), 422),
      post("bogus-mode", core("persistentvolumeclaims"), pvc("c2", { accessModes: ["Bogus"] }), 422),
      post("no-storage", core("persistentvolumeclaims"), pvc("c3", { resources: { requests: {} } }), 422),
    ],
  },
  {
    id: "pod/invalid-env-name",
    steps: [
      post(
        "unicode",
        core("pods"),
        pod("p1", {
          containers: [{ name: "app", image: "nginx:1.27", env: [{ name: "ключ", value: "v" }] }],
        }),
        422,
      ),
      post(
        "equals",
        core("pods"),
        pod("p2", { containers: [{ name: "app", image: "nginx:1.27", env: [{ name: "A=B", value: "v" }] }] }),
        422,
      ),
      post(
        "relaxed-ascii",
        core("pods"),
        pod("p3", {
          containers: [{ name: "app", image: "nginx:1.27", env: [{ name: "1 a.b-c", value: "v" }] }],
        }),
      ),
    ],
  },
  {
    id: "pvc/spec-immutable",
    steps: [
      post("create", core("persistentvolumeclaims"), pvc("c1")),
      patch(
        "patch",
        core("persistentvolumeclaims", "c1"),
        MERGE_PATCH,
        { spec: { accessModes: ["ReadWriteMany"] } },
        422,
      ),
    ],
  },
  {
    id: "lease/crud",
    steps: [
      post(
        "create",
        leases(),
        {
          apiVersion: "coordination.k8s.io/v1",
          kind: "Lease",
          metadata: { name: "l1" },
          spec: {
            holderIdentity: "a",
            leaseDurationSeconds: 15,
            acquireTime: "2025-01-01T00:00:00.000000Z",
            renewTime: "2025-01-01T00:00:00.000000Z",
            leaseTransitions: 0,
          },
        },
        201,
        { save: { rv: "metadata.resourceVersion" } },
      ),
      put("renew", leases("l1"), {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { name: "l1", resourceVersion: "{{rv}}" },
        spec: { holderIdentity: "a", leaseDurationSeconds: 15, renewTime: "2025-01-01T00:00:05.000000Z" },
      }),
      put(
        "take-over-stale",
        leases("l1"),
        {
          apiVersion: "coordination.k8s.io/v1",
          kind: "Lease",
          metadata: { name: "l1", resourceVersion: "{{rv}}" },
          spec: { holderIdentity: "b", leaseDurationSeconds: 15, leaseTransitions: 1 },
        },
        409,
      ),
      get("list", leases()),
    ],
  },
  {
    id: "event/core-v1-read-as-events-v1",
    steps: [
      post("create", core("events"), {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name: "e1" },
        involvedObject: { kind: "ConfigMap", name: "c1", namespace: "{{ns}}", apiVersion: "v1" },
        reason: "Tested",
        message: "a test event",
        type: "Normal",
        source: { component: "conformance" },
        firstTimestamp: "2025-01-01T00:00:00Z",
        lastTimestamp: "2025-01-01T00:00:00Z",
        count: 1,
      }),
      get("get-v1", core("events", "e1")),
      get("get-events-v1", eventsV1("e1")),
    ],
  },
  {
    id: "event/events-v1-read-as-core-v1",
    steps: [
      post("create", eventsV1(), {
        apiVersion: "events.k8s.io/v1",
        kind: "Event",
        metadata: { name: "e2" },
        eventTime: "2025-01-01T00:00:00.000000Z",
        reportingController: "petset.dev/conformance",
        reportingInstance: "conformance-1",
        action: "Testing",
        reason: "Tested",
        regarding: { kind: "ConfigMap", name: "c1", namespace: "{{ns}}", apiVersion: "v1" },
        note: "a test event",
        type: "Warning",
      }),
      get("get-v1", core("events", "e2")),
      post(
        "create-invalid",
        eventsV1(),
        {
          apiVersion: "events.k8s.io/v1",
          kind: "Event",
          metadata: { name: "e3" },
          reason: "Tested",
          type: "Sometimes",
        },
        422,
      ),
    ],
  },
];
