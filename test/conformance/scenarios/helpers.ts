/** Builders that keep the scenario tables short: paths, objects and steps. */
import { isObject } from "../normalize.js";
import type { Json, JsonObject, Projection, Step, StepResponse } from "../types.js";

export const JSON_PATCH = "application/json-patch+json";
export const MERGE_PATCH = "application/merge-patch+json";
export const STRATEGIC_PATCH = "application/strategic-merge-patch+json";
export const APPLY_PATCH = "application/apply-patch+yaml";
export const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";

/** Namespaced paths, `{{ns}}` being the scenario's namespace. */
export const core = (resource: string, name = "") =>
  `/api/v1/namespaces/{{ns}}/${resource}${name ? `/${name}` : ""}`;
export const group = (gv: string, resource: string, name = "") =>
  `/apis/${gv}/namespaces/{{ns}}/${resource}${name ? `/${name}` : ""}`;
export const petsets = (name = "") => group("petset.dev/v1alpha1", "petsets", name);
export const versions = (name = "") => group("petset.dev/v1alpha1", "petsetversions", name);

type Extra = Partial<Step>;

export const post = (name: string, path: string, body: Json, expect = 201, extra: Extra = {}): Step => ({
  name,
  method: "POST",
  path,
  body,
  expect,
  ...extra,
});
export const get = (name: string, path: string, expect = 200, extra: Extra = {}): Step => ({
  name,
  method: "GET",
  path,
  expect,
  ...extra,
});
export const put = (name: string, path: string, body: Json, expect = 200, extra: Extra = {}): Step => ({
  name,
  method: "PUT",
  path,
  body,
  expect,
  ...extra,
});
export const patch = (
  name: string,
  path: string,
  contentType: string,
  body: Json,
  expect = 200,
  extra: Extra = {},
): Step => ({ name, method: "PATCH", path, contentType, body, expect, ...extra });
export const del = (name: string, path: string, expect = 200, extra: Extra = {}): Step => ({
  name,
  method: "DELETE",
  path,
  expect,
  ...extra,
});
/** Server-side apply as `manager`. */
export const apply = (
  name: string,
  path: string,
  manager: string,
  body: Json,
  expect = 200,
  extra: Extra = {},
): Step =>
  patch(name, path, APPLY_PATCH, body, expect, {
    ...extra,
    query: { fieldManager: manager, ...(extra.query ?? {}) },
  });

/** Polls until the object is gone (status 404). */
export const gone = (name: string, path: string): Step =>
  get(name, path, 404, { until: { check: (r) => r.status === 404 } });

export function configMap(name: string, data: JsonObject = { a: "1" }, meta: JsonObject = {}): JsonObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...meta }, data };
}

/** A pod no scheduler picks up and no kubelet runs, so it stays as the API server wrote it. */
export function pod(name: string, spec: JsonObject = {}, meta: JsonObject = {}): JsonObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, labels: { app: name }, ...meta },
    spec: {
      schedulerName: "conformance-none",
      automountServiceAccountToken: false,
      containers: [{ name: "app", image: "nginx:1.27" }],
      ...spec,
    },
  };
}

export function petSet(name: string, spec: JsonObject = {}, meta: JsonObject = {}): JsonObject {
  return {
    apiVersion: "petset.dev/v1alpha1",
    kind: "PetSet",
    metadata: { name, ...meta },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: "app", image: "nginx:1.27" }] },
      },
      ...spec,
    },
  };
}

export function petSetVersion(petSetName: string, version: number, meta: JsonObject = {}): JsonObject {
  return {
    apiVersion: "petset.dev/v1alpha1",
    kind: "PetSetVersion",
    metadata: {
      name: `${petSetName}-v${version}`,
      labels: { "petset.dev/petset": petSetName, "petset.dev/version": String(version) },
      ...meta,
    },
    spec: {
      petSet: petSetName,
      version,
      generation: version,
      hash: `h${version}`,
      template: {
        metadata: { labels: { app: petSetName } },
        spec: { containers: [{ name: "app", image: `nginx:1.${26 + version}` }] },
      },
      changeCause: `version ${version}`,
    },
  };
}

/** An ownerReference to an object whose uid was saved as `{{<uidVar>}}`. */
export function ownerRef(
  apiVersion: string,
  kind: string,
  name: string,
  uidVar: string,
  extra: JsonObject = {},
) {
  return { apiVersion, kind, name, uid: `{{${uidVar}}}`, ...extra };
}

/** A projection with the reason the rest of the body may differ (see `Projection`). */
export function because(why: string, project: (body: Json) => Json): Projection {
  return { why, project };
}

/** Compares the status code only: the body is left out, for the reason given. */
export function statusOnly(why: string): Projection {
  return { why, project: () => null };
}

/** Projection: the names of a list's items, in order. */
export function itemNames(body: Json): Json {
  if (!isObject(body) || !Array.isArray(body.items)) return body;
  return body.items.map((i) => (isObject(i) && isObject(i.metadata) ? (i.metadata.name ?? null) : null));
}

/** Projection: picks dotted paths of the body (missing ones as null). */
export function pick(...paths: string[]): (body: Json) => Json {
  return (body) =>
    Object.fromEntries(
      paths.map((p) => {
        let v: Json | undefined = body;
        for (const k of p.split(".")) v = Array.isArray(v) ? v[Number(k)] : isObject(v) ? v[k] : undefined;
        return [p, v ?? null];
      }),
    );
}

/** Watch events as `TYPE name`, for sequences where the objects themselves are compared elsewhere. */
export function eventTypes(body: Json): Json {
  if (!Array.isArray(body)) return body;
  return body.map((e) => (isObject(e) ? (e.type ?? null) : null));
}

export const status = (r: StepResponse) => r.status;
