/**
 * apps/v1 StatefulSets and ControllerRevisions: defaults, validation, immutability, tables.
 * Both servers run a StatefulSet controller, which writes a set's status and records a
 * ControllerRevision right after the create, each at its own pace (the controller itself is
 * compared in statefulset-controller.ts). So only
 * responses no controller has touched are compared whole (the create, refused writes,
 * ControllerRevisions owned by nothing); later reads of a set are compared on its spec.
 */
import type { Json, JsonObject, Scenario } from "../types.js";
import { because, get, group, JSON_PATCH, MERGE_PATCH, patch, pick, post, TABLE } from "./helpers.js";

const statefulSets = (name = "") => group("apps/v1", "statefulsets", name);
const revisions = (name = "") => group("apps/v1", "controllerrevisions", name);

function statefulSet(name: string, spec: JsonObject = {}): JsonObject {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name },
    spec: {
      replicas: 0,
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [{ name: "app", image: "registry.k8s.io/pause:3.9", ports: [{ containerPort: 80 }] }],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: "data" },
          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
        },
      ],
      ...spec,
    },
  };
}

function revision(name: string, data: Json, rev = 1): JsonObject {
  return {
    apiVersion: "apps/v1",
    kind: "ControllerRevision",
    metadata: { name, labels: { app: "none" } },
    data,
    revision: rev,
  };
}

/** Why a StatefulSet read is compared on what the API server alone decides. */
const UNTOUCHED =
  "the StatefulSet controller writes the set's status, managedFields and resourceVersion after the create, at a different moment on each server, so only what the API server answers by itself is compared";

export const appsScenarios: Scenario[] = [
  {
    id: "statefulset/create-defaults",
    steps: [
      post("create", statefulSets(), statefulSet("web")),
      get("scale", statefulSets("web/scale"), 200, {
        compare: because(UNTOUCHED, pick("spec", "status.selector")),
      }),
      get("spec", statefulSets("web"), 200, {
        compare: because(UNTOUCHED, pick("spec", "metadata.generation")),
      }),
    ],
  },
  {
    id: "statefulset/create-on-delete",
    steps: [post("create", statefulSets(), statefulSet("od", { updateStrategy: { type: "OnDelete" } }))],
  },
  {
    id: "statefulset/validation",
    steps: [
      post(
        "selector-mismatch",
        statefulSets(),
        statefulSet("a", { selector: { matchLabels: { app: "b" } } }),
        422,
      ),
      post("empty-selector", statefulSets(), statefulSet("a", { selector: {} }), 422),
      post(
        "bad-enums",
        statefulSets(),
        statefulSet("a", {
          podManagementPolicy: "Sometimes",
          persistentVolumeClaimRetentionPolicy: { whenDeleted: "Keep", whenScaled: "Retain" },
        }),
        422,
      ),
      post("negative-replicas", statefulSets(), statefulSet("a", { replicas: -1 }), 422),
    ],
  },
  {
    id: "statefulset/immutable-fields",
    steps: [
      post("create", statefulSets(), statefulSet("web")),
      patch("service-name", statefulSets("web"), MERGE_PATCH, { spec: { serviceName: "other" } }, 422),
      patch("policy", statefulSets("web"), MERGE_PATCH, { spec: { podManagementPolicy: "Parallel" } }, 422),
      patch(
        "claims",
        statefulSets("web"),
        JSON_PATCH,
        [{ op: "remove", path: "/spec/volumeClaimTemplates" }],
        422,
      ),
      patch("replicas", statefulSets("web"), MERGE_PATCH, { spec: { replicas: 2 } }, 200, {
        compare: because(UNTOUCHED, pick("spec", "metadata.generation")),
      }),
    ],
  },
  {
    id: "controllerrevision/immutable-data",
    steps: [
      post("create", revisions(), revision("r1", { spec: { a: 1 } })),
      post("no-data", revisions(), revision("r2", null), 422),
      post("negative", revisions(), revision("r3", { a: 1 }, -1), 422),
      patch("renumber", revisions("r1"), MERGE_PATCH, { revision: 2 }),
      patch("change-data", revisions("r1"), MERGE_PATCH, { data: { spec: { a: 2 } } }, 422),
      get("table", revisions(), 200, { accept: TABLE }),
    ],
  },
];
