/** Server-side apply (managedFields, conflicts, force) and the other patch types on ConfigMaps. */
import type { Scenario } from "../types.js";
import {
  APPLY_PATCH,
  apply,
  configMap,
  core,
  get,
  JSON_PATCH,
  MERGE_PATCH,
  patch,
  petSet,
  petsets,
  post,
  STRATEGIC_PATCH,
} from "./helpers.js";

export const applyScenarios: Scenario[] = [
  {
    id: "apply/create-and-update",
    steps: [
      apply("create", core("configmaps", "c1"), "alice", configMap("c1", { a: "1", b: "2" }), 201),
      apply("update", core("configmaps", "c1"), "alice", configMap("c1", { a: "1", c: "3" })),
      apply("no-op", core("configmaps", "c1"), "alice", configMap("c1", { a: "1", c: "3" })),
    ],
  },
  {
    id: "apply/conflict-and-force",
    steps: [
      apply("alice", core("configmaps", "c1"), "alice", configMap("c1", { a: "1" }), 201),
      apply("bob-conflicts", core("configmaps", "c1"), "bob", configMap("c1", { a: "2" }), 409),
      apply("bob-forces", core("configmaps", "c1"), "bob", configMap("c1", { a: "2" }), 200, {
        query: { force: "true" },
      }),
      apply("bob-shares", core("configmaps", "c1"), "carol", configMap("c1", { a: "2", z: "9" })),
    ],
  },
  {
    id: "apply/after-update",
    steps: [
      post("create", core("configmaps"), configMap("c1", { a: "1" })),
      patch("merge", core("configmaps", "c1"), MERGE_PATCH, { data: { b: "2" } }, 200, {
        query: { fieldManager: "editor" },
      }),
      apply("apply-conflicts", core("configmaps", "c1"), "alice", configMap("c1", { b: "3" }), 409),
      apply("apply-disjoint", core("configmaps", "c1"), "alice", configMap("c1", { c: "3" })),
    ],
  },
  {
    id: "apply/remove-owned-field",
    steps: [
      apply(
        "apply",
        core("configmaps", "c1"),
        "alice",
        configMap("c1", { a: "1", b: "2" }, { labels: { x: "1" } }),
        201,
      ),
      apply("apply-less", core("configmaps", "c1"), "alice", configMap("c1", { a: "1" })),
    ],
  },
  {
    id: "apply/missing-field-manager",
    steps: [patch("apply", core("configmaps", "c1"), APPLY_PATCH, configMap("c1"), 422)],
  },
  {
    id: "apply/wrong-kind",
    steps: [
      apply(
        "apply",
        core("configmaps", "c1"),
        "alice",
        { apiVersion: "v1", kind: "Secret", metadata: { name: "c1" }, data: {} },
        400,
      ),
    ],
  },
  {
    id: "apply/petset",
    steps: [
      apply("create", petsets("web"), "gitops", petSet("web", { replicas: 2 }), 201),
      apply(
        "scale-by-hpa",
        petsets("web"),
        "hpa",
        {
          apiVersion: "petset.dev/v1alpha1",
          kind: "PetSet",
          metadata: { name: "web" },
          spec: { replicas: 5 },
        },
        409,
      ),
      apply(
        "image-change",
        petsets("web"),
        "gitops",
        petSet("web", {
          replicas: 2,
          template: {
            metadata: { labels: { app: "web" } },
            spec: { containers: [{ name: "app", image: "nginx:1.28" }] },
          },
        }),
      ),
      apply("status", petsets("web/status"), "controller", {
        apiVersion: "petset.dev/v1alpha1",
        kind: "PetSet",
        metadata: { name: "web" },
        status: { replicas: 2, observedGeneration: 2 },
      }),
      get("get", petsets("web")),
    ],
  },
  {
    id: "patch/merge-labels-null",
    steps: [
      post("create", core("configmaps"), configMap("c1", { a: "1", b: "2" }, { labels: { x: "1", y: "2" } })),
      patch("merge", core("configmaps", "c1"), MERGE_PATCH, {
        metadata: { labels: { x: null } },
        data: { b: null },
      }),
    ],
  },
  {
    id: "patch/strategic-configmap",
    steps: [
      post("create", core("configmaps"), configMap("c1", { a: "1" }, { labels: { x: "1" } })),
      patch("strategic", core("configmaps", "c1"), STRATEGIC_PATCH, {
        metadata: { labels: { x: null, y: "2" } },
        data: { c: "3" },
      }),
    ],
  },
  {
    id: "patch/json-patch",
    steps: [
      post("create", core("configmaps"), configMap("c1", { a: "1" })),
      patch("patch", core("configmaps", "c1"), JSON_PATCH, [
        { op: "add", path: "/data/b", value: "2" },
        { op: "replace", path: "/data/a", value: "x" },
        { op: "copy", from: "/data/a", path: "/data/c" },
        { op: "test", path: "/data/c", value: "x" },
      ]),
      patch("invalid", core("configmaps", "c1"), JSON_PATCH, { op: "add" }, 400),
    ],
  },
  {
    id: "patch/stale-resource-version",
    steps: [
      post("create", core("configmaps"), configMap("c1")),
      patch(
        "merge",
        core("configmaps", "c1"),
        MERGE_PATCH,
        { metadata: { resourceVersion: "1" }, data: { a: "2" } },
        409,
      ),
    ],
  },
  {
    id: "patch/not-found",
    steps: [patch("merge", core("configmaps", "c1"), MERGE_PATCH, { data: { a: "2" } }, 404)],
  },
  {
    id: "patch/unsupported-content-type",
    steps: [patch("patch", core("configmaps", "c1"), "text/plain", { data: {} }, 415)],
  },
];
