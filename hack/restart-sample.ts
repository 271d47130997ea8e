/**
 * Restarts of the controller by hand on a populated namespace, one memory sample each, in two
 * minutes instead of a 25-minute scale run (docs/benchmarks.md §4 "Memory"). The scale
 * benchmark's restart is the moment its RSS peaks; this repeats that moment as often as needed:
 *
 *   1. run the scale benchmark on kube-apiserver (the command of §4) until its log says
 *      `cold start:`, then kill it and its controller (`pkill -KILL -f "node dist/bench/run.js"`,
 *      then the `petset.bundle.js controller` it started): the namespace `bench-scale-<suffix>`
 *      stays, 10,000 PetSets and their pods;
 *   2. node dist/hack/restart-sample.js --namespace bench-scale-<suffix> \
 *        --kubeconfig <cluster dir>/kubeconfig-controller --node "$(bash hack/image-node.sh)" \
 *        [--label base] [--samples 4] [--node-flag=--max-semi-space-size=8 ...] [--env K=V ...]
 *   3. stop the cluster (`bash test/cluster/down.sh` with the same PETSET_CLUSTER_DIR).
 *
 * Each sample starts the bundle's controller (`--no-leader-elect`, an ephemeral /metrics port)
 * with the image's heap flags (`--max-old-space-size=384 --heap-growing-percent=15
 * --max-semi-space-size=16`; flags given here come after them and win) and MALLOC_ARENA_MAX=2,
 * polls /metrics once a second until every PetSet has synced (`petset_syncs_total` at least the
 * PetSets, queue empty), waits 85 s, reads the kernel's high-water mark (VmHWM) and stops it.
 * /proc/PID/status is read every 100 ms; at each new maximum the memory maps are summed by kind
 * (glibc's main arena `[heap]`, its other arenas: 64-MiB aligned maps; other anonymous maps;
 * files). Prints one JSON line per sample and a summary line.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Command } from "commander";
import { z } from "zod";
import { readProc } from "../bench/support/proc.js";
import { metricIn } from "../bench/support/processes.js";
import { sleep } from "../src/util/sleep.js";

const Options = z.object({
  namespace: z.string().min(1),
  kubeconfig: z.string().min(1),
  node: z.string().min(1),
  bundle: z.string().min(1),
  label: z.string().min(1),
  samples: z.coerce.number().int().positive(),
  petsets: z.coerce.number().int().positive(),
  settleSeconds: z.coerce.number().positive(),
  nodeFlag: z.array(z.string()),
  env: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*=/, "K=V")),
});
type Options = z.infer<typeof Options>;

const IMAGE_FLAGS = ["--max-old-space-size=384", "--heap-growing-percent=15", "--max-semi-space-size=16"];
const MiB = 1024 * 1024;
const round1 = (n: number): number => Math.round(n * 10) / 10;

/** VmRSS and VmHWM of a process, MiB. */
function status(pid: number): { rss: number; hwm: number } {
  const p = readProc(pid);
  return { rss: p.rssBytes / MiB, hwm: p.hwmBytes / MiB };
}

interface MapsByKind {
  mainArena: number;
  otherArenas: number;
  anonymous: number;
  files: number;
}

/** RSS of /proc/PID/smaps by kind, MiB. A glibc arena other than the main one is a 64-MiB aligned map (rw, then ---p). */
function mapsByKind(smaps: string): MapsByKind {
  interface Map {
    start: bigint;
    end: bigint;
    perm: string;
    name: string;
    rss: number;
  }
  const maps: Map[] = [];
  for (const line of smaps.split("\n")) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m) {
      maps.push({
        start: BigInt(`0x${m[1]}`),
        end: BigInt(`0x${m[2]}`),
        perm: m[3] ?? "",
        name: m[4] ?? "",
        rss: 0,
      });
      continue;
    }
    const r = /^Rss:\s+(\d+) kB/.exec(line);
    const last = maps.at(-1);
    if (r && last) last.rss = Number(r[1]) / 1024;
  }
  const out: MapsByKind = { mainArena: 0, otherArenas: 0, anonymous: 0, files: 0 };
  const arena = 64n << 20n;
  for (const [i, m] of maps.entries()) {
    if (m.name === "[heap]") out.mainArena += m.rss;
    else if (m.name !== "" && !m.name.startsWith("[anon")) out.files += m.rss;
    else {
      const next = maps[i + 1];
      const aligned = m.perm.startsWith("rw") && m.start % arena === 0n;
      const whole = m.end - m.start === arena;
      const withGuard = next?.perm === "---p" && next.start === m.end && next.end - m.start === arena;
      if (aligned && (whole || withGuard)) out.otherArenas += m.rss;
      else out.anonymous += m.rss;
    }
  }
  return {
    mainArena: round1(out.mainArena),
    otherArenas: round1(out.otherArenas),
    anonymous: round1(out.anonymous),
    files: round1(out.files),
  };
}

interface Sample {
  label: string;
  readySeconds: number;
  syncedSeconds: number;
  rssReady: number;
  rssSynced: number;
  rssEnd: number;
  maxSampled: number;
  maxAtSeconds: number;
  hwm: number;
  mapsAtMax: MapsByKind | undefined;
  heapUsedEnd: number;
  heapTotalEnd: number;
}

