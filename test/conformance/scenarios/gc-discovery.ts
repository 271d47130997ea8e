/**
 * Garbage collection through ownerReferences (polled until both collectors converge),
 * discovery, the OpenAPI v3 index, and Table output of ConfigMaps.
 */
import { isObject } from "../normalize.js";
import type { Json, JsonObject, Scenario } from "../types.js";
import {
  because,
  configMap,
  core,
  del,
  get,
  gone,
  ownerRef,
  petSet,
  petSetVersion,
  petsets,
  pick,
  post,
  TABLE,
  versions,
} from "./helpers.js";

const dependent = (name: string, owner: string, extra: JsonObject = {}) =>
  configMap(name, { a: "1" }, { ownerReferences: [ownerRef("v1", "ConfigMap", owner, "ownerUid", extra)] });

const saveUid = { save: { ownerUid: "metadata.uid" } };

/** Projection of a discovery document to the keys that matter to clients. */
const openApiIndex = because(
  "the index lists every group the server serves (the shim serves fewer) and the hash in each URL is of that server's own document",
  (body: Json): Json => {
    if (!isObject(body) || !isObject(body.paths)) return body;
    const wanted = [
      "api/v1",
      "apis/petset.dev/v1alpha1",
      "apis/coordination.k8s.io/v1",
      "apis/events.k8s.io/v1",
    ];
    return Object.fromEntries(
      wanted.map((k) => {
        const entry = (body.paths as JsonObject)[k];
        const url =
          isObject(entry) && typeof entry.serverRelativeURL === "string" ? entry.serverRelativeURL : "";
        return [k, url.replace(/hash=[0-9A-F]+/i, "hash=<hash>")];
      }),
    );
  },
);

/** The core/v1 resources both servers serve, compared whole. */
const servedCoreResources = because(
  "the shim serves a subset of core/v1 (no replicationcontrollers, endpoints, limitranges, ...): the entries of the resources it serves are compared whole",
  (body: Json): Json => {
    if (!isObject(body) || !Array.isArray(body.resources)) return body;
    const keep = new Set([
      "pods",
      "pods/status",
      "pods/binding",
      "configmaps",
      "events",
      "namespaces",
      "namespaces/status",
      "persistentvolumeclaims",
      "services",
    ]);
    return body.resources.filter((r) => isObject(r) && keep.has(String(r.name)));
  },
);

/** A resource list with each resource (and its subresources, in their order) sorted by name. */
const byResource = because(
  "kube's CRD discovery lists a group's resources in the order of its CRD informer's cache, which varies from run to run",
  (body: Json): Json => {
    if (!isObject(body) || !Array.isArray(body.resources)) return body;
    const top = (r: Json) => (isObject(r) ? String(r.name).split("/")[0]! : "");
    const resources = body.resources
      .map((r, i) => ({ r, i }))
      .sort((a, b) => (top(a.r) < top(b.r) ? -1 : top(a.r) > top(b.r) ? 1 : a.i - b.i))
      .map((x) => x.r);
    return { ...body, resources };
  },
);

/** What of the PetSet OpenAPI v3 document clients use: the PetSet types and their GVK. */
const petSetOpenApi = because(
  "the document also holds every type the petset.dev schemas reference, as each server's OpenAPI builder names and orders them",
  (b: Json): Json => {
    const schemas =
      isObject(b) && isObject(b.components) && isObject(b.components.schemas) ? b.components.schemas : {};
    const ps = schemas["dev.petset.v1alpha1.PetSet"];
    return {
      hasPetSet: isObject(ps),
      hasList: isObject(schemas["dev.petset.v1alpha1.PetSetList"]),
      gvk: isObject(ps) ? (ps["x-kubernetes-group-version-kind"] ?? null) : null,
    };
  },
);

