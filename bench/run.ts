#!/usr/bin/env node
/**
 * `make bench`: runs the benchmarks against the embedded API server and/or the real control
 * plane of test/cluster and writes one JSON record per benchmark and backend to
 * bench/results/<name>-<backend>.json. See docs/benchmarks.md.
 */
import { execFileSync } from "node:child_process";
import { loadavg } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { Command, Option } from "commander";
import { apiServerBenchmark } from "./apiserver.js";
import { gcServerBenchmark } from "./gc-server.js";
import { historyCompareBenchmark } from "./history-compare.js";
import { rolloutBenchmark } from "./rollout.js";
import { scaleBenchmark } from "./scale.js";
import { type BackendName, startBackend } from "./support/backends.js";
import type { Benchmark, Scale } from "./support/bench.js";
import { configureControllers, REPO_ROOT } from "./support/processes.js";
import { machineInfo, writeRecord } from "./support/results.js";
import { versionsBenchmark } from "./versions.js";

const BENCHMARKS: readonly Benchmark[] = [
  apiServerBenchmark,
  versionsBenchmark,
  rolloutBenchmark,
  scaleBenchmark,
  gcServerBenchmark,
  historyCompareBenchmark,
];

interface Flags {
  only?: string[];
  backend: "embedded" | "real" | "both";
  scale: Scale;
  out: string;
  statefulset: boolean;
  controllerCpuProf?: string;
  controllerHeapSnapshots?: string;
  controllerMaxOldSpace?: string;
  controllerSemiSpace?: string;
  controllerEnv?: string[];
  controllerUnbundled: boolean;
  controllerNodeFlag?: string[];
  controllerNode?: string;
  compareOnly: boolean;
  serverCpuProf?: string;
  serverNodeFlag?: string[];
  petsets?: number;
  changes?: number;
  gcVersions?: number;
  pets?: number;
  runs?: number;
  comparePets?: number;
  compareWarmups?: number;
  historySets?: number;
  historyGc?: number;
}

const count = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`expected a positive integer, got ${v}`);
  return n;
};

const program = new Command()
  .name("bench")
  .description("petset benchmarks; results in <out>/<name>-<backend>.json")
  .option("--only <name...>", `run only these (${BENCHMARKS.map((b) => b.name).join(", ")})`)
  .addOption(
    new Option("--backend <b>", "where to run").choices(["embedded", "real", "both"]).default("both"),
  )
  .addOption(new Option("--scale <s>", "problem sizes").choices(["small", "full"]).default("small"))
  .option("--out <dir>", "results directory", "bench/results")
  .option(
    "--statefulset",
    "rollout, history-compare: also side by side with kube-controller-manager's StatefulSet controller on a private control plane of kube-apiserver built from Go modules, whichever --backend (bench/rollout-compare.ts, bench/history-compare.ts)",
    false,
  )
  .option("--controller-cpu-prof <dir>", "run the controller under node --cpu-prof, profiles into <dir>")
  .option(
    "--controller-heap-snapshots <dir>",
    "controller writes a heap snapshot into <dir> on SIGUSR2 (kill -USR2 <pid>)",
  )
  .option(
    "--controller-max-old-space <MiB>",
    "run the controller with node --max-old-space-size (deploy/controller.yaml sets 384 for its 512Mi limit)",
  )
  .option(
    "--controller-semi-space <MiB>",
    "run the controller with node --max-semi-space-size (young generation; not set in deploy/)",
  )
  .option(
    "--controller-env <NAME=VALUE...>",
    "environment for the controller child processes only (e.g. MALLOC_ARENA_MAX=2, as deploy/controller.yaml sets it)",
  )
  .option(
    "--controller-node-flag <flag...>",
    "node flags for the controller child processes, before the script (e.g. --heap-growing-percent=20 as the image's ENTRYPOINT passes it)",
  )
  .option(
    "--controller-node <binary>",
    "the Node binary running the controller child processes (default: this one; e.g. a Node 24 as the image has)",
  )
  .option(
    "--compare-only",
    "with --statefulset: rollout runs only its comparison, history-compare only its side by side with kube-controller-manager (make bench-quick)",
    false,
  )
  .option(
    "--controller-unbundled",
    "run the controller from the tsc build (dist/src/cli/petset.js) instead of the bundle the image runs (hack/bundle.ts)",
    false,
  )
  .option("--server-cpu-prof <dir>", "embedded: run petset dev under node --cpu-prof, profiles into <dir>")
  .option(
    "--server-node-flag <flag...>",
    "embedded: node flags for petset dev (e.g. --max-old-space-size=12288: at 10,000 x 3 the server's heap nears Node's default 4 GiB limit)",
  )
  .option("--petsets <n>", "versions, scale: PetSets (overrides --scale)", count)
  .option("--changes <n>", "versions: template changes per PetSet (overrides --scale)", count)
  .option(
    "--gc-versions <n>",
    "versions, gc-server: excess versions the GC collects (overrides --scale)",
    count,
  )
  .option("--pets <n>", "rollout: pets; scale: pets per PetSet (overrides --scale)", count)
  .option(
    "--runs <n>",
    "rollout --statefulset: rounds per maxUnavailable (default 3); history-compare: rounds per side (default 2)",
    count,
  )
  .option("--compare-pets <n>", "rollout --statefulset: pets in the comparison (default --pets)", count)
  .option(
    "--compare-warmups <n>",
    "rollout --statefulset: unrecorded petset runs before the recorded ones, maxUnavailable 1 and 10 in turn (default 1)",
    count,
  )
  .option("--history-sets <n>", "history-compare: sets per side (default --petsets, else by --scale)", count)
  .option(
    "--history-gc <n>",
    "history-compare: excess history objects the GC deletes (default --gc-versions)",
    count,
  );

