/** Child processes the benchmarks start: `petset dev` and `petset controller`. */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";

/** dist/ (this file is dist/bench/support/processes.js once built). */
export const DIST_ROOT = resolve(import.meta.dirname, "..", "..");
export const REPO_ROOT = resolve(DIST_ROOT, "..");
export const PETSET_BIN = join(DIST_ROOT, "src", "cli", "petset.js");
/**
 * The controller as the container image runs it: the bundle of hack/bundle.ts (`make build`).
 * run.ts `--controller-unbundled` starts PETSET_BIN (the tsc build) instead.
 */
export const CONTROLLER_BIN = join(DIST_ROOT, "src", "cli", "petset.bundle.js");

export interface Child {
  readonly process: ChildProcess;
  readonly pid: number;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process has exited. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Spawns `node <args>` and resolves with the first output line `match` accepts (and the
 * value it returns) on stdout or stderr. Every output line is copied to `logPath`.
 */
export async function spawnNode<T>(
  args: string[],
  logPath: string,
  match: (line: string) => T | undefined,
  timeoutMs = 60_000,
  extraEnv: Record<string, string> = {},
  node = process.execPath,
): Promise<{ child: Child; value: T }> {
  const env = { ...process.env, ...extraEnv };
  const proc = spawn(node, args, { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  const log = createWriteStream(logPath);
  const exited = new Promise<void>((r) => proc.once("exit", () => r()));
  // Never leave a child behind when the benchmark process exits (run.ts turns signals into exit).
  const killOnExit = () => proc.kill("SIGKILL");
  process.once("exit", killOnExit);
  void exited.then(() => process.off("exit", killOnExit));
  const child: Child = {
    process: proc,
    pid: proc.pid ?? -1,
    async stop(graceMs = 5_000) {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
      log.end();
    },
  };
  const value = await new Promise<T>((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`node ${args.join(" ")}: no ready line after ${timeoutMs} ms (log: ${logPath})`));
    }, timeoutMs);
    let found = false;
    // Commands print results on stdout and log (pino JSON) on stderr: look at both.
    for (const stream of [proc.stdout, proc.stderr]) {
      if (!stream) continue;
      createInterface({ input: stream }).on("line", (line) => {
        log.write(`${line}\n`);
        if (found) return;
        const v = match(line);
        if (v !== undefined) {
          found = true;
          clearTimeout(timer);
          resolvePromise(v);
        }
      });
    }
    proc.once("exit", (code) => {
      clearTimeout(timer);
      if (!found) reject(new Error(`node ${args.join(" ")} exited with ${code} (log: ${logPath})`));
    });
  });
  return { child, value };
}

/**
 * How every controller child of this benchmark run starts (run.ts sets it once from its flags):
 * which build (`--controller-unbundled`: the tsc build) and the environment beside the
 * benchmark's own (`--controller-env`, e.g. MALLOC_ARENA_MAX as deploy/controller.yaml sets it)
 * and the Node binary (`--controller-node`: the image's Node 24 against the machine's Node 20).
 */
const controllers = { bin: CONTROLLER_BIN, env: {} as Record<string, string>, node: process.execPath };
export function configureControllers(o: {
  unbundled: boolean;
  env: Record<string, string>;
  node?: string | undefined;
}): void {
  controllers.bin = o.unbundled ? PETSET_BIN : CONTROLLER_BIN;
  controllers.env = o.env;
  controllers.node = o.node ?? process.execPath;
}

export interface ControllerProcess extends Child {
  metricsPort: number;
  /** Sum of petset_api_writes_total, and by "verb resource". */
  apiWrites(): Promise<{ total: number; byKind: Record<string, number> }>;
  metricsText(): Promise<string>;
}

