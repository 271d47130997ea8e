/**
 * `kubectl petset ...` end to end: the real kubectl finds the built plugin on PATH and runs
 * it against the test cluster (PETSET_TEST_BACKEND). No controller runs: the test writes
 * the PetSet, its versions (labels and ownerReference as the controller would) and its
 * status itself, then checks what the plugin prints and what it writes.
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  API_VERSION,
  GROUP,
  Labels,
  PETSET_KIND,
  PETSET_PLURAL,
  type PetSet,
  parsePetSet,
  VERSION,
  VERSION_KIND,
  VERSION_PLURAL,
  versionName,
} from "../../src/api/index.js";
import { hashContent } from "../../src/versions/hash.js";
import { REPO_ROOT, startTestCluster, type TestCluster } from "../support/cluster.js";

const PLUGIN = join(REPO_ROOT, "dist", "src", "cli", "kubectl-petset.js");
const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

let cluster: TestCluster;
let namespace: string;
let binDir: string;
let custom: CustomObjectsApi;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Starts `kubectl petset ARGS --kubeconfig K -n NS` with the plugin shim first on PATH.
 * `output` resolves once the command has written something on stdout.
 */
function startPetset(...args: string[]): { output: Promise<void>; done: Promise<Result> } {
  const child = spawn(
    "kubectl",
    ["petset", ...args, "--kubeconfig", cluster.kubeconfigPath, "-n", namespace],
    {
      env: { ...process.env, PATH: `${binDir}:${process.env.PATH ?? ""}`, NO_COLOR: "" },
      timeout: 60_000,
    },
  );
  let stdout = "";
  let stderr = "";
  const output = new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<Result>((resolve) =>
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr })),
  );
  return { output, done };
}

const petset = (...args: string[]): Promise<Result> => startPetset(...args).done;

const template = (image: string) => ({
  metadata: { labels: { app: "web" } },
  spec: { containers: [{ name: "app", image }] },
});

const ps = { group: GROUP, version: VERSION, plural: PETSET_PLURAL };
const psv = { group: GROUP, version: VERSION, plural: VERSION_PLURAL };

async function getPetSet(): Promise<PetSet> {
  return parsePetSet(await custom.getNamespacedCustomObject({ ...ps, namespace, name: "web" }));
}

async function setStatus(status: Record<string, unknown>): Promise<void> {
  await custom.patchNamespacedCustomObjectStatus({ ...ps, namespace, name: "web", body: { status } }, merge);
}

