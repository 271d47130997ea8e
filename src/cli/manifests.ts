/** Reading YAML manifests and applying them through client-node (CRDs, examples). */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  ApiextensionsV1Api,
  type KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  loadYaml,
  type V1CustomResourceDefinition,
} from "@kubernetes/client-node";
import { parseAllDocuments } from "yaml";
import { z } from "zod";
import { isAlreadyExists } from "../controller/api-errors.js";
import { withLastApplied } from "./last-applied.js";

const ManifestSchema = z.looseObject({
  apiVersion: z.string(),
  kind: z.string(),
  metadata: z.looseObject({ name: z.string(), namespace: z.string().optional() }),
});

/** The package root: two levels above dist/src/cli (or src/cli when run from sources). */
export function packageRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const up = resolve(here, "..", "..");
  return up.endsWith("dist") ? resolve(up, "..") : up;
}

/** A manifest as read from its file (plain JSON data, as kubectl reads it). */
export type Manifest = z.infer<typeof ManifestSchema>;

/** Every object in the .yaml/.yml/.json files of `path` (a file or a folder), in file order. */
export function readManifests(path: string): Manifest[] {
  const files = statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((f) => /\.(ya?ml|json)$/.test(f))
        .sort()
        .map((f) => join(path, f))
    : [path];
  const out: Manifest[] = [];
  for (const file of files) {
    for (const doc of parseAllDocuments(readFileSync(file, "utf8"))) {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]?.message}`);
      const value: unknown = doc.toJS();
      if (value === null || value === undefined) continue;
      const parsed = ManifestSchema.safeParse(value);
      if (!parsed.success) {
        throw new Error(
          `${file}: not a Kubernetes object (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message})`,
        );
      }
      out.push(parsed.data);
    }
  }
  return out;
}

/** Installs (or updates) the petset CRDs and waits until the API serves them. */
export async function installCrds(kc: KubeConfig, timeoutMs = 30_000): Promise<void> {
  const api = kc.makeApiClient(ApiextensionsV1Api);
  const crds = readManifests(join(packageRoot(), "crds")).map(typed) as V1CustomResourceDefinition[];
  for (const crd of crds) {
    const name = crd.metadata?.name ?? "";
    try {
      await api.createCustomResourceDefinition({ body: crd });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      const existing = await api.readCustomResourceDefinition({ name });
      await api.replaceCustomResourceDefinition({
        name,
        body: { ...crd, metadata: { ...crd.metadata, resourceVersion: existing.metadata?.resourceVersion } },
      });
    }
  }
  const deadline = Date.now() + timeoutMs;
  for (const crd of crds) {
    const name = crd.metadata?.name ?? "";
    for (;;) {
      const got = await api.readCustomResourceDefinition({ name });
      if (got.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")) break;
      if (Date.now() > deadline) throw new Error(`CRD ${name} not Established after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * Creates each object unless it exists (so a restart with --data-dir keeps user changes), as
 * `kubectl apply` creates it: namespace defaulted for namespaced kinds and kubectl's
 * last-applied annotation (last-applied.ts), so the first `kubectl apply -f` of the same file
 * says `unchanged`. Under `fieldManager`: what a version's CHANGED-BY shows for it.
 */
export async function createManifests(
  kc: KubeConfig,
  manifests: readonly Manifest[],
  fieldManager: string,
): Promise<{ created: string[]; existing: string[] }> {
  const api = ApplyObjectApi.make(kc);
  const created: string[] = [];
  const existing: string[] = [];
  for (const manifest of manifests) {
    const namespaced = await api.namespaced(manifest.apiVersion, manifest.kind);
    const metadata =
      namespaced && manifest.metadata.namespace === undefined
        ? { ...manifest.metadata, namespace: api.namespace }
        : manifest.metadata;
    const body = typed(withLastApplied({ ...manifest, metadata }));
    const id = `${manifest.kind.toLowerCase()}/${manifest.metadata.name}`;
    try {
      await api.create(body, undefined, undefined, fieldManager);
      created.push(id);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      existing.push(id);
    }
  }
  return { created, existing };
}

/**
 * Through client-node's typed models: its serializer drops fields it does not know under
 * their wire names (`x-kubernetes-validations`, `default`, …) unless the object was
 * deserialized into those models first.
 */
function typed(manifest: Record<string, unknown>): KubernetesObject {
  return loadYaml<KubernetesObject>(JSON.stringify(manifest));
}

/** client-node's object API, with its discovery (is a kind namespaced?) and default namespace exposed. */
class ApplyObjectApi extends KubernetesObjectApi {
  static make(kc: KubeConfig): ApplyObjectApi {
    const api = kc.makeApiClient(ApplyObjectApi);
    api.setDefaultNamespace(kc);
    return api;
  }

  get namespace(): string {
    return this.defaultNamespace;
  }

  async namespaced(apiVersion: string, kind: string): Promise<boolean> {
    return (await this.resource(apiVersion, kind))?.namespaced ?? true;
  }
}
