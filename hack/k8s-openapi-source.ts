/**
 * Where the Kubernetes OpenAPI v3 documents come from: the `api/openapi-spec/v3` folder of
 * the `k8s.io/kubernetes` Go module, fetched through the Go module proxy (`go mod download`),
 * the same module the real control plane for tests is built from. Generators read it at
 * build time; nothing at run time depends on Go.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

/** The Kubernetes release whose schemas we generate from (also the real-backend version). */
export const KUBERNETES_VERSION = "v1.33.5";

const ModDownload = z.object({ Dir: z.string(), Error: z.string().optional() });

let cachedDir: string | undefined;

/** Absolute path of the module's `api/openapi-spec/v3` folder, downloading it if needed. */
export function openApiSpecDir(version: string = KUBERNETES_VERSION): string {
  if (cachedDir) return cachedDir;
  const out = execFileSync("go", ["mod", "download", "-json", `k8s.io/kubernetes@${version}`], {
    encoding: "utf8",
    env: { ...process.env, GOFLAGS: "-mod=mod", GO111MODULE: "on" },
    cwd: process.cwd(),
  });
  const info = ModDownload.parse(JSON.parse(out));
  if (info.Error) throw new Error(`go mod download k8s.io/kubernetes@${version}: ${info.Error}`);
  cachedDir = join(info.Dir, "api", "openapi-spec", "v3");
  return cachedDir;
}

export const OpenApiDocSchema = z.looseObject({
  components: z.looseObject({ schemas: z.record(z.string(), z.record(z.string(), z.unknown())) }),
});
export type OpenApiDoc = z.infer<typeof OpenApiDocSchema>;

/** Reads one document, e.g. `api__v1_openapi.json` or `apis__coordination.k8s.io__v1_openapi.json`. */
export function readOpenApiDoc(file: string, version: string = KUBERNETES_VERSION): OpenApiDoc {
  return OpenApiDocSchema.parse(JSON.parse(readFileSync(join(openApiSpecDir(version), file), "utf8")));
}
