/**
 * `kubectl petset set image|env` end to end: the real kubectl runs the built plugin from
 * PATH against the test backend. No controller runs: the test checks what the plugin writes
 * (exactly the named fields, under field manager kubectl-petset, with the change-cause).
 */
import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CustomObjectsApi } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  API_VERSION,
  GROUP,
  PETSET_KIND,
  PETSET_PLURAL,
  type PetSet,
  parsePetSet,
  VERSION,
} from "../../src/api/index.js";
import { kubePetSetApi } from "../../src/cli/plugin/kube-petset-api.js";
import { connect } from "../../src/cli/plugin/kubeconfig.js";
import { REPO_ROOT, startTestCluster, type TestCluster } from "../support/cluster.js";

const PLUGIN = join(REPO_ROOT, "dist", "src", "cli", "kubectl-petset.js");
const ps = { group: GROUP, version: VERSION, plural: PETSET_PLURAL };

let cluster: TestCluster;
let namespace: string;
let binDir: string;
let custom: CustomObjectsApi;

function petset(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      "kubectl",
      ["petset", ...args, "--kubeconfig", cluster.kubeconfigPath, "-n", namespace],
      { env: { ...process.env, PATH: `${binDir}:${process.env.PATH ?? ""}` }, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function getPetSet(): Promise<PetSet> {
  return parsePetSet(await custom.getNamespacedCustomObject({ ...ps, namespace, name: "web" }));
}

const app = {
  name: "app",
  image: "nginx:1.27",
  ports: [{ name: "http", containerPort: 80 }],
  volumeMounts: [{ name: "www", mountPath: "/usr/share/nginx/html" }],
  env: [
    { name: "MODE", value: "primary" },
    { name: "DEBUG", value: "1" },
  ],
};
const sidecar = { name: "sidecar", image: "envoy:1.30", ports: [{ containerPort: 9901 }] };

beforeAll(async () => {
  if (!existsSync(PLUGIN)) throw new Error(`${PLUGIN} is missing: run make build first`);
  cluster = await startTestCluster();
  namespace = await cluster.namespace("plugin-set");
  custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
  binDir = mkdtempSync(join(tmpdir(), "petset-plugin-set-bin-"));
  writeFileSync(join(binDir, "kubectl-petset"), `#!/bin/sh\nexec "${process.execPath}" "${PLUGIN}" "$@"\n`);
  chmodSync(join(binDir, "kubectl-petset"), 0o755);
  await custom.createNamespacedCustomObject({
    ...ps,
    namespace,
    body: {
      apiVersion: API_VERSION,
      kind: PETSET_KIND,
      metadata: { name: "web" },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: { containers: [app, sidecar], volumes: [{ name: "www", emptyDir: {} }] },
        },
      },
    },
  });
});

afterAll(async () => {
  await cluster?.stop();
  if (binDir) rmSync(binDir, { recursive: true, force: true });
});

describe("kubectl petset set (plugin on PATH, real kubectl)", () => {
  it("set image changes only that image, with the change-cause, under field manager kubectl-petset", async () => {
    const r = await petset("set", "image", "web", "app=nginx:1.28", "--cause", "nginx 1.28");
    expect(r).toEqual({
      code: 0,
      stdout: "petset.petset.dev/web image updated (app: nginx:1.27 -> nginx:1.28)\n",
      stderr: "",
    });
    const after = await getPetSet();
    expect(after.spec.template.spec.containers).toEqual([{ ...app, image: "nginx:1.28" }, sidecar]);
    expect(after.metadata.annotations?.["kubernetes.io/change-cause"]).toBe("nginx 1.28");
    expect(after.metadata.managedFields?.map((f) => f.manager)).toContain("kubectl-petset");
    expect(await petset("set", "image", "web", "app=nginx:1.28")).toMatchObject({
      code: 0,
      stdout: "petset.petset.dev/web image unchanged\n",
    });
  });

  it("set env sets, replaces and removes entries of one container", async () => {
    const r = await petset("set", "env", "web", "-c", "app", "MODE=replica", "DEBUG-", "LOG=info");
    expect(r).toEqual({
      code: 0,
      stdout: "petset.petset.dev/web env updated (app: set MODE, LOG, removed DEBUG)\n",
      stderr: "",
    });
    const [first, second] = (await getPetSet()).spec.template.spec.containers;
    expect(first).toEqual({
      ...app,
      image: "nginx:1.28",
      env: [
        { name: "MODE", value: "replica" },
        { name: "LOG", value: "info" },
      ],
    });
    expect(second).toEqual(sidecar);
  });

  it("--dry-run=server changes nothing; an unknown container is one line naming those that exist", async () => {
    const before = (await getPetSet()).metadata.resourceVersion;
    expect(await petset("set", "image", "web", "sidecar=envoy:1.31", "--dry-run=server")).toEqual({
      code: 0,
      stdout: "petset.petset.dev/web image updated (sidecar: envoy:1.30 -> envoy:1.31) (server dry run)\n",
      stderr: "",
    });
    expect((await getPetSet()).metadata.resourceVersion).toBe(before);
    expect(await petset("set", "image", "web", "nginx=nginx:1.28")).toEqual({
      code: 1,
      stdout: "",
      stderr: 'error: container "nginx" not found in petset "web": its containers are app, sidecar\n',
    });
  });

  it("completes a PetSet NAME from the cluster the typed flags point at", async () => {
    const words = [
      "__complete",
      "set",
      "image",
      "--kubeconfig",
      cluster.kubeconfigPath,
      "-n",
      namespace,
      "w",
    ];
    const stdout = await new Promise<string>((resolve) =>
      execFile(join(binDir, "kubectl-petset"), words, { timeout: 30_000 }, (_err, out) => resolve(out)),
    );
    expect(stdout).toBe(`web\tpetset in ${namespace}\n:4\n`);
  });

  it("the API server rejects the whole JSON patch when a test op fails (what set relies on)", async () => {
    const api = kubePetSetApi(connect({ kubeconfig: cluster.kubeconfigPath, namespace }));
    const before = await getPetSet();
    const stale = [
      { op: "test", path: "/spec/template/spec/containers/0/name", value: "sidecar" },
      { op: "add", path: "/spec/template/spec/containers/0/image", value: "wrong:1" },
    ] as const;
    await expect(api.jsonPatchPetSet("web", stale)).rejects.toMatchObject({ reason: "Invalid" });
    expect((await getPetSet()).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });
});
