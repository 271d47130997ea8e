/**
 * `kubectl petset …` as a user runs it: the real kubectl finds the built plugin on PATH (a
 * `kubectl-petset` shim in a temporary directory that execs dist/src/cli/kubectl-petset.js).
 * Not a terminal, so the plugin prints no hints. Needs `npx tsc -p tsconfig.build.json` first.
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "./cluster.js";

export const PLUGIN = join(REPO_ROOT, "dist", "src", "cli", "kubectl-petset.js");

export interface PluginRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface KubectlPlugin {
  /** The directory holding the shim: put it first on PATH. */
  binDir: string;
  /** Runs `kubectl petset ARGS --kubeconfig K -n NS`, ended after `timeoutMs`. */
  run(
    target: { kubeconfigPath: string; namespace: string },
    args: string[],
    timeoutMs: number,
  ): Promise<PluginRun>;
  remove(): void;
}

/** Installs the shim; `tag` names the temporary directory. Throws when the plugin is not built. */
export function installKubectlPlugin(tag: string): KubectlPlugin {
  if (!existsSync(PLUGIN)) throw new Error(`${PLUGIN} is missing: run npx tsc -p tsconfig.build.json first`);
  const binDir = mkdtempSync(join(tmpdir(), `petset-${tag}-bin-`));
  writeFileSync(join(binDir, "kubectl-petset"), `#!/bin/sh\nexec "${process.execPath}" "${PLUGIN}" "$@"\n`);
  chmodSync(join(binDir, "kubectl-petset"), 0o755);
  return {
    binDir,
    run(target, args, timeoutMs) {
      const child = spawn(
        "kubectl",
        ["petset", ...args, "--kubeconfig", target.kubeconfigPath, "-n", target.namespace],
        { env: { ...process.env, PATH: `${binDir}:${process.env.PATH ?? ""}` }, timeout: timeoutMs },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (c: Buffer) => {
        stdout += c.toString();
      });
      child.stderr.on("data", (c: Buffer) => {
        stderr += c.toString();
      });
      return new Promise((resolve) =>
        child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr })),
      );
    },
    remove: () => rmSync(binDir, { recursive: true, force: true }),
  };
}
