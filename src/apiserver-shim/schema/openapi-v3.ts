/**
 * The OpenAPI v3 document kube-apiserver publishes for a CRD version at
 * /openapi/v3/apis/<group>/<version>: the kind and list schemas under
 * `<reversed group>.<version>.<Kind>` (with `x-kubernetes-group-version-kind`, metadata as a
 * reference to ObjectMeta), the apimachinery schemas they reference, and the resource's paths
 * with the query parameters kubectl looks for (`fieldValidation` tells kubectl the server
 * validates fields, so it does not fall back to client-side validation).
 */

import {
  DELETE_OPTIONS,
  LIST_META,
  metaComponentSchemas,
  OBJECT_META,
  PATCH,
  REF,
  SCALE,
  STATUS,
} from "./meta-schemas.js";
import { cloneJson, isRecord } from "./structural.js";

type Schema = Record<string, unknown>;

const API_VERSION_DESCRIPTION =
  "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";
const KIND_DESCRIPTION =
  "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";
const METADATA_DESCRIPTION =
  "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const LIST_METADATA_DESCRIPTION =
  "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#lists-and-slices";

interface CrdNames {
  group: string;
  kind: string;
  listKind: string;
  plural: string;
  namespaced: boolean;
}

function names(crd: unknown): CrdNames {
  const spec = isRecord(crd) && isRecord(crd.spec) ? crd.spec : {};
  const n = isRecord(spec.names) ? spec.names : {};
  const kind = typeof n.kind === "string" ? n.kind : "";
  return {
    group: typeof spec.group === "string" ? spec.group : "",
    kind,
    listKind: typeof n.listKind === "string" ? n.listKind : `${kind}List`,
    plural: typeof n.plural === "string" ? n.plural : `${kind.toLowerCase()}s`,
    namespaced: spec.scope !== "Cluster",
  };
}

const reversedGroup = (group: string): string => group.split(".").reverse().join(".");

/** Adds apiVersion/kind/metadata to the resource root and every embedded resource. */
function withResourceFields(s: Schema): Schema {
  const props = isRecord(s.properties) ? s.properties : {};
  const api = isRecord(props.apiVersion) ? props.apiVersion : {};
  const kind = isRecord(props.kind) ? props.kind : {};
  return {
    ...s,
    type: "object",
    properties: {
      ...props,
      apiVersion: { type: "string", description: API_VERSION_DESCRIPTION, ...api },
      kind: { type: "string", description: KIND_DESCRIPTION, ...kind },
      metadata: { allOf: [REF(OBJECT_META)], description: METADATA_DESCRIPTION },
    },
  };
}

function publishSchema(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(publishSchema);
  if (!isRecord(s)) return s;
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === "default" || k === "enum" || k === "example" || k === "x-kubernetes-validations")
      out[k] = cloneJson(v);
    else if (k === "properties" && isRecord(v))
      out[k] = Object.fromEntries(Object.entries(v).map(([p, ps]) => [p, publishSchema(ps)]));
    else out[k] = publishSchema(v);
  }
  return out["x-kubernetes-embedded-resource"] === true ? withResourceFields(out) : out;
}

function versionOf(crd: unknown, version: string): Schema | undefined {
  const spec = isRecord(crd) && isRecord(crd.spec) ? crd.spec : {};
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  return versions.find((v): v is Schema => isRecord(v) && v.name === version);
}

const query = (
  name: string,
  description: string,
  type: "string" | "boolean" | "integer" = "string",
): Schema => ({
  name,
  in: "query",
  description,
  schema: { type, uniqueItems: true },
});
const PRETTY = query("pretty", "If 'true', then the output is pretty printed.");
const DRY_RUN = query(
  "dryRun",
  "When present, indicates that modifications should not be persisted. Valid value: All",
);
const FIELD_MANAGER = query(
  "fieldManager",
  "fieldManager is a name associated with the actor or entity that is making these changes.",
);
const FIELD_VALIDATION = query(
  "fieldValidation",
  "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore - Warn - Strict",
);
const WRITE_PARAMS = [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION];
const LIST_PARAMS = [
  query("allowWatchBookmarks", 'allowWatchBookmarks requests watch events with type "BOOKMARK".', "boolean"),
  query("continue", "The continue option should be set when retrieving more results from the server."),
  query("fieldSelector", "A selector to restrict the list of returned objects by their fields."),
  query("labelSelector", "A selector to restrict the list of returned objects by their labels."),
  query("limit", "limit is a maximum number of responses to return for a list call.", "integer"),
  query(
    "resourceVersion",
    "resourceVersion sets a constraint on what resource versions a request may be served from.",
  ),
  query(
    "resourceVersionMatch",
    "resourceVersionMatch determines how resourceVersion is applied to list calls.",
  ),
  query("sendInitialEvents", "`sendInitialEvents=true` may be set together with `watch=true`.", "boolean"),
  query("timeoutSeconds", "Timeout for the list/watch call.", "integer"),
  query(
    "watch",
    "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.",
    "boolean",
  ),
];
const PATH_PARAM = (name: string, description: string): Schema => ({
  name,
  in: "path",
  description,
  required: true,
  schema: { type: "string", uniqueItems: true },
});

const json = (ref: string): Schema => ({
  content: Object.fromEntries(["application/json", "application/yaml"].map((t) => [t, { schema: REF(ref) }])),
});
const ok = (ref: string, codes: string[] = ["200"]): Schema => ({
  responses: {
    ...Object.fromEntries(
      codes.map((c) => [
        c,
        { description: c === "201" ? "Created" : c === "202" ? "Accepted" : "OK", ...json(ref) },
      ]),
    ),
    "401": { description: "Unauthorized" },
  },
});
const PATCH_BODY: Schema = {
  required: true,
  content: Object.fromEntries(
    ["application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"].map(
      (t) => [t, { schema: REF(PATCH) }],
    ),
  ),
};

