/**
 * `petset dev --data-dir DIR` as a child process, the way a user runs it: started from dist/,
 * ready once it prints `kubeconfig: <path>`, reached with the token and CA of that kubeconfig,
 * killed with SIGKILL (no cleanup at all).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type KubeconfigFetch, kubeconfigAccess } from "../e2e/shim/harness.js";
import { REPO_ROOT } from "../support/cluster.js";

const CLI = join(REPO_ROOT, "dist", "src", "cli", "petset.js");

export interface DevProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly url: string;
  readonly kubeconfig: string;
  readonly fetch: KubeconfigFetch;
  /** stderr so far (JSON log lines). */
  log(): string;
  /** SIGKILL; resolves once the process is gone. */
  kill(): Promise<void>;
}

export interface DevOptions {
  dataDir: string;
  kubeconfig: string;
  /** Run the controller too (default true, as `petset dev` does). */
  controller?: boolean;
  extraArgs?: string[];
  readyTimeoutMs?: number;
}

/** Why `petset dev` did not come up: its exit code and the end of its log. */
export class DevStartError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
  }
}

export async function startDev(opts: DevOptions): Promise<DevProcess> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run make build first`);
  const args = [CLI, "dev", "--data-dir", opts.dataDir, "--kubeconfig", opts.kubeconfig, "--port", "0"];
  if (opts.controller === false) args.push("--no-controller");
  const child = spawn(process.execPath, [...args, ...(opts.extraArgs ?? [])], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  // A test that times out must not leave the server running.
  const orphan = () => child.kill("SIGKILL");
  process.once("exit", orphan);
  const exited = new Promise<void>((resolve) =>
    child.once("exit", () => {
      process.removeListener("exit", orphan);
      resolve();
    }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new DevStartError(`petset dev not ready after ${opts.readyTimeoutMs ?? 120_000} ms`, stderr));
    }, opts.readyTimeoutMs ?? 120_000);
    child.stdout!.on("data", (d: Buffer) => {
      stdout += d.toString();
      const api = /^apiserver: (\S+)$/m.exec(stdout);
      if (api && /^kubeconfig: /m.test(stdout)) {
        clearTimeout(timer);
        resolve(api[1]!);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new DevStartError(`petset dev exited with ${code} before it was ready`, stderr));
    });
  });
  const access = await kubeconfigAccess(opts.kubeconfig);
  return {
    child,
    pid: child.pid!,
    url,
    kubeconfig: opts.kubeconfig,
    fetch: access.fetch,
    log: () => stderr,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}
