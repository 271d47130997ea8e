/**
 * The StatefulSet controller: kube-controller-manager's on the real cluster, the embedded
 * server's own (controllers/statefulset-controller.ts) on the other. A Parallel, OnDelete set
 * of two pods is created, its template updated, and one pod deleted by hand: pod names and
 * labels (pod-name, pod-index, controller-revision-hash), ControllerRevision names, numbers and
 * data, and the revision fields of the status must agree. The embedded conformance server runs
 * no kubelet (pods stay Pending there; kwok runs them on the real cluster), so what depends on
 * pods running (ready and available counts, pod status) is left out, and the set is Parallel
 * and OnDelete so that nothing waits for a pod to be Ready.
 */
import type { Json, JsonObject, Scenario, StepResponse } from "../types.js";
import { because, core, del, get, group, JSON_PATCH, patch, pick, post, statusOnly } from "./helpers.js";

const statefulSets = (name = "") => group("apps/v1", "statefulsets", name);
const revisions = group("apps/v1", "controllerrevisions");
const selected = { query: { labelSelector: "app=web" } };
const NO_KUBELET =
  "the embedded conformance server runs no kubelet: its pods stay Pending, kwok runs the real cluster's, so only what the StatefulSet controller decides is compared";

const set: JsonObject = {
  apiVersion: "apps/v1",
  kind: "StatefulSet",
  metadata: { name: "web", annotations: { note: "a <b> & c" } },
  spec: {
    replicas: 2,
    serviceName: "web",
    podManagementPolicy: "Parallel",
    updateStrategy: { type: "OnDelete" },
    selector: { matchLabels: { app: "web" } },
    template: {
      metadata: { labels: { app: "web", tier: "front" }, annotations: { a: "1" } },
      spec: {
        containers: [
          {
            name: "app",
            image: "registry.k8s.io/pause:3.9",
            ports: [{ containerPort: 80 }],
            resources: { requests: { cpu: "100m", memory: "64Mi" } },
          },
        ],
      },
    },
  },
};

const items = (body: Json): JsonObject[] =>
  typeof body === "object" && body !== null && !Array.isArray(body) && Array.isArray(body.items)
    ? (body.items as JsonObject[])
    : [];
const meta = (o: JsonObject) => (o.metadata ?? {}) as JsonObject;
const byName = (a: JsonObject, b: JsonObject) => String(meta(a).name).localeCompare(String(meta(b).name));

/** What the controller decided about each pod. */
function podIdentity(body: Json): Json {
  return items(body)
    .sort(byName)
    .map((p) => {
      const spec = (p.spec ?? {}) as JsonObject;
      const owners = (meta(p).ownerReferences ?? []) as JsonObject[];
      return {
        name: meta(p).name ?? null,
        generateName: meta(p).generateName ?? null,
        labels: meta(p).labels ?? null,
        annotations: meta(p).annotations ?? null,
        owners: owners.map((r) => ({
          kind: r.kind ?? null,
          name: r.name ?? null,
          controller: r.controller ?? null,
        })),
        hostname: spec.hostname ?? null,
        subdomain: spec.subdomain ?? null,
        // Only what comes from the template: kube's ServiceAccount admission adds a token mount.
        containers: ((spec.containers ?? []) as JsonObject[]).map((c) => ({
          name: c.name ?? null,
          image: c.image ?? null,
        })),
      };
    });
}

function revisionView(body: Json): Json {
  return items(body)
    .sort(byName)
    .map((r) => ({
      name: meta(r).name ?? null,
      labels: meta(r).labels ?? null,
      annotations: meta(r).annotations ?? null,
      owners: meta(r).ownerReferences ?? null,
      revision: r.revision ?? null,
      data: r.data ?? null,
    }));
}

const revisionStatus = pick(
  "status.replicas",
  "status.currentReplicas",
  "status.updatedReplicas",
  "status.currentRevision",
  "status.updateRevision",
  "status.observedGeneration",
  "status.collisionCount",
  "metadata.generation",
);

const statusOf = (r: StepResponse) => ((r.body as JsonObject).status ?? {}) as JsonObject;
const count = (n: number) => (r: StepResponse) => items(r.body).length === n;
const UNTIL = { timeoutMs: 60_000 };

export const statefulSetControllerScenarios: Scenario[] = [
  {
    id: "statefulset-controller/pods-revisions-status",
    steps: [
      post("create", statefulSets(), set, 201, { save: { setUid: "metadata.uid" } }),
      get("pods", core("pods"), 200, {
        ...selected,
        compare: because(NO_KUBELET, podIdentity),
        until: { check: count(2), ...UNTIL },
      }),
      get("revisions", revisions, 200, {
        ...selected,
        compare: because("the revisions are compared on what the controller writes", revisionView),
        until: { check: count(1), ...UNTIL },
      }),
      get("status", statefulSets("web"), 200, {
        compare: because(NO_KUBELET, revisionStatus),
        until: { check: (r) => statusOf(r).replicas === 2 && statusOf(r).observedGeneration === 1, ...UNTIL },
      }),
      patch(
        "set-image",
        statefulSets("web"),
        JSON_PATCH,
        [
          {
            op: "replace",
            path: "/spec/template/spec/containers/0/image",
            value: "registry.k8s.io/pause:3.10",
          },
        ],
        200,
        { compare: because("the status is compared in the next steps", pick("spec", "metadata.generation")) },
      ),
      get("status-after-update", statefulSets("web"), 200, {
        compare: because(NO_KUBELET, revisionStatus),
        until: {
          check: (r) =>
            statusOf(r).observedGeneration === 2 &&
            statusOf(r).updateRevision !== statusOf(r).currentRevision,
          ...UNTIL,
        },
      }),
      get("revisions-after-update", revisions, 200, {
        ...selected,
        compare: because("the revisions are compared on what the controller writes", revisionView),
        until: { check: count(2), ...UNTIL },
      }),
      del("delete-web-1", core("pods", "web-1"), 200, {
        query: { gracePeriodSeconds: "0" },
        compare: statusOnly("the pod's status is the kubelet's (kwok) on one side only"),
      }),
      get("pods-after-delete", core("pods"), 200, {
        ...selected,
        compare: because(NO_KUBELET, podIdentity),
        until: {
          check: (r) =>
            items(r.body).length === 2 &&
            new Set(items(r.body).map((p) => (meta(p).labels as JsonObject)?.["controller-revision-hash"]))
              .size === 2,
          ...UNTIL,
        },
      }),
      get("status-after-delete", statefulSets("web"), 200, {
        compare: because(NO_KUBELET, revisionStatus),
        until: { check: (r) => statusOf(r).updatedReplicas === 1 && statusOf(r).replicas === 2, ...UNTIL },
      }),
    ],
  },
];
