/**
 * `petset demo` as a user runs it: the built CLI, its own embedded API server, exit code 0
 * and the lines that tell the story. The demo never uses the test cluster, so it runs once,
 * on the embedded backend (on the others it would only repeat the same run).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { backendFromEnv, REPO_ROOT } from "../support/cluster.js";

const CLI = join(REPO_ROOT, "dist", "src", "cli", "petset.js");

function runDemo(): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, "demo"],
      {
        cwd: REPO_ROOT,
        timeout: 110_000,
        maxBuffer: 16 * 1024 * 1024,
        env: { ...process.env, NO_COLOR: "1" },
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe.skipIf(backendFromEnv() !== "embedded")("petset demo", () => {
  it("tours create, update, a broken rollout (its pet named at once) and its fix, history, diff, rollback and a StatefulSet adopted and released, and exits 0", async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npx tsc -p tsconfig.build.json first`);
    const { code, stdout, stderr } = await runDemo();
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    const expected = [
      /^== 1\/8 Create a PetSet: three pets running nginx:1\.26$/m,
      /web-0 created at version 1 \(nginx:1\.26\)/,
      /petset "web": rollout complete: 3 of 3 pods at version 1, 3 ready/,
      /web-2 created at version 2 \(nginx:1\.27\)/,
      /petset "web": rollout complete: 3 of 3 pods at version 2, 3 ready/,
      /preUpdate +web-0 +v2 +Succeeded .*exit code 0: web-0 steps down: version 1 -> 2/,
      /web-2 not Ready: CrashLoopBackOff \(nginx:broken\)/,
      // issue 31 item 2: the broken pet is named before the deadline.
      /^\$ kubectl petset status web\n {4}petset "web": rolling out version 2 -> 3: .*; broken pet web-2: CrashLoopBackOff, \d+ restarts?, at version 3/m,
      /rollout failed: ProgressDeadlineExceeded: PetSet web: version 3 made no progress/,
      /petset "web": rollout complete: 3 of 3 pods at version 4, 3 ready/,
      /^ {4}VERSION +ROLE +GENERATION +AGE +CHANGED-BY +ROLLBACK-OF +PODS +CHANGE-CAUSE$/m,
      /^ {4}3 .* petset-demo +<none> +0 +try the nightly build$/m,
      /^ {4}- {4}- image: nginx:1\.27$/m,
      /^ {4}\+ {4}- image: nginx:1\.28$/m,
      /^ {4}created version web-v5 \(rollbackOf 2\)$/m,
      /^ {4}5 +current,update +5 .* kubectl-petset +2 +3 +rollback to version 2$/m,
      // issue 31 item 1: migration on the embedded server, both ways, no pod restarted.
      /^== 7\/8 Migrate a StatefulSet/m,
      /^ {4}petset\.petset\.dev\/legacy adopted from statefulset\.apps\/legacy: no pod restarted; update version 1$/m,
      /^ {4}petset\.petset\.dev\/legacy released to statefulset\.apps\/legacy: no pod restarted$/m,
      /^legacy-0, legacy-1: the same pods all along \(uids unchanged\)\.$/m,
      /^Done in [0-9.]+s\.$/m,
    ];
    let from = 0;
    for (const pattern of expected) {
      const match = pattern.exec(stdout.slice(from));
      expect(match, `${pattern} after offset ${from} in:\n${stdout}`).not.toBeNull();
      from += (match?.index ?? 0) + (match?.[0].length ?? 0);
    }
    // Nothing steps on the user's own `petset dev` files.
    expect(stdout).not.toContain(".petset/kubeconfig");
  }, 120_000);
});
