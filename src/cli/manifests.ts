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

/** Every object in the .yaml/.yml/.json files of `path` (a file or a folder), in file order. */
export function readManifests(path: string): KubernetesObject[] {
  const files = statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((f) => /\.(ya?ml|json)$/.test(f))
        .sort()
        .map((f) => join(path, f))
    : [path];
  const out: KubernetesObject[] = [];
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
      // Through client-node's typed models: its serializer drops fields it does not know
      // under their wire names (`x-kubernetes-validations`, `default`, …) unless the object
      // was deserialized into those models first.
      out.push(loadYaml<KubernetesObject>(JSON.stringify(parsed.data)));
    }
  }
  return out;
}

/** Installs (or updates) the petset CRDs and waits until the API serves them. */
export async function installCrds(kc: KubeConfig, timeoutMs = 30_000): Promise<void> {
  const api = kc.makeApiClient(ApiextensionsV1Api);
  const crds = readManifests(join(packageRoot(), "crds")) as V1CustomResourceDefinition[];
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
 * Creates each object unless it exists (so a restart with --data-dir keeps user changes),
 * under `fieldManager`: what a version's CHANGED-BY shows for it.
 */
export async function createManifests(
  kc: KubeConfig,
  objects: KubernetesObject[],
  fieldManager: string,
  namespace = "default",
): Promise<{ created: string[]; existing: string[] }> {
  const api = KubernetesObjectApi.makeApiClient(kc);
  const created: string[] = [];
  const existing: string[] = [];
  for (const obj of objects) {
    const body = { ...obj, metadata: { ...obj.metadata, namespace: obj.metadata?.namespace ?? namespace } };
    const id = `${(obj.kind ?? "").toLowerCase()}/${obj.metadata?.name}`;
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