/** `petset controller` limited to one namespace, without leader election, metrics on a free port. */
export async function startController(
  kubeconfigPath: string,
  /** Watched namespace; undefined: every namespace (as deployed). */
  namespace: string | undefined,
  logPath: string,
  extraNodeArgs: string[] = [],
): Promise<ControllerProcess> {
  const args = [
    ...extraNodeArgs,
    controllers.bin,
    "controller",
    "--kubeconfig",
    kubeconfigPath,
    ...(namespace === undefined ? [] : ["--namespace", namespace]),
    "--no-leader-elect",
    "--metrics-addr",
    "127.0.0.1:0",
    "--log-level",
    process.env.PETSET_BENCH_CONTROLLER_LOG_LEVEL ?? "info",
  ];
  const { child, value: metricsPort } = await spawnNode(
    args,
    logPath,
    (line) => {
      if (!line.includes("metricsPort")) return undefined;
      const parsed = JSON.parse(line) as { metricsPort?: number };
      return parsed.metricsPort;
    },
    60_000,
    controllers.env,
    controllers.node,
  );
  const metricsText = async () => {
    const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    return res.text();
  };
  // Wait for the caches to sync, so the benchmark measures work, not start-up.
  for (let i = 0; ; i++) {
    const res = await fetch(`http://127.0.0.1:${metricsPort}/readyz`).catch(() => undefined);
    if (res?.status === 200) break;
    // Generous: the scale benchmark starts it on 10,000 PetSets and measures this wait.
    if (i > 6_000) throw new Error(`controller not ready after 600 s (log: ${logPath})`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    ...child,
    metricsPort,
    metricsText,
    async apiWrites() {
      const text = await metricsText();
      const byKind: Record<string, number> = {};
      let total = 0;
      for (const line of text.split("\n")) {
        const match = /^petset_api_writes_total\{(.*)\} (\S+)$/.exec(line);
        if (!match) continue;
        const labels = Object.fromEntries(
          [...(match[1] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]),
        );
        const n = Number(match[2]);
        total += n;
        const key = `${labels.verb} ${labels.resource}`;
        byKind[key] = (byKind[key] ?? 0) + n;
      }
      return { total, byKind };
    },
  };
}

/** Differences of two apiWrites() readings. */
export function writesBetween(
  before: { total: number; byKind: Record<string, number> },
  after: { total: number; byKind: Record<string, number> },
): { total: number; byKind: Record<string, number> } {
  const byKind: Record<string, number> = {};
  for (const [k, v] of Object.entries(after.byKind)) {
    const d = v - (before.byKind[k] ?? 0);
    if (d !== 0) byKind[k] = d;
  }
  return { total: after.total - before.total, byKind };
}

/**
 * Seconds until the controller is quiet: its queue empty and no sync finished for `quietMs`
 * (petset_syncs_total unchanged), so follow-up work of a phase (its own writes' events,
 * coalesced status writes) is not timed as the next phase's. Gives up after `deadlineMs`.
 */
export async function secondsUntilQuiet(
  controller: ControllerProcess,
  quietMs = 1_000,
  deadlineMs = 120_000,
): Promise<number> {
  const t0 = performance.now();
  const read = async () => {
    const text = await controller.metricsText();
    return { depth: metricIn(text, "petset_queue_depth"), syncs: metricIn(text, "petset_syncs_total") };
  };
  let last = await read();
  let quietSince = performance.now();
  while (performance.now() - t0 < deadlineMs) {
    await new Promise((r) => setTimeout(r, 100));
    const now = await read();
    if (now.depth !== 0 || now.syncs !== last.syncs) quietSince = performance.now();
    else if (performance.now() - quietSince >= quietMs) break;
    last = now;
  }
  return (quietSince - t0) / 1000;
}

/** The sum of a metric's series in one scrape's text. */
export function metricIn(text: string, name: string): number {
  let sum = 0;
  const series = new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`);
  for (const line of text.split("\n")) {
    const match = series.exec(line);
    if (match) sum += Number(match[2]);
  }
  return sum;
}