export const gcDiscoveryScenarios: Scenario[] = [
  {
    id: "gc/background",
    steps: [
      post("owner", core("configmaps"), configMap("owner"), 201, saveUid),
      post("dependent", core("configmaps"), dependent("dep", "owner")),
      del("delete-owner", core("configmaps", "owner"), 200, { query: { propagationPolicy: "Background" } }),
      gone("dependent-gone", core("configmaps", "dep")),
    ],
  },
  {
    id: "gc/orphan",
    steps: [
      post("owner", core("configmaps"), configMap("owner"), 201, saveUid),
      post("dependent", core("configmaps"), dependent("dep", "owner")),
      del("delete-owner", core("configmaps", "owner"), 200, { query: { propagationPolicy: "Orphan" } }),
      gone("owner-gone", core("configmaps", "owner")),
      get("dependent-orphaned", core("configmaps", "dep"), 200, {
        until: {
          check: (r) => isObject(r.body) && isObject(r.body.metadata) && !r.body.metadata.ownerReferences,
        },
      }),
    ],
  },
  {
    id: "gc/foreground",
    steps: [
      post("owner", core("configmaps"), configMap("owner"), 201, saveUid),
      post("dependent", core("configmaps"), dependent("dep", "owner", { blockOwnerDeletion: true })),
      del("delete-owner", core("configmaps", "owner"), 200, { query: { propagationPolicy: "Foreground" } }),
      gone("dependent-gone", core("configmaps", "dep")),
      gone("owner-gone", core("configmaps", "owner")),
    ],
  },
  {
    id: "gc/foreground-body-options",
    steps: [
      post("owner", core("configmaps"), configMap("owner"), 201, saveUid),
      post("dependent", core("configmaps"), dependent("dep", "owner", { blockOwnerDeletion: true })),
      {
        ...del("delete-owner", core("configmaps", "owner"), 200),
        body: { kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Foreground" },
      },
      gone("owner-gone", core("configmaps", "owner")),
      get("dependent-gone-first", core("configmaps", "dep"), 404),
    ],
  },
  {
    // HTTP fuzz finding: a bad propagationPolicy in the body answered 400 here, 422 on kube.
    id: "delete/bad-body-propagation-policy",
    steps: [
      post("owner", core("configmaps"), configMap("owner"), 201),
      {
        ...del("delete-bogus", core("configmaps", "owner"), 422),
        body: { kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Bogus" },
      },
      get("still-there", core("configmaps", "owner")),
    ],
  },
  {
    id: "gc/petset-owns-versions",
    steps: [
      post("petset", petsets(), petSet("web"), 201, saveUid),
      post(
        "version",
        versions(),
        petSetVersion("web", 1, {
          ownerReferences: [
            ownerRef("petset.dev/v1alpha1", "PetSet", "web", "ownerUid", {
              controller: true,
              blockOwnerDeletion: true,
            }),
          ],
        }),
      ),
      del("delete-petset", petsets("web")),
      gone("version-gone", versions("web-v1")),
    ],
  },
  {
    id: "gc/missing-owner",
    steps: [
      post("dependent", core("configmaps"), {
        ...configMap("dep"),
        metadata: {
          name: "dep",
          ownerReferences: [
            {
              apiVersion: "v1",
              kind: "ConfigMap",
              name: "ghost",
              uid: "11111111-2222-3333-4444-555555555555",
            },
          ],
        },
      }),
      gone("dependent-gone", core("configmaps", "dep")),
    ],
  },
  {
    id: "table/configmaps",
    steps: [
      post("create", core("configmaps"), configMap("c1", { a: "1", b: "2" })),
      get("table", core("configmaps"), 200, { accept: TABLE }),
      get("table-object", core("configmaps"), 200, { accept: TABLE, query: { includeObject: "Object" } }),
      get("table-missing", core("configmaps", "nope"), 404, { accept: TABLE }),
    ],
  },
  {
    id: "discovery/api",
    steps: [
      get("api", "/api", 200, {
        compare: because("serverAddressByClientCIDRs is each server's own address", pick("kind", "versions")),
      }),
    ],
  },
  {
    id: "discovery/api-v1",
    steps: [get("api-v1", "/api/v1", 200, { compare: servedCoreResources })],
  },
  {
    id: "discovery/petset-group",
    steps: [
      get("group", "/apis/petset.dev"),
      get("resources", "/apis/petset.dev/v1alpha1", 200, { compare: byResource }),
      get("missing-version", "/apis/petset.dev/v9", 404),
    ],
  },
  {
    id: "discovery/openapi-v3-index",
    steps: [get("index", "/openapi/v3", 200, { compare: openApiIndex })],
  },
  {
    id: "discovery/openapi-v3-petset",
    steps: [
      get("petset", "/openapi/v3/apis/petset.dev/v1alpha1", 200, {
        compare: petSetOpenApi,
      }),
    ],
  },
  {
    id: "discovery/version",
    steps: [
      get("version", "/version", 200, {
        compare: because(
          "gitVersion, gitCommit, buildDate, goVersion and platform describe each server's build",
          pick("major", "minor"),
        ),
      }),
    ],
  },
  {
    id: "discovery/unknown-group",
    steps: [get("unknown", "/apis/nope.example.com/v1", 404), get("unknown-resource", core("nopes"), 404)],
  },
];
