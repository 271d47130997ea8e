/**
 * Issue 31 item 4, the error wording a new user meets at the edges, through the real binaries:
 * `petset` (dist/src/cli/petset.js) and `kubectl petset` (the built plugin, found by kubectl
 * on PATH) against the test cluster (PETSET_TEST_BACKEND). Every flag error names the flag and
 * what is expected; a bad field gets one message; a missing name lists what exists.
 */
import { execFile, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendFromEnv, REPO_ROOT, startTestCluster, type TestCluster } from "../support/cluster.js";

const CLI = join(REPO_ROOT, "dist", "src", "cli", "petset.js");
const PLUGIN = join(REPO_ROOT, "dist", "src", "cli", "kubectl-petset.js");
const embedded = backendFromEnv() === "embedded";
let cluster: TestCluster;
let namespace: string;
let dir: string;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

beforeAll(async () => {
  for (const file of [CLI, PLUGIN])
    if (!existsSync(file)) throw new Error(`${file} is missing: run make build first`);
  dir = mkdtempSync(join(tmpdir(), "petset-messages-"));
  writeFileSync(join(dir, "kubectl-petset"), `#!/bin/sh\nexec "${process.execPath}" "${PLUGIN}" "$@"\n`);
  chmodSync(join(dir, "kubectl-petset"), 0o755);
  cluster = await startTestCluster();
  namespace = await cluster.namespace("messages");
  const created = await cluster.kubectl(["apply", "-n", namespace, "-f", "-"], {
    input: petSetYaml("web", 1),
  });
  expect(created.code, created.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function petSetYaml(name: string, replicas: number): string {
  return `apiVersion: petset.dev/v1alpha1
kind: PetSet
metadata:
  name: ${name}
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers: [{name: app, image: "nginx:1.27"}]
`;
}

function run(file: string, args: string[], opts: { path?: string } = {}): Promise<Result> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        cwd: dir,
        timeout: 60_000,
        env: { ...process.env, ...(opts.path ? { PATH: `${opts.path}:${process.env.PATH ?? ""}` } : {}) },
      },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const petsetCli = (...args: string[]) => run(process.execPath, [CLI, ...args]);
const plugin = (...args: string[]) =>
  run("kubectl", ["petset", ...args, "-n", namespace, "--kubeconfig", cluster.kubeconfigPath], { path: dir });

/** `petset dev ARGS`, stopped if it ever starts serving (it must fail before). */
function petsetDev(...args: string[]): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [CLI, "dev", "--kubeconfig", join(dir, "dev", "kubeconfig"), ...args],
      {
        cwd: dir,
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
      if (stdout.includes("Ctrl-C stops it")) child.kill("SIGTERM");
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

describe("issue 31 item 4: error wording at the edges", () => {
  it.skipIf(!embedded)(
    "issue 31 item 4: petset dev flag errors name the flag and what is expected",
    async () => {
      expect(await petsetDev("--port", "abc")).toEqual({
        code: 2,
        stdout: "",
        stderr: 'error: --port: expected a port number 1-65535 (0: any free port), got "abc"\n',
      });
      expect(await petsetDev("--apply", "/nonexistent")).toEqual({
        code: 2,
        stdout: "",
        stderr:
          "error: --apply /nonexistent: no such file or folder (expected a manifest file or a folder of them)\n",
      });
      expect(await petsetDev("--listen", "999.1.1.1")).toEqual({
        code: 2,
        stdout: "",
        stderr:
          'error: --listen: expected an IP address or host name of this machine (127.0.0.1, ::1, or 0.0.0.0 for every interface), got "999.1.1.1"\n',
      });
      expect(await petsetDev("--token-file", "/nonexistent")).toMatchObject({
        code: 2,
        stderr:
          "error: --token-file /nonexistent: no such file (expected a file of bearer tokens, one a line)\n",
      });
      expect(await petsetCli("controller", "--workers", "lots")).toEqual({
        code: 2,
        stdout: "",
        stderr: 'error: --workers: expected a whole number of concurrent syncs, 1-64, got "lots"\n',
      });
      expect(await petsetCli("controller", "--kubeconfig", "/nonexistent")).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/^error: --kubeconfig \/nonexistent: no such file/),
      });
    },
    // Six CLI starts one after another: 15 s idle, over a minute at load 11 in make test.
    180_000,
  );

  it("issue 31 item 4: kubectl petset diff without a version names the missing argument", async () => {
    const r = await plugin("diff", "web");
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("error: missing required argument 'version'\n(add --help for usage)\n");
  });

  it("issue 31 item 4: kubectl petset convert -f of a missing file names -f and what is expected", async () => {
    expect(await run("kubectl", ["petset", "convert", "-f", "/nonexistent"], { path: dir })).toMatchObject({
      code: 1,
      stderr:
        "error: -f /nonexistent: no such file (expected a StatefulSet manifest, YAML or JSON; - for stdin)\n",
    });
  });

  it("issue 31 item 4: restart and release of a missing name list the PetSets that exist", async () => {
    for (const command of ["restart", "release"]) {
      const r = await plugin(command, "wbe");
      expect(r, command).toMatchObject({
        code: 1,
        stderr: `error: petset "wbe" not found in namespace "${namespace}": it has web\n`,
      });
    }
  });

  it("issue 31 item 4: a negative replicas is refused with one message for the field", async () => {
    const r = await cluster.kubectl(["apply", "-n", namespace, "-f", "-"], {
      input: petSetYaml("web", -1),
      allowFail: true,
    });
    expect(r.code).toBe(1);
    const problems = r.stderr.split("\n").filter((l) => l.includes("replicas"));
    expect(problems, r.stderr).toEqual([
      expect.stringMatching(/^The PetSet "web" is invalid: \.?spec\.replicas: Invalid value: -1: /),
    ]);
  });
});
