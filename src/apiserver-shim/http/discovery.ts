/**
 * Discovery: legacy (/api, /apis, /apis/<g>, /api[s]/<gv>) and aggregated
 * (apidiscovery.k8s.io v2/v2beta1, what kubectl 1.30+ asks for first).
 */
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { ResourceDefinition } from "../registry/resource.js";
import { STANDARD_VERBS } from "../registry/resource.js";
import type { ResourceRegistry } from "../registry/resource-registry.js";

interface SubresourceInfo {
  name: string;
  kind: { group: string; version: string; kind: string };
  verbs: string[];
}

function subresources(def: ResourceDefinition): SubresourceInfo[] {
  const own = { group: def.group, version: def.version, kind: def.kind };
  const out: SubresourceInfo[] = [];
  if (def.status) out.push({ name: "status", kind: own, verbs: ["get", "patch", "update"] });
  if (def.scale)
    out.push({
      name: "scale",
      kind: { group: "autoscaling", version: "v1", kind: "Scale" },
      verbs: ["get", "patch", "update"],
    });
  for (const s of def.extraSubresources ?? []) {
    if (s === "binding")
      out.push({ name: s, kind: { group: "", version: "v1", kind: "Binding" }, verbs: ["create"] });
    if (s === "finalize") out.push({ name: s, kind: own, verbs: ["update"] });
    if (s === "resize") out.push({ name: s, kind: own, verbs: ["get", "patch", "update"] });
  }
  return out;
}

const verbsOf = (def: ResourceDefinition) => def.verbs ?? STANDARD_VERBS;

/** Resources kube stores at another version than the shim (CRDs stay v1beta1 in etcd). */
const KUBE_STORAGE_VERSIONS: Record<string, string> = {
  "apiextensions.k8s.io/customresourcedefinitions": "v1beta1",
};

/**
 * kube's storageversionhash.StorageVersionHash: the first 8 bytes of sha256 of
 * `group/version/kind` at the storage version (a shared storage's: events.k8s.io Events are
 * stored as core Events), base64.
 */
export function storageVersionHash(d: ResourceDefinition): string {
  const group = d.storage ? d.storage.group : d.group;
  const version = d.storage ? "v1" : (KUBE_STORAGE_VERSIONS[`${group}/${d.resource}`] ?? d.storageVersion);
  const gvk = `${group}/${version}/${d.kind}`;
  return createHash("sha256").update(gvk).digest().subarray(0, 8).toString("base64");
}

function legacyResources(defs: ResourceDefinition[]): unknown[] {
  const out: unknown[] = [];
  for (const d of defs.sort((a, b) => a.resource.localeCompare(b.resource))) {
    out.push({
      name: d.resource,
      singularName: d.singular,
      namespaced: d.namespaced,
      kind: d.kind,
      verbs: verbsOf(d),
      ...(d.shortNames ? { shortNames: d.shortNames } : {}),
      ...(d.categories ? { categories: d.categories } : {}),
      storageVersionHash: storageVersionHash(d),
    });
    // kube lists a built-in's subresources by name (pods/binding before pods/status), a
    // custom resource's as its CRD discovery controller adds them: status, then scale.
    const subs = subresources(d);
    if (d.strategicMerge) subs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const s of subs)
      out.push({
        name: `${d.resource}/${s.name}`,
        singularName: "",
        namespaced: d.namespaced,
        ...(s.kind.group !== d.group || s.kind.version !== d.version
          ? { group: s.kind.group, version: s.kind.version }
          : {}),
        kind: s.kind.kind,
        verbs: s.verbs,
      });
  }
  return out;
}

export function resourceList(registry: ResourceRegistry, group: string, version: string): unknown {
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: group ? `${group}/${version}` : version,
    resources: legacyResources(registry.resources(group, version)),
  };
}

export function apiVersions(serverAddress: string): unknown {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }],
  };
}

function apiGroup(registry: ResourceRegistry, group: string): Record<string, unknown> {
  const versions = registry.versions(group).map((v) => ({ groupVersion: `${group}/${v}`, version: v }));
  return { name: group, versions, preferredVersion: versions[0] };
}

export function apiGroupList(registry: ResourceRegistry): unknown {
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: registry
      .groups()
      .filter((g) => g !== "")
      .map((g) => apiGroup(registry, g)),
  };
}

export function apiGroupDoc(registry: ResourceRegistry, group: string): unknown | undefined {
  if (!registry.versions(group).length) return undefined;
  return { kind: "APIGroup", apiVersion: "v1", ...apiGroup(registry, group) };
}

/** The Accept value to answer with, when the client asked for aggregated discovery. */
export function aggregatedDiscoveryType(req: IncomingMessage): string | undefined {
  for (const clause of (req.headers.accept ?? "").split(",")) {
    const params = clause.split(";").map((p) => p.trim());
    const get = (k: string) => params.find((p) => p.startsWith(`${k}=`))?.slice(k.length + 1);
    if (
      get("g") === "apidiscovery.k8s.io" &&
      get("as") === "APIGroupDiscoveryList" &&
      (get("v") === "v2" || get("v") === "v2beta1")
    )
      return `application/json;g=apidiscovery.k8s.io;v=${get("v")};as=APIGroupDiscoveryList`;
  }
  return undefined;
}

function discoveryResource(d: ResourceDefinition): Record<string, unknown> {
  const subs = subresources(d).map((s) => ({ subresource: s.name, responseKind: s.kind, verbs: s.verbs }));
  return {
    resource: d.resource,
    responseKind: { group: d.group, version: d.version, kind: d.kind },
    scope: d.namespaced ? "Namespaced" : "Cluster",
    singularResource: d.singular,
    verbs: verbsOf(d),
    ...(d.shortNames ? { shortNames: d.shortNames } : {}),
    ...(d.categories ? { categories: d.categories } : {}),
    ...(subs.length ? { subresources: subs } : {}),
  };
}

/** APIGroupDiscoveryList for /api (core only) or /apis (every other group). */
export function aggregatedDiscovery(registry: ResourceRegistry, core: boolean, version: string): unknown {
  const groups = registry.groups().filter((g) => (core ? g === "" : g !== ""));
  return {
    kind: "APIGroupDiscoveryList",
    apiVersion: `apidiscovery.k8s.io/${version}`,
    metadata: {},
    items: groups.map((g) => ({
      metadata: g ? { name: g } : {},
      versions: registry.versions(g).map((v) => ({
        version: v,
        resources: registry
          .resources(g, v)
          .sort((a, b) => a.resource.localeCompare(b.resource))
          .map(discoveryResource),
        freshness: "Current",
      })),
    })),
  };
}
