/**
 * Generates the OpenAPI v3 documents the embedded API server serves for its built-in
 * group-versions, trimmed to the resources it serves plus every schema they reference.
 * Output: src/apiserver-shim/builtin/openapi/<file>.json (committed; nothing at run time
 * needs Go). Run (Go is needed only here, to fetch the k8s.io/kubernetes module):
 *   npx tsc --outDir /tmp/gen --module NodeNext --moduleResolution NodeNext --target ES2023 \
 *     --skipLibCheck --types node hack/gen-builtin-openapi.ts && \
 *     echo '{"type":"module"}' > /tmp/gen/package.json && ln -sfn "$PWD/node_modules" /tmp/gen/node_modules && \
 *     node /tmp/gen/gen-builtin-openapi.js
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readOpenApiDoc } from "./k8s-openapi-source.js";

interface Target {
  /** Source and output file name. */
  file: string;
  /** API path prefix, e.g. `/api/v1` or `/apis/coordination.k8s.io/v1`. */
  prefix: string;
  resources: Record<string, string[]>;
}

/** Resource → subresources we serve, per group-version. */
export const TARGETS: Target[] = [
  {
    file: "api__v1_openapi.json",
    prefix: "/api/v1",
    resources: {
      namespaces: ["status", "finalize"],
      pods: ["status", "binding"],
      persistentvolumeclaims: ["status"],
      persistentvolumes: ["status"],
      services: ["status"],
      configmaps: [],
      secrets: [],
      serviceaccounts: [],
      nodes: ["status"],
      events: [],
    },
  },
  {
    file: "apis__coordination.k8s.io__v1_openapi.json",
    prefix: "/apis/coordination.k8s.io/v1",
    resources: { leases: [] },
  },
  {
    file: "apis__batch__v1_openapi.json",
    prefix: "/apis/batch/v1",
    resources: { jobs: ["status"] },
  },
  {
    file: "apis__events.k8s.io__v1_openapi.json",
    prefix: "/apis/events.k8s.io/v1",
    resources: { events: [] },
  },
  {
    file: "apis__apps__v1_openapi.json",
    prefix: "/apis/apps/v1",
    resources: { statefulsets: ["status", "scale"], controllerrevisions: [] },
  },
  {
    file: "apis__apiextensions.k8s.io__v1_openapi.json",
    prefix: "/apis/apiextensions.k8s.io/v1",
    resources: { customresourcedefinitions: ["status"] },
  },
  {
    file: "apis__storage.k8s.io__v1_openapi.json",
    prefix: "/apis/storage.k8s.io/v1",
    resources: { storageclasses: [], volumeattachments: ["status"] },
  },
  {
    file: "apis__storage.k8s.io__v1beta1_openapi.json",
    prefix: "/apis/storage.k8s.io/v1beta1",
    resources: { volumeattributesclasses: [] },
  },
];

type Json = Record<string, unknown>;

function keepPath(path: string, t: Target): boolean {
  if (!path.startsWith(`${t.prefix}/`)) return false;
  const segs = path.slice(t.prefix.length + 1).split("/");
  if (segs[0] === "watch") return false;
  const namespaced = segs[0] === "namespaces" && segs[1] === "{namespace}" && segs.length >= 3;
  const [resource, name, sub, ...more] = namespaced ? segs.slice(2) : segs;
  if (!resource || !(resource in t.resources) || more.length) return false;
  if (name !== undefined && name !== "{name}") return false;
  return sub === undefined || t.resources[resource]!.includes(sub);
}

function collectRefs(v: unknown, out: Set<string>): void {
  if (Array.isArray(v)) for (const x of v) collectRefs(x, out);
  else if (v && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) {
      if (k === "$ref" && typeof x === "string") out.add(x.replace("#/components/schemas/", ""));
      else collectRefs(x, out);
    }
  }
}

function trim(t: Target): Json {
  const doc = readOpenApiDoc(t.file) as Json & {
    paths?: Json;
    components: { schemas: Record<string, Json> };
  };
  const paths: Json = {};
  for (const [p, v] of Object.entries(doc.paths ?? {})) if (keepPath(p, t)) paths[p] = v;
  const wanted = new Set<string>();
  collectRefs(paths, wanted);
  const schemas: Record<string, Json> = {};
  const queue = [...wanted];
  while (queue.length) {
    const name = queue.pop()!;
    if (schemas[name] || !doc.components.schemas[name]) continue;
    schemas[name] = doc.components.schemas[name]!;
    const refs = new Set<string>();
    collectRefs(schemas[name], refs);
    for (const r of refs) if (!schemas[r]) queue.push(r);
  }
  const sorted = Object.fromEntries(
    Object.keys(schemas)
      .sort()
      .map((k) => [k, schemas[k]]),
  );
  return { ...doc, paths, components: { ...doc.components, schemas: sorted } };
}

function main(): void {
  const outDir = join(process.cwd(), "src", "apiserver-shim", "builtin", "openapi");
  mkdirSync(outDir, { recursive: true });
  for (const t of TARGETS) {
    const trimmed = trim(t);
    writeFileSync(join(outDir, t.file), `${JSON.stringify(trimmed)}\n`);
    const n = Object.keys((trimmed.components as { schemas: Json }).schemas).length;
    process.stdout.write(`${t.file}: ${Object.keys(trimmed.paths as Json).length} paths, ${n} schemas\n`);
  }
}

main();
