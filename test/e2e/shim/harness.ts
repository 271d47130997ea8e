/** Starts the shim in-process on port 0 and runs the real kubectl against it. */
import { execFile, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Agent, fetch as undiciFetch } from "undici";
import { parse } from "yaml";
import { type ApiServer, type ApiServerOptions, startApiServer } from "../../../src/apiserver-shim/index.js";
import { TEST_CERT_DIR } from "../../support/cluster.js";

const run = promisify(execFile);

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface ShimHarness {
  server: ApiServer;
  dir: string;
  kubeconfig: string;
  /** `Authorization: Bearer <the kubeconfig's token>`, for raw requests. */
  auth: Record<string, string>;
  /** PEM of the CA the kubeconfig trusts (the server's). */
  ca: string;
  /** fetch as the kubeconfig's user: its token, trusting its CA. */
  fetch: KubeconfigFetch;
  kubectl(args: string[], stdin?: string): Promise<KubectlResult>;
  /** Writes `content` to a temp file and returns its path. */
  file(name: string, content: string): Promise<string>;
  /** Spawns a long-running kubectl (e.g. `get -w`); returns collected output and a stop function. */
  spawnKubectl(args: string[]): { output: () => string; stop: () => void };
  close(): Promise<void>;
}

export async function startHarness(opts: ApiServerOptions = {}): Promise<ShimHarness> {
  const dir = await mkdtemp(join(tmpdir(), "shim-e2e-"));
  const server = await startApiServer(opts.dataDir ? opts : { certDir: TEST_CERT_DIR, ...opts });
  const kubeconfig = join(dir, "kubeconfig");
  await server.writeKubeconfig(kubeconfig);
  const access = await kubeconfigAccess(kubeconfig);
  const base = ["--kubeconfig", kubeconfig, "--cache-dir", join(dir, "cache")];
  const env = { ...process.env, HOME: dir, KUBECONFIG: kubeconfig };
  const children: (() => void)[] = [];
  return {
    server,
    dir,
    kubeconfig,
    ...access,
    async kubectl(args, stdin) {
      if (stdin !== undefined) {
        const path = join(dir, `stdin-${Date.now()}-${Math.random().toString(36).slice(2)}.yaml`);
        await writeFile(path, stdin);
        args = args.map((a) => (a === "-" ? path : a));
      }
      try {
        const { stdout, stderr } = await run("kubectl", [...base, ...args], { env, timeout: 30_000 });
        return { code: 0, stdout, stderr };
      } catch (e) {
        const err = e as { code?: number; stdout?: string; stderr?: string };
        return {
          code: typeof err.code === "number" ? err.code : 1,
          stdout: err.stdout ?? "",
          stderr: err.stderr ?? "",
        };
      }
    },
    async file(name, content) {
      const path = join(dir, name);
      await writeFile(path, content);
      return path;
    },
    spawnKubectl(args) {
      const child = spawn("kubectl", [...base, ...args], { env });
      let out = "";
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
      });
      child.stderr.on("data", (d: Buffer) => {
        out += d.toString();
      });
      const stop = () => child.kill("SIGTERM");
      children.push(stop);
      return { output: () => out, stop };
    },
    async close() {
      for (const c of children) c();
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export type KubeconfigFetch = (
  url: string,
  init?: Parameters<typeof undiciFetch>[1],
) => ReturnType<typeof undiciFetch>;

/**
 * What a raw client needs from a kubeconfig (its current context): the Authorization header
 * kubectl sends, the CA it trusts, and a fetch that uses both (headers given to it win).
 */
export async function kubeconfigAccess(
  kubeconfig: string,
): Promise<{ auth: Record<string, string>; ca: string; fetch: KubeconfigFetch }> {
  const doc = parse(await readFile(kubeconfig, "utf8")) as {
    "current-context": string;
    contexts: { name: string; context: { user: string; cluster: string } }[];
    users: { name: string; user: { token?: string } }[];
    clusters: { name: string; cluster: { "certificate-authority-data"?: string } }[];
  };
  const ctx = doc.contexts.find((c) => c.name === doc["current-context"]);
  const token = doc.users.find((u) => u.name === ctx?.context.user)?.user.token;
  const caData = doc.clusters.find((c) => c.name === ctx?.context.cluster)?.cluster[
    "certificate-authority-data"
  ];
  if (!token || !caData) throw new Error(`${kubeconfig} holds no token or no CA`);
  const auth = { Authorization: `Bearer ${token}` };
  const ca = Buffer.from(caData, "base64").toString();
  const dispatcher = new Agent({ connect: { ca } });
  return {
    auth,
    ca,
    fetch: (url, init = {}) =>
      undiciFetch(url, {
        ...init,
        dispatcher,
        headers: { ...auth, ...(init.headers as Record<string, string> | undefined) },
      }),
  };
}

/** Polls `check` until it returns a truthy value or the deadline passes. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 10_000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const WIDGET_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas, labelSelectorPath: .status.selector}
    additionalPrinterColumns:
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    - {name: Phase, type: string, jsonPath: .status.phase}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
    schema:
      openAPIV3Schema:
        type: object
        description: A widget for tests.
        properties:
          spec:
            type: object
            description: What the widget should be.
            properties:
              replicas: {type: integer, minimum: 0, default: 1, description: How many.}
              color: {type: string, description: Its color.}
          status:
            type: object
            properties:
              replicas: {type: integer}
              phase: {type: string}
              selector: {type: string}
              conditions:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [type]
                items:
                  type: object
                  required: [type, status]
                  properties:
                    type: {type: string}
                    status: {type: string}
`;
