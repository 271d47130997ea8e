/** The generic store through ConfigMaps and Namespaces: CRUD, conflicts, errors, dryRun. */
import type { Scenario } from "../types.js";
import { configMap, core, del, get, gone, MERGE_PATCH, patch, post, put, statusOnly } from "./helpers.js";

export const configMapScenarios: Scenario[] = [
  {
    id: "configmap/crud",
    steps: [
      post("create", core("configmaps"), configMap("c1", { a: "1" }, { labels: { x: "y" } }), 201, {
        save: { rv: "metadata.resourceVersion" },
      }),
      get("get", core("configmaps", "c1")),
      get("list", core("configmaps")),
      put("update", core("configmaps", "c1"), {
        ...configMap("c1", { a: "2", b: "3" }),
        metadata: { name: "c1", resourceVersion: "{{rv}}" },
      }),
      get("get-updated", core("configmaps", "c1")),
      del("delete", core("configmaps", "c1")),
      get("get-deleted", core("configmaps", "c1"), 404),
    ],
  },
  {
    id: "configmap/already-exists",
    steps: [
      post("create", core("configmaps"), configMap("dup")),
      post("create-again", core("configmaps"), configMap("dup", { other: "x" }), 409),
    ],
  },
  {
    id: "configmap/not-found",
    steps: [
      get("get", core("configmaps", "missing"), 404),
      del("delete", core("configmaps", "missing"), 404),
      put("update", core("configmaps", "missing"), configMap("missing"), 404),
    ],
  },
  {
    id: "configmap/stale-resource-version",
    steps: [
      post("create", core("configmaps"), configMap("c1"), 201, { save: { rv: "metadata.resourceVersion" } }),
      put("update", core("configmaps", "c1"), {
        ...configMap("c1", { a: "2" }),
        metadata: { name: "c1", resourceVersion: "{{rv}}" },
      }),
      put(
        "update-stale",
        core("configmaps", "c1"),
        { ...configMap("c1", { a: "3" }), metadata: { name: "c1", resourceVersion: "{{rv}}" } },
        409,
      ),
      put("update-unconditional", core("configmaps", "c1"), configMap("c1", { a: "4" })),
    ],
  },
  {
    id: "configmap/generate-name",
    steps: [
      post(
        "create",
        core("configmaps"),
        { apiVersion: "v1", kind: "ConfigMap", metadata: { generateName: "gen-" }, data: { a: "1" } },
        201,
        { save: { name: "metadata.name" } },
      ),
      get("get", core("configmaps", "{{name}}")),
    ],
  },
  {
    id: "configmap/empty-maps",
    steps: [
      post("create", core("configmaps"), configMap("c1", {}, { labels: {}, annotations: {} })),
      get("get", core("configmaps", "c1")),
    ],
  },
  {
    id: "configmap/invalid-name",
    steps: [post("create", core("configmaps"), configMap("Bad_Name"), 422)],
  },
  {
    id: "configmap/invalid-data-key",
    steps: [post("create", core("configmaps"), configMap("c1", { "bad key": "x" }), 422)],
  },
  {
    id: "configmap/namespace-mismatch",
    steps: [post("create", core("configmaps"), configMap("c1", { a: "1" }, { namespace: "elsewhere" }), 400)],
  },
  {
    id: "configmap/name-mismatch",
    steps: [
      post("create", core("configmaps"), configMap("c1")),
      put("update", core("configmaps", "c1"), configMap("c2"), 400),
    ],
  },
  {
    id: "configmap/immutable",
    steps: [
      post("create", core("configmaps"), { ...configMap("c1"), immutable: true }),
      put("update-data", core("configmaps", "c1"), { ...configMap("c1", { a: "2" }), immutable: true }, 422),
      put("update-labels", core("configmaps", "c1"), {
        ...configMap("c1", { a: "1" }, { labels: { l: "1" } }),
        immutable: true,
      }),
    ],
  },
  {
    id: "configmap/dry-run",
    steps: [
      post("create", core("configmaps"), configMap("c1"), 201, { query: { dryRun: "All" } }),
      get("get", core("configmaps", "c1"), 404),
      post("create-real", core("configmaps"), configMap("c1")),
      del("delete-dry", core("configmaps", "c1"), 200, { query: { dryRun: "All" } }),
      get("still-there", core("configmaps", "c1")),
    ],
  },
  {
    id: "configmap/delete-preconditions",
    steps: [
      post("create", core("configmaps"), configMap("c1")),
      {
        ...del("delete-wrong-uid", core("configmaps", "c1"), 409),
        body: {
          kind: "DeleteOptions",
          apiVersion: "v1",
          preconditions: { uid: "00000000-0000-0000-0000-000000000000" },
        },
      },
      {
        ...del("delete-wrong-rv", core("configmaps", "c1"), 409),
        body: { kind: "DeleteOptions", apiVersion: "v1", preconditions: { resourceVersion: "1" } },
      },
      del("delete", core("configmaps", "c1")),
    ],
  },
  {
    id: "configmap/malformed-json",
    steps: [{ ...get("create", core("configmaps"), 400), method: "POST", rawBody: "{not json" }],
  },
  {
    id: "namespace/lifecycle",
    steps: [
      post("create", "/api/v1/namespaces", {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: "{{ns}}-x" },
      }),
      get("get", "/api/v1/namespaces/{{ns}}-x"),
      // A finalizer on its content keeps the namespace Terminating on both servers until the
      // create below was refused (the embedded namespace controller empties a namespace in
      // milliseconds, kube's in seconds: without it the namespace could already be gone).
      post(
        "create-configmap",
        "/api/v1/namespaces/{{ns}}-x/configmaps",
        configMap("c1", { a: "1" }, { namespace: "{{ns}}-x", finalizers: ["example.com/hold"] }),
      ),
      del("delete", "/api/v1/namespaces/{{ns}}-x"),
      post(
        "create-in-terminating",
        "/api/v1/namespaces/{{ns}}-x/configmaps",
        configMap("c2", { a: "1" }, { namespace: "{{ns}}-x" }),
        403,
      ),
      patch(
        "release",
        "/api/v1/namespaces/{{ns}}-x/configmaps/c1",
        MERGE_PATCH,
        { metadata: { finalizers: null } },
        200,
        {
          compare: statusOnly(
            "whether the namespace controller already marked c1 deleted (deletionTimestamp, and so whether this update removes it) depends on each controller's timing",
          ),
        },
      ),
      gone("gone", "/api/v1/namespaces/{{ns}}-x"),
    ],
  },
  {
    id: "namespace/missing",
    steps: [
      post(
        "create-in-missing",
        "/api/v1/namespaces/{{ns}}-missing/configmaps",
        configMap("c1", { a: "1" }, { namespace: "{{ns}}-missing" }),
        404,
      ),
    ],
  },
];