/** The commit the code ran from, so records of different builds are never read as one curve. */
function gitCommit(): string | undefined {
  try {
    const run = (args: string[]) => execFileSync("git", args, { cwd: REPO_ROOT, encoding: "utf8" }).trim();
    // The last commit that changed the code measured (not results or docs), "-dirty" with local changes.
    const code = ["--", "src", "bench", ":!bench/results"];
    const commit = run(["log", "-1", "--format=%h", ...code]);
    return `${commit}${run(["status", "--porcelain", ...code]) ? "-dirty" : ""}`;
  } catch {
    return undefined;
  }
}

const cpuProfArgs = (dir: string) => ["--cpu-prof", `--cpu-prof-dir=${resolve(dir)}`];
const heapSnapshotArgs = (dir: string) => [
  "--heapsnapshot-signal=SIGUSR2",
  `--diagnostic-dir=${resolve(dir)}`,
];

async function main(): Promise<void> {
  // Exit handlers stop the child processes (controller, petset dev) on Ctrl-C too.
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));
  program.parse(process.argv);
  const flags = program.opts<Flags>();
  const controllerEnv: Record<string, string> = {};
  for (const pair of flags.controllerEnv ?? []) {
    const eq = pair.indexOf("=");
    if (eq < 1) throw new Error(`--controller-env: expected NAME=VALUE, got ${JSON.stringify(pair)}`);
    controllerEnv[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  configureControllers({
    unbundled: flags.controllerUnbundled,
    env: controllerEnv,
    node: flags.controllerNode,
  });
  const unknown = (flags.only ?? []).filter((n) => !BENCHMARKS.some((b) => b.name === n));
  if (unknown.length > 0) throw new Error(`--only: unknown benchmark ${unknown.join(", ")}`);
  const selected = BENCHMARKS.filter((b) => !flags.only || flags.only.includes(b.name));
  const backends: BackendName[] = flags.backend === "both" ? ["embedded", "real"] : [flags.backend];
  const outDir = resolve(REPO_ROOT, flags.out);
  // Absolute paths (an --out or profile directory) are this machine's: recorded as DIR.
  const args = process.argv.slice(2).map((a) => (isAbsolute(a) ? "DIR" : a));
  const command = `node dist/bench/run.js ${args.join(" ")}`.trim();
  let failures = 0;
  for (const bench of selected) {
    for (const backendName of backends) {
      if (!bench.backends.includes(backendName)) continue;
      const tag = `[${bench.name}/${backendName}]`;
      const log = (msg: string) => process.stdout.write(`${tag} ${msg}\n`);
      const start = machineInfo();
      const startedAt = new Date().toISOString();
      const t0 = performance.now();
      log(`start (scale ${flags.scale}, loadavg ${start.loadavg.join(" ")})`);
      const serverNodeArgs = [
        ...(flags.serverCpuProf ? cpuProfArgs(flags.serverCpuProf) : []),
        ...(flags.serverNodeFlag ?? []),
      ];
      const backend = await startBackend(backendName, { ...bench.backendOptions, serverNodeArgs });
      try {
        const controllerNodeArgs = [
          ...(flags.controllerCpuProf ? cpuProfArgs(flags.controllerCpuProf) : []),
          ...(flags.controllerHeapSnapshots ? heapSnapshotArgs(flags.controllerHeapSnapshots) : []),
          ...(flags.controllerMaxOldSpace ? [`--max-old-space-size=${flags.controllerMaxOldSpace}`] : []),
          ...(flags.controllerSemiSpace ? [`--max-semi-space-size=${flags.controllerSemiSpace}`] : []),
          ...(flags.controllerNodeFlag ?? []),
        ];
        const out = await bench.run({
          backend,
          scale: flags.scale,
          statefulSet: flags.statefulset,
          compareOnly: flags.compareOnly,
          controllerNodeArgs,
          ...(flags.controllerCpuProf ? { controllerCpuProfDir: resolve(flags.controllerCpuProf) } : {}),
          sizes: {
            petSets: flags.petsets,
            changes: flags.changes,
            gcVersions: flags.gcVersions,
            pets: flags.pets,
            runs: flags.runs,
            comparePets: flags.comparePets,
            compareWarmups: flags.compareWarmups,
            historySets: flags.historySets,
            historyGc: flags.historyGc,
          },
          log,
        });
        const path = writeRecord(outDir, {
          benchmark: bench.name,
          backend: backendName,
          scale: flags.scale,
          command,
          commit: gitCommit(),
          startedAt,
          durationSeconds: Number(((performance.now() - t0) / 1000).toFixed(1)),
          machine: { start, loadavgEnd: loadavg().map((l) => Number(l.toFixed(2))) },
          // The Node release the controller ran on (the image's is 24; the machine's may differ).
          controllerNode: execFileSync(flags.controllerNode ?? process.execPath, ["--version"], {
            encoding: "utf8",
          }).trim(),
          server: { ...backend.describe, ...out.server },
          parameters: out.parameters,
          results: out.results,
          notes: out.notes,
        });
        log(`wrote ${path} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
      } catch (err) {
        failures++;
        log(`FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      } finally {
        await backend.stop();
      }
    }
  }
  process.exit(failures > 0 ? 1 : 0);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
});
