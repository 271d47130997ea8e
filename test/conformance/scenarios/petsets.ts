/**
 * The petset CRDs as kube-apiserver's apiextensions serves them: defaulting, pruning, schema
 * and CEL rejections, subresources, generation, immutability of PetSetVersion specs.
 */
import type { JsonObject, Scenario } from "../types.js";
import {
  del,
  get,
  JSON_PATCH,
  MERGE_PATCH,
  patch,
  petSet,
  petSetVersion,
  petsets,
  post,
  put,
  STRATEGIC_PATCH,
  TABLE,
  versions,
} from "./helpers.js";

/** A PetSet whose spec was changed by `mutate`: the malformed ones must be rejected alike. */
function malformed(id: string, mutate: (spec: JsonObject) => void): Scenario {
  const ps = petSet("bad");
  mutate(ps.spec as JsonObject);
  return { id: `petset/invalid-${id}`, steps: [post("create", petsets(), ps, 422)] };
}

const template = (name: string) => (petSet(name).spec as JsonObject).template as JsonObject;

export const petSetScenarios: Scenario[] = [
  {
    id: "petset/create-defaults",
    steps: [post("create", petsets(), petSet("web")), get("get", petsets("web"))],
  },
  {
    id: "petset/prune-unknown-fields",
    steps: [
      post(
        "create",
        petsets(),
        {
          ...petSet("web", {
            bogus: 1,
            template: {
              metadata: { labels: { app: "web" }, bogus: "x" },
              spec: { containers: [{ name: "app", image: "nginx:1.27", bogus: true }] },
            },
          }),
          bogus: { a: 1 },
        },
        201,
        { headers: ["warning"] },
      ),
    ],
  },
  {
    id: "petset/field-validation-strict",
    steps: [
      post("create", petsets(), { ...petSet("web", { bogus: 1 }) }, 400, {
        query: { fieldValidation: "Strict" },
      }),
    ],
  },
  malformed("selector-mismatch", (s) => {
    s.selector = { matchLabels: { app: "db" } };
  }),
  malformed("empty-selector", (s) => {
    s.selector = {};
  }),
  malformed("max-unavailable-0", (s) => {
    s.updateStrategy = { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0 } };
  }),
  malformed("max-unavailable-0-percent", (s) => {
    s.updateStrategy = { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "0%" } };
  }),
  malformed("negative-replicas", (s) => {
    s.replicas = -1;
  }),
  malformed("unknown-enum", (s) => {
    s.podManagementPolicy = "Fast";
  }),
  malformed("container-without-name", (s) => {
    s.template = { metadata: { labels: { app: "bad" } }, spec: { containers: [{ image: "nginx:1.27" }] } };
  }),
  malformed("missing-template", (s) => {
    delete s.template;
  }),
  malformed("wrong-type", (s) => {
    s.replicas = "three";
  }),
  {
    id: "petset/selector-immutable",
    steps: [
      post("create", petsets(), petSet("web")),
      patch(
        "change-selector",
        petsets("web"),
        MERGE_PATCH,
        {
          spec: {
            selector: { matchLabels: { app: "web", tier: "x" } },
            template: { metadata: { labels: { app: "web", tier: "x" } } },
          },
        },
        422,
      ),
    ],
  },
  {
    id: "petset/generation",
    steps: [
      post("create", petsets(), petSet("web")),
      patch("labels-only", petsets("web"), MERGE_PATCH, { metadata: { labels: { a: "b" } } }),
      patch("spec-change", petsets("web"), MERGE_PATCH, { spec: { replicas: 3 } }),
      patch("status-change", petsets("web/status"), MERGE_PATCH, {
        status: { replicas: 3, observedGeneration: 2 },
      }),
      get("get", petsets("web")),
    ],
  },
  {
    id: "petset/status-subresource",
    steps: [
      post("create", petsets(), petSet("web"), 201, { save: { rv: "metadata.resourceVersion" } }),
      put(
        "status-put-ignores-spec",
        petsets("web/status"),
        {
          ...petSet("web", { replicas: 7 }, { resourceVersion: "{{rv}}" }),
          status: { replicas: 1, readyReplicas: 1, selector: "app=web" },
        },
        200,
        { save: { rv2: "metadata.resourceVersion" } },
      ),
      put("main-put-ignores-status", petsets("web"), {
        ...petSet("web", { replicas: 2 }, { resourceVersion: "{{rv2}}" }),
        status: { replicas: 9 },
      }),
      put("put-without-resource-version", petsets("web"), petSet("web", { replicas: 3 }), 422),
      get("get", petsets("web")),
    ],
  },
  {
    id: "petset/scale-subresource",
    steps: [
      post("create", petsets(), petSet("web", { replicas: 2 })),
      patch("status-selector", petsets("web/status"), MERGE_PATCH, {
        status: { replicas: 2, selector: "app=web" },
      }),
      get("get-scale", petsets("web/scale")),
      put("put-scale", petsets("web/scale"), {
        apiVersion: "autoscaling/v1",
        kind: "Scale",
        metadata: { name: "web" },
        spec: { replicas: 5 },
      }),
      patch("patch-scale", petsets("web/scale"), MERGE_PATCH, { spec: { replicas: 4 } }),
      get("get", petsets("web")),
      put(
        "put-scale-negative",
        petsets("web/scale"),
        { apiVersion: "autoscaling/v1", kind: "Scale", metadata: { name: "web" }, spec: { replicas: -1 } },
        422,
      ),
    ],
  },
  {
    id: "petset/strategic-patch-unsupported",
    steps: [
      post("create", petsets(), petSet("web")),
      patch("strategic", petsets("web"), STRATEGIC_PATCH, { spec: { replicas: 2 } }, 415),
    ],
  },
  {
    id: "petset/merge-patch",
    steps: [
      post("create", petsets(), petSet("web", {}, { labels: { a: "1", b: "2" } })),
      patch("patch", petsets("web"), MERGE_PATCH, {
        metadata: { labels: { a: null, c: "3" } },
        spec: {
          replicas: 2,
          paused: true,
          template: { spec: { containers: [{ name: "app", image: "nginx:1.28" }] } },
        },
      }),
    ],
  },
  {
    id: "petset/json-patch",
    steps: [
      post("create", petsets(), petSet("web")),
      patch("patch", petsets("web"), JSON_PATCH, [
        { op: "replace", path: "/spec/replicas", value: 4 },
        { op: "add", path: "/metadata/labels", value: { x: "y" } },
        { op: "add", path: "/spec/template/spec/containers/0/env", value: [{ name: "A", value: "1" }] },
        { op: "remove", path: "/spec/updateStrategy" },
      ]),
      patch(
        "patch-test-fails",
        petsets("web"),
        JSON_PATCH,
        [{ op: "test", path: "/spec/replicas", value: 1 }],
        422,
      ),
      patch("patch-missing-path", petsets("web"), JSON_PATCH, [{ op: "remove", path: "/spec/nothing" }], 422),
    ],
  },
  {
    id: "petset/dry-run",
    steps: [
      post("create", petsets(), petSet("web"), 201, { query: { dryRun: "All" } }),
      get("get", petsets("web"), 404),
    ],
  },
  {
    id: "petset/finalizers",
    steps: [
      post("create", petsets(), petSet("web", {}, { finalizers: ["petset.dev/test"] })),
      del("delete", petsets("web"), 200),
      get("get-terminating", petsets("web")),
      patch(
        "add-finalizer",
        petsets("web"),
        MERGE_PATCH,
        { metadata: { finalizers: ["petset.dev/test", "petset.dev/other"] } },
        422,
      ),
      patch("change-spec", petsets("web"), MERGE_PATCH, { spec: { replicas: 2 } }),
      patch("remove-finalizer", petsets("web"), MERGE_PATCH, { metadata: { finalizers: null } }),
      get("gone", petsets("web"), 404),
    ],
  },
  {
    id: "petset/table",
    steps: [
      post("create", petsets(), petSet("web", { replicas: 3 })),
      patch("status", petsets("web/status"), MERGE_PATCH, {
        status: {
          replicas: 3,
          readyReplicas: 2,
          ready: "2/3",
          currentVersion: 1,
          updateVersion: 2,
          updatedReplicas: 1,
        },
      }),
      get("table", petsets(), 200, { accept: TABLE }),
      get("table-one", petsets("web"), 200, { accept: TABLE }),
    ],
  },
  {
    id: "petsetversion/create-and-table",
    steps: [
      post("create", versions(), petSetVersion("web", 1)),
      get("get", versions("web-v1")),
      get("table", versions(), 200, { accept: TABLE }),
    ],
  },
  {
    id: "petsetversion/spec-immutable",
    steps: [
      post("create", versions(), petSetVersion("web", 1)),
      patch("change-spec", versions("web-v1"), MERGE_PATCH, { spec: { changeCause: "rewritten" } }, 422),
      patch(
        "change-template",
        versions("web-v1"),
        MERGE_PATCH,
        { spec: { template: template("other") } },
        422,
      ),
      patch("change-labels", versions("web-v1"), MERGE_PATCH, { metadata: { labels: { extra: "ok" } } }),
    ],
  },
  {
    // Rollout facts live in the status subresource: written there, spec untouched; the main
    // resource ignores status; a stale resourceVersion is a 409.
    id: "petsetversion/status-subresource",
    steps: [
      post("create", versions(), petSetVersion("web", 1), 201, { save: { rv: "metadata.resourceVersion" } }),
      patch("record-facts", versions("web-v1/status"), MERGE_PATCH, {
        metadata: { resourceVersion: "{{rv}}" },
        status: { observedAt: "2026-01-02T03:04:05.678Z", supersededBy: 2 },
      }),
      patch(
        "stale-resource-version",
        versions("web-v1/status"),
        MERGE_PATCH,
        { metadata: { resourceVersion: "{{rv}}" }, status: { completedAt: "2026-01-02T03:04:06Z" } },
        409,
      ),
      patch("status-ignores-spec", versions("web-v1/status"), MERGE_PATCH, {
        spec: { changeCause: "rewritten" },
        status: { completedAt: "2026-01-02T03:04:06Z" },
      }),
      patch("main-ignores-status", versions("web-v1"), MERGE_PATCH, {
        metadata: { labels: { extra: "ok" } },
        status: { rolledBackAt: "2026-01-02T03:04:07Z" },
      }),
      get("get", versions("web-v1")),
    ],
  },
  {
    id: "petsetversion/invalid",
    steps: [
      post(
        "create",
        versions(),
        { ...petSetVersion("web", 1), spec: { petSet: "web", version: 0, hash: "h" } },
        422,
      ),
    ],
  },
];