async function createVersion(owner: PetSet, n: number, image: string, extra: Record<string, unknown> = {}) {
  const content = { template: template(image), volumeClaimTemplates: [] };
  const hash = hashContent(content);
  await custom.createNamespacedCustomObject({
    ...psv,
    namespace,
    body: {
      apiVersion: API_VERSION,
      kind: VERSION_KIND,
      metadata: {
        name: versionName("web", n),
        labels: { [Labels.petSet]: "web", [Labels.version]: String(n), [Labels.hash]: hash },
        ownerReferences: [
          {
            apiVersion: API_VERSION,
            kind: PETSET_KIND,
            name: "web",
            uid: owner.metadata.uid ?? "",
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: {
        petSet: "web",
        version: n,
        generation: n,
        hash,
        ...content,
        changeCause: `image ${image}`,
        changedBy: "e2e",
        ...extra,
      },
    },
  });
}

async function createPod(name: string, version: number): Promise<void> {
  await cluster.kubeConfig.makeApiClient(CoreV1Api).createNamespacedPod({
    namespace,
    body: {
      metadata: { name, labels: { app: "web", [Labels.petSet]: "web", [Labels.version]: String(version) } },
      spec: { containers: [{ name: "app", image: "nginx" }] },
    },
  });
}

beforeAll(async () => {
  if (!existsSync(PLUGIN))
    throw new Error(`${PLUGIN} is missing: run make build (npx tsc -p tsconfig.build.json) first`);
  cluster = await startTestCluster();
  namespace = await cluster.namespace("plugin");
  custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
  binDir = mkdtempSync(join(tmpdir(), "petset-plugin-bin-"));
  const shim = join(binDir, "kubectl-petset");
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${PLUGIN}" "$@"\n`);
  chmodSync(shim, 0o755);

  await custom.createNamespacedCustomObject({
    ...ps,
    namespace,
    body: {
      apiVersion: API_VERSION,
      kind: PETSET_KIND,
      metadata: { name: "web" },
      spec: { replicas: 3, selector: { matchLabels: { app: "web" } }, template: template("nginx:1.27") },
    },
  });
  const owner = await getPetSet();
  await createVersion(owner, 1, "nginx:1.25");
  await createVersion(owner, 2, "nginx:1.26");
  await createVersion(owner, 3, "nginx:1.27", {
    delta: [{ op: "replace", path: "/template/spec/containers/0/image", value: "nginx:1.27" }],
  });
  await setStatus({
    observedGeneration: owner.metadata.generation,
    replicas: 3,
    currentVersion: 2,
    updateVersion: 3,
  });
  await createPod("web-0", 2);
  await createPod("web-1", 3);
  await createPod("web-2", 3);
});

afterAll(async () => {
  await cluster?.stop();
  if (binDir) rmSync(binDir, { recursive: true, force: true });
});

describe("kubectl petset (plugin on PATH, real kubectl)", () => {
  it("history lists versions with role and pod counts", async () => {
    const r = await petset("history", "web");
    expect(r).toMatchObject({ code: 0, stderr: "" });
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(
      /^VERSION\s+ROLE\s+GENERATION\s+AGE\s+CHANGED-BY\s+ROLLBACK-OF\s+PODS\s+CHANGE-CAUSE$/,
    );
    expect(lines.slice(1).map((l) => l.split(/\s{3,}/))).toEqual([
      ["1", "1", expect.any(String), "e2e", "<none>", "0", "image nginx:1.25"],
      ["2", "current", "2", expect.any(String), "e2e", "<none>", "1", "image nginx:1.26"],
      ["3", "update", "3", expect.any(String), "e2e", "<none>", "2", "image nginx:1.27"],
    ]);
  });

  it("history --version describes one version; -o json prints a List", async () => {
    const one = await petset("history", "web", "--version", "3");
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^Name:\s+web-v3$/m);
    expect(one.stdout).toMatch(/^Role:\s+update$/m);
    expect(one.stdout).toContain('replace /template/spec/containers/0/image = "nginx:1.27"');
    const list = JSON.parse((await petset("history", "web", "-o", "json")).stdout) as {
      kind: string;
      items: unknown[];
    };
    expect(list).toMatchObject({ kind: "List", items: [{}, {}, {}] });
  });

  it("diff shows the image change against the update version, colored only when asked", async () => {
    const plain = await petset("diff", "web", "1");
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain("--- web-v1\n+++ web-v3\n");
    expect(plain.stdout).toContain("-    - image: nginx:1.25\n+    - image: nginx:1.27\n");
    expect(plain.stdout).not.toContain("\x1b[");
    const colored = await petset("diff", "web", "v1", "web-v2", "--color=always");
    expect(colored.stdout).toContain("\x1b[31m-    - image: nginx:1.25\x1b[0m");
  });

  it("reports unknown objects in one line with exit 1", async () => {
    expect(await petset("history", "nope")).toEqual({
      code: 1,
      stdout: "",
      stderr: `error: petset "nope" not found in namespace "${namespace}": it has web\n`,
    });
    const r = await petset("rollback", "web", "--to-version", "9");
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error: version 9 of petset "web" does not exist: the newest is 3; kubectl petset history web lists the versions kept\n',
    );
  });

  it("rollback --dry-run (client or server) changes nothing", async () => {
    const before = await getPetSet();
    const r = await petset("rollback", "web", "--dry-run");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^petset.petset.dev\/web rolled back to version 2 \(dry run\)\n/);
    const server = await petset("rollback", "web", "--to-version", "1", "--dry-run=server");
    expect(server).toEqual({
      code: 0,
      stdout: "petset.petset.dev/web rolled back to version 1 (server dry run)\n",
      stderr: "",
    });
    expect((await getPetSet()).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it("rollback patches the template to the previous distinct version with a change-cause", async () => {
    const r = await petset("rollback", "web", "--wait=false");
    expect(r).toEqual({ code: 0, stdout: "petset.petset.dev/web rolled back to version 2\n", stderr: "" });
    const after = await getPetSet();
    expect(after.spec.template).toEqual(template("nginx:1.26"));
    expect(after.metadata.annotations?.["kubernetes.io/change-cause"]).toBe("rollback to version 2");
    expect(after.metadata.managedFields?.map((f) => f.manager)).toContain("kubectl-petset");
  });

  it("rollback waits for the version the controller records (here: the test plays the controller)", async () => {
    const running = petset("rollback", "web", "--to-version", "1", "--timeout", "30s");
    await expect
      .poll(async () => (await getPetSet()).spec.template.spec.containers[0]?.image, { timeout: 20_000 })
      .toBe("nginx:1.25");
    await createVersion(await getPetSet(), 4, "nginx:1.25", { rollbackOf: 1 });
    expect(await running).toEqual({
      code: 0,
      stdout: "petset.petset.dev/web rolled back to version 1\ncreated version web-v4 (rollbackOf 1)\n",
      stderr: "",
    });
  });

  it("pause, resume and restart patch the spec", async () => {
    expect((await petset("pause", "web")).stdout).toBe("petset.petset.dev/web paused\n");
    expect((await getPetSet()).spec.paused).toBe(true);
    expect((await petset("resume", "web")).stdout).toBe("petset.petset.dev/web resumed\n");
    expect((await getPetSet()).spec.paused).toBe(false);
    const before = Date.now();
    expect((await petset("restart", "web")).stdout).toBe("petset.petset.dev/web restarted\n");
    const at = (await getPetSet()).spec.template.metadata?.annotations?.["petset.dev/restartedAt"];
    expect(at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Date.parse(at ?? "")).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
  });

  it("status: exit 2 on timeout, 0 once the rollout completes while watching, 1 on a deadline", async () => {
    const generation = (await getPetSet()).metadata.generation;
    const rolling = {
      observedGeneration: generation,
      replicas: 3,
      readyReplicas: 3,
      updatedReplicas: 1,
      currentVersion: 3,
      updateVersion: 4,
      conditions: [
        {
          type: "Progressing",
          status: "True",
          reason: "RollingOut",
          message: "updating web-1",
          lastTransitionTime: "2025-06-01T12:00:00Z",
        },
      ],
    };
    await setStatus(rolling);
    const timedOut = await petset("status", "web", "--timeout", "1s");
    expect(timedOut.code).toBe(2);
    expect(timedOut.stderr).toMatch(/^error: timed out after 1s waiting for the rollout of petset "web"/);

    const watching = startPetset("status", "web", "--watch", "--timeout", "30s");
    await watching.output; // the in-progress line: it is watching now
    await setStatus({
      updatedReplicas: 3,
      currentVersion: 4,
      conditions: [
        {
          type: "Progressing",
          status: "True",
          reason: "RolloutComplete",
          message: "",
          lastTransitionTime: "2025-06-01T12:01:00Z",
        },
      ],
    });
    const done = await watching.done;
    expect(done.code).toBe(0);
    expect(done.stdout.trimEnd().split("\n").at(-1)).toBe(
      'petset "web": rollout complete: 3 of 3 pods at version 4, 3 ready',
    );

    await setStatus({
      conditions: [
        {
          type: "Progressing",
          status: "False",
          reason: "ProgressDeadlineExceeded",
          message: "web-2 not Ready for 600s",
          lastTransitionTime: "2025-06-01T12:02:00Z",
        },
      ],
    });
    const failed = await petset("status", "web");
    expect(failed.code).toBe(1);
    expect(await petset("status", "web", "-w")).toMatchObject({
      code: 1,
      stderr: 'error: petset "web": rollout failed: ProgressDeadlineExceeded: web-2 not Ready for 600s\n',
    });
  });

  it("kubectl petset --help lists the commands", async () => {
    const r = await petset("--help");
    expect(r.code).toBe(0);
    for (const command of ["history", "diff", "rollback", "pause", "resume", "restart", "status"])
      expect(r.stdout).toContain(command);
  });
});