async function sampleOnce(o: Options, n: number): Promise<Sample> {
  const t0 = performance.now();
  const seconds = (): number => round1((performance.now() - t0) / 1000);
  const env: NodeJS.ProcessEnv = { ...process.env, MALLOC_ARENA_MAX: "2" };
  for (const kv of o.env) {
    const i = kv.indexOf("=");
    env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  const args = [...IMAGE_FLAGS, ...o.nodeFlag, o.bundle, "controller", "--kubeconfig", o.kubeconfig];
  args.push(
    "--namespace",
    o.namespace,
    "--no-leader-elect",
    "--metrics-addr",
    "127.0.0.1:0",
    "--log-level",
    "info",
  );
  const proc = spawn(o.node, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  const pid = proc.pid;
  if (pid === undefined) throw new Error(`cannot start ${o.node}`);
  let port: number | undefined;
  let pending = "";
  const onData = (chunk: Buffer): void => {
    pending += chunk.toString("utf8");
    for (let i = pending.indexOf("\n"); i >= 0; i = pending.indexOf("\n")) {
      const line = pending.slice(0, i);
      pending = pending.slice(i + 1);
      if (port === undefined && line.includes('"metricsPort"')) {
        port = z.object({ metricsPort: z.number() }).parse(JSON.parse(line)).metricsPort;
      }
    }
  };
  proc.stdout.on("data", onData);
  proc.stderr.on("data", onData);
  let max = 0;
  let maxAt = 0;
  let mapsAtMax: MapsByKind | undefined;
  const timer = setInterval(() => {
    try {
      const s = status(pid);
      if (s.rss <= max) return;
      if (s.rss > max + 2 || mapsAtMax === undefined)
        mapsAtMax = mapsByKind(readFileSync(`/proc/${pid}/smaps`, "utf8"));
      max = s.rss;
      maxAt = seconds();
    } catch {
      // the process is gone; the caller notices
    }
  }, 100);
  try {
    const deadline = Date.now() + 180_000;
    const get = async (path: string): Promise<{ status: number; text: string } | undefined> => {
      if (Date.now() > deadline) throw new Error(`sample ${n}: not synced within 180 s`);
      if (proc.exitCode !== null) throw new Error(`sample ${n}: the controller exited (${proc.exitCode})`);
      if (port === undefined) return undefined;
      const res = await fetch(`http://127.0.0.1:${port}${path}`).catch(() => undefined);
      return res && { status: res.status, text: await res.text() };
    };
    while ((await get("/readyz"))?.status !== 200) await sleep(100);
    const readySeconds = seconds();
    const rssReady = status(pid).rss;
    for (;;) {
      const text = (await get("/metrics"))?.text ?? "";
      if (metricIn(text, "petset_syncs_total") >= o.petsets && metricIn(text, "petset_queue_depth") === 0)
        break;
      await sleep(1000);
    }
    const syncedSeconds = seconds();
    const rssSynced = status(pid).rss;
    await sleep(o.settleSeconds * 1000);
    const end = status(pid);
    const text = (await get("/metrics"))?.text ?? "";
    return {
      label: `${o.label}-${n}`,
      readySeconds,
      syncedSeconds,
      rssReady: round1(rssReady),
      rssSynced: round1(rssSynced),
      rssEnd: round1(end.rss),
      maxSampled: round1(max),
      maxAtSeconds: maxAt,
      hwm: round1(status(pid).hwm),
      mapsAtMax,
      heapUsedEnd: round1(metricIn(text, "nodejs_heap_size_used_bytes") / MiB),
      heapTotalEnd: round1(metricIn(text, "nodejs_heap_size_total_bytes") / MiB),
    };
  } finally {
    clearInterval(timer);
    proc.kill("SIGTERM");
    await new Promise((r) => (proc.exitCode !== null ? r(undefined) : proc.once("exit", r)));
  }
}

async function main(): Promise<void> {
  const collect = (v: string, prev: string[]): string[] => [...prev, v];
  const program = new Command("restart-sample")
    .description("restart the controller on a populated namespace and sample its memory (see the header)")
    .requiredOption("--namespace <ns>", "the populated namespace (bench-scale-<suffix>)")
    .requiredOption("--kubeconfig <file>", "the controller's kubeconfig of that cluster")
    .option("--node <binary>", "the Node.js binary (the image's: bash hack/image-node.sh)", process.execPath)
    .option("--bundle <file>", "the controller bundle", "dist/src/cli/petset.bundle.js")
    .option("--label <name>", "a name for this build or flag set", "sample")
    .option("--samples <n>", "restarts, one after the other", "4")
    .option("--petsets <n>", "PetSets in the namespace (synced when the sync counter reaches it)", "10000")
    .option("--settle-seconds <n>", "seconds to run after every PetSet has synced", "85")
    .option("--node-flag <flag>", "a node flag after the image's (repeatable)", collect, [])
    .option("--env <K=V>", "an environment variable for the controller (repeatable)", collect, [])
    .parse();
  const o = Options.parse(program.opts());
  const hwms: number[] = [];
  for (let n = 1; n <= o.samples; n++) {
    const s = await sampleOnce(o, n);
    hwms.push(Math.max(s.hwm, s.maxSampled));
    console.log(JSON.stringify(s));
  }
  const sorted = [...hwms].sort((a, b) => a - b);
  console.log(
    `${o.label}: ${o.samples} restarts, high-water mark MiB min ${sorted[0]} median ${sorted[Math.floor(sorted.length / 2)]} max ${sorted.at(-1)}; above 300: ${hwms.filter((h) => h > 300).length}`,
  );
}

await main();