export function crdToOpenApiV3(crd: unknown, version: string): Record<string, unknown> {
  const n = names(crd);
  const v = versionOf(crd, version);
  const raw =
    v && isRecord(v.schema) && isRecord(v.schema.openAPIV3Schema)
      ? v.schema.openAPIV3Schema
      : { type: "object" };
  const prefix = `${reversedGroup(n.group)}.${version}`;
  const kindName = `${prefix}.${n.kind}`;
  const listName = `${prefix}.${n.listKind}`;
  const gvk = (kind: string): Schema[] => [{ group: n.group, kind, version }];
  const kindSchema = {
    ...withResourceFields(publishSchema(raw) as Schema),
    "x-kubernetes-group-version-kind": gvk(n.kind),
  };
  const listSchema: Schema = {
    description: `${n.listKind} is a list of ${n.kind}`,
    type: "object",
    required: ["items"],
    properties: {
      apiVersion: { type: "string", description: API_VERSION_DESCRIPTION },
      items: {
        type: "array",
        description: `List of ${n.plural}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`,
        items: REF(kindName),
      },
      kind: { type: "string", description: KIND_DESCRIPTION },
      metadata: { allOf: [REF(LIST_META)], description: LIST_METADATA_DESCRIPTION },
    },
    "x-kubernetes-group-version-kind": gvk(n.listKind),
  };
  const subresources = v && isRecord(v.subresources) ? v.subresources : {};
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes CRD Swagger", version: "v0.1.0" },
    paths: paths(n, version, kindName, listName, "status" in subresources, "scale" in subresources),
    components: {
      schemas: { ...metaComponentSchemas(), [kindName]: kindSchema, [listName]: listSchema },
    },
  };
}

function paths(
  n: CrdNames,
  version: string,
  kindName: string,
  listName: string,
  status: boolean,
  scale: boolean,
): Schema {
  const base = `/apis/${n.group}/${version}`;
  const scoped = n.namespaced ? `${base}/namespaces/{namespace}/${n.plural}` : `${base}/${n.plural}`;
  const idKind = `${n.group.split(/[.-]/).map(cap).join("")}${cap(version)}${n.namespaced ? "Namespaced" : ""}${n.kind}`;
  const gvk = { group: n.group, version, kind: n.kind };
  const op = (action: string, id: string, extra: Schema): Schema => ({
    tags: [`${n.group.split(".").map(cap).join("")}_${version}`],
    operationId: `${id}${idKind}`,
    "x-kubernetes-action": action,
    "x-kubernetes-group-version-kind": gvk,
    ...extra,
  });
  const common = (named: boolean): Schema[] => [
    ...(named ? [PATH_PARAM("name", `name of the ${n.kind}`)] : []),
    ...(n.namespaced
      ? [PATH_PARAM("namespace", "object name and auth scope, such as for teams and projects")]
      : []),
    PRETTY,
  ];
  const body = (ref: string): Schema => ({ required: true, ...json(ref) });
  const itemOps = (ref: string, suffix: string): Schema => ({
    get: op("get", `read${suffix}`, ok(ref)),
    put: op("put", `replace${suffix}`, {
      parameters: WRITE_PARAMS,
      requestBody: body(ref),
      ...ok(ref, ["200", "201"]),
    }),
    patch: op("patch", `patch${suffix}`, {
      parameters: [...WRITE_PARAMS, query("force", 'Force is going to "force" Apply requests.', "boolean")],
      requestBody: PATCH_BODY,
      ...ok(ref, ["200", "201"]),
    }),
    parameters: common(true),
  });
  const out: Schema = {
    [scoped]: {
      get: op("list", "list", { parameters: LIST_PARAMS, ...ok(listName) }),
      post: op("post", "create", {
        parameters: WRITE_PARAMS,
        requestBody: body(kindName),
        ...ok(kindName, ["200", "201", "202"]),
      }),
      delete: op("deletecollection", "deleteCollection", {
        parameters: [...LIST_PARAMS, DRY_RUN],
        requestBody: { content: { "application/json": { schema: REF(DELETE_OPTIONS) } } },
        ...ok(STATUS),
      }),
      parameters: common(false),
    },
    [`${scoped}/{name}`]: {
      ...itemOps(kindName, ""),
      delete: op("delete", "delete", {
        parameters: [
          DRY_RUN,
          query(
            "gracePeriodSeconds",
            "The duration in seconds before the object should be deleted.",
            "integer",
          ),
          query("propagationPolicy", "Whether and how garbage collection will be performed."),
        ],
        requestBody: { content: { "application/json": { schema: REF(DELETE_OPTIONS) } } },
        ...ok(STATUS, ["200", "202"]),
      }),
    },
  };
  if (status) out[`${scoped}/{name}/status`] = itemOps(kindName, "Status");
  if (scale) out[`${scoped}/{name}/scale`] = itemOps(SCALE, "Scale");
  if (n.namespaced) {
    out[`${base}/${n.plural}`] = {
      get: {
        ...op("list", "list", { parameters: LIST_PARAMS, ...ok(listName) }),
        operationId: `list${idKind.replace("Namespaced", "")}ForAllNamespaces`,
      },
      parameters: [PRETTY],
    };
  }
  return out;
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
