/**
 * The README's quick start, literally, in a fresh clone: `git clone`, `make run` (its own
 * `npm ci` and build, then the embedded server with examples/), and in another shell the lines
 * of the README's second `sh` block exactly as written (export PATH and KUBECONFIG, kubectl
 * get, kubectl petset history, set image, status --watch).
 *
 * It costs a clean `npm ci` and a full build (2–4 minutes on 2 cores), so it runs where that
 * is the point: in CI (`CI=true`, a clean clone of main), or when asked with
 * PETSET_FRESH_CLONE=1. It starts its own server, so it runs on the embedded backend only.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { backendFromEnv, eventually, REPO_ROOT } from "../support/cluster.js";

const WANTED = process.env.CI === "true" || process.env.PETSET_FRESH_CLONE === "1";
let dir: string | undefined;
let run: ChildProcess | undefined;

/** The commands of the README's quick start for the second shell: its second `sh` block. */
function readmeQuickStart(): string {
  const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
  const block = blocks[1];
  if (block === undefined) throw new Error("README.md has no second sh block (the quick start's shell)");
  return block;
}

function bash(script: string, cwd: string, timeout: number) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      "bash",
      ["-e", "-o", "pipefail", "-c", script],
      { cwd, timeout, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

afterAll(() => {
  // make run and everything it started: its own process group.
  if (run?.pid !== undefined) {
    try {
      process.kill(-run.pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(backendFromEnv() !== "embedded" || !WANTED)("fresh clone, README quick start (CI)", () => {
  it("make run in a fresh clone, then the README's commands as written", async () => {
    dir = mkdtempSync(join(tmpdir(), "petset-fresh-clone-"));
    const clone = join(dir, "petset");
    const cloned = await bash(`git clone --quiet ${JSON.stringify(REPO_ROOT)} petset`, dir, 120_000);
    expect(cloned, cloned.stderr).toMatchObject({ code: 0 });
    run = spawn("make", ["run"], { cwd: clone, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    run.stdout?.on("data", (c: Buffer) => {
      output += c.toString();
    });
    run.stderr?.on("data", (c: Buffer) => {
      output += c.toString();
    });
    await eventually(
      "make run to say it is ready",
      () => (output.includes("Ctrl-C stops it") ? true : undefined),
      600_000,
      500,
    );
    // What make run printed to type is what the README says; then the README's own lines.
    const readme = readmeQuickStart();
    for (const line of [
      'export PATH="$PWD/.petset/bin:$PATH"',
      'export KUBECONFIG="$PWD/.petset/kubeconfig"',
    ]) {
      expect(output).toContain(line);
      expect(readme).toContain(line);
    }
    const r = await bash(readme, clone, 240_000);
    expect(r, `${r.stdout}\n${r.stderr}\n--- make run:\n${output}`).toMatchObject({ code: 0 });
    expect(r.stdout).toMatch(/^NAME +READY +CURRENT +UPDATE/m);
    expect(r.stdout).toMatch(/VERSION +ROLE +GENERATION +AGE +CHANGED-BY/);
    expect(r.stdout).toMatch(/petset-dev/);
    expect(r.stdout).toContain("image updated (nginx:");
    expect(r.stdout).toMatch(/rollout complete: 3 of 3 pods at version 2/);
  }, 900_000);
});
