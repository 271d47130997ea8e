/**
 * /openapi/v3: the index (one entry per served group-version, with a content hash so
 * kubectl can cache), built-in documents from the committed JSON, and CRD documents from
 * the schema module, merged per group-version.
 */
import { createHash } from "node:crypto";
import { BUILTIN_OPENAPI_FILES, builtinOpenApiRaw } from "../builtin/openapi-docs.js";
import type { ResourceRegistry } from "../registry/resource-registry.js";
import { crdToOpenApiV3 } from "../schema/index.js";
import type { KubeObject } from "../types.js";
import { isPlainObject } from "../types.js";

type Obj = Record<string, unknown>;

export class OpenApiService {
  private cache = new Map<string, { body: string; hash: string; stamp: string }>();

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly crds: () => KubeObject[],
  ) {}

  /** Keys like `api/v1`, `apis/petset.dev/v1alpha1`. */
  private keys(): string[] {
    const out: string[] = [];
    for (const g of this.registry.groups())
      for (const v of this.registry.versions(g)) {
        const key = g ? `apis/${g}/${v}` : `api/${v}`;
        if (BUILTIN_OPENAPI_FILES[key] || this.crdsFor(g, v).length) out.push(key);
      }
    return out;
  }

  index(): unknown {
    const paths: Obj = {};
    for (const k of this.keys()) {
      const doc = this.document(k);
      if (doc) paths[k] = { serverRelativeURL: `/openapi/v3/${k}?hash=${doc.hash}` };
    }
    return { paths };
  }

  document(key: string): { body: string; hash: string } | undefined {
    const builtin = builtinOpenApiRaw(key);
    if (builtin !== undefined) return this.cached(key, "builtin", () => builtin);
    const m = /^apis\/([^/]+)\/([^/]+)$/.exec(key);
    if (!m) return undefined;
    const [, group, version] = m as unknown as [string, string, string];
    const crds = this.crdsFor(group, version);
    if (!crds.length) return undefined;
    const stamp = crds.map((c) => `${c.metadata.uid}@${c.metadata.resourceVersion}`).join(",");
    return this.cached(key, stamp, () => JSON.stringify(this.mergeCrdDocs(crds, group, version)));
  }

  private cached(key: string, stamp: string, build: () => string): { body: string; hash: string } {
    const hit = this.cache.get(key);
    if (hit && hit.stamp === stamp) return hit;
    const body = build();
    const hash = createHash("sha512").update(body).digest("hex").toUpperCase().slice(0, 128);
    const entry = { body, hash, stamp };
    this.cache.set(key, entry);
    return entry;
  }

  private crdsFor(group: string, version: string): KubeObject[] {
    return this.crds().filter((c) => {
      const spec = (c.spec ?? {}) as Obj;
      const versions = Array.isArray(spec.versions) ? (spec.versions as Obj[]) : [];
      return spec.group === group && versions.some((v) => v.name === version && v.served !== false);
    });
  }

  private mergeCrdDocs(crds: KubeObject[], group: string, version: string): Obj {
    const out: Obj = {
      openapi: "3.0.0",
      info: { title: "Kubernetes CRD Swagger", version: "v0.1.0" },
      paths: {},
      components: { schemas: {} },
    };
    for (const crd of crds) {
      const doc = crdToOpenApiV3(crd, version);
      const paths = isPlainObject(doc.paths) ? doc.paths : {};
      Object.assign(out.paths as Obj, paths);
      const comps = isPlainObject(doc.components) ? doc.components : {};
      if (isPlainObject(comps.schemas))
        Object.assign((out.components as { schemas: Obj }).schemas, comps.schemas);
      if (Object.keys(paths).length === 0) Object.assign(out.paths as Obj, minimalPaths(crd, group, version));
    }
    return out;
  }
}

/** PATCH operations advertising fieldValidation, so kubectl validates server-side. */
function minimalPaths(crd: KubeObject, group: string, version: string): Obj {
  const spec = (crd.spec ?? {}) as Obj;
  const names = (spec.names ?? {}) as Obj;
  const gvk = [{ group, version, kind: names.kind }];
  const base =
    spec.scope === "Cluster"
      ? `/apis/${group}/${version}`
      : `/apis/${group}/${version}/namespaces/{namespace}`;
  const param = (name: string) => ({ name, in: "query", schema: { type: "string", uniqueItems: true } });
  const op = (action: string) => ({
    "x-kubernetes-action": action,
    "x-kubernetes-group-version-kind": gvk[0],
    parameters: [param("dryRun"), param("fieldManager"), param("fieldValidation")],
    responses: { "200": { description: "OK" } },
  });
  return {
    [`${base}/${names.plural}`]: { post: op("post") },
    [`${base}/${names.plural}/{name}`]: { put: op("put"), patch: op("patch") },
  };
}
