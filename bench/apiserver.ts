/**
 * API server (issues 3/4): ConfigMap creates per second (sequential and 8-way concurrent),
 * listing N objects (latency, bytes), watch fan-out to 100 watchers (time until every
 * watcher has seen a write), and the server's memory and CPU.
 */
import type { BenchContext, Benchmark, BenchOutput } from "./support/bench.js";
import { ProcSampler, readProc } from "./support/proc.js";
import { latencySummary, type Measurement, m, runPool } from "./support/stats.js";
import { watchFanOut } from "./support/watch-latency.js";

const SIZES = {
  small: { sequential: 500, total: 3_000, watchers: 100, watchWrites: 50, listRepeats: 5 },
  full: { sequential: 1_000, total: 10_000, watchers: 100, watchWrites: 200, listRepeats: 5 },
} as const;

const CONCURRENCY = 8;
const PAYLOAD = "x".repeat(256);
const MiB = 1024 * 1024;

function configMap(name: string, i: number) {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, labels: { app: "bench", shard: String(i % 16) } },
    data: { index: String(i), payload: PAYLOAD },
  };
}

/** Creates `count` ConfigMaps starting at index `from`, `concurrency` at a time. */
async function createPhase(ctx: BenchContext, ns: string, from: number, count: number, concurrency: number) {
  const { http, apiServerPid } = ctx.backend;
  const latencies: number[] = [];
  const cpu0 = readProc(apiServerPid).cpuSeconds;
  const t0 = performance.now();
  await runPool(count, concurrency, async (k) => {
    const i = from + k;
    const s = performance.now();
    await http.jsonRetry("POST", `/api/v1/namespaces/${ns}/configmaps`, configMap(`cm-${i}`, i));
    latencies.push(performance.now() - s);
  });
  const seconds = (performance.now() - t0) / 1000;
  const cpu = readProc(apiServerPid).cpuSeconds - cpu0;
  return {
    objects: m(count, "objects"),
    concurrency: m(concurrency, "requests in flight"),
    throughput: m(count / seconds, "creates/s"),
    latency: latencySummary(latencies),
    serverCpuPer1000: m((cpu / count) * 1000, "CPU s per 1000 creates"),
  };
}

async function listPhase(ctx: BenchContext, ns: string, repeats: number) {
  const { http } = ctx.backend;
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  const full: number[] = [];
  let bytes = 0;
  let items = 0;
  await http.request("GET", path); // warm-up
  for (let r = 0; r < repeats; r++) {
    const s = performance.now();
    const res = await http.request("GET", path);
    full.push(performance.now() - s);
    bytes = res.body.length;
    items = (JSON.parse(res.body.toString()) as { items: unknown[] }).items.length;
  }
  // What kubectl and paginating clients do: pages of 500 with continue tokens.
  const paged: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const s = performance.now();
    let token: string | undefined;
    do {
      const q = `?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ""}`;
      const page = await http.json<{ metadata?: { continue?: string } }>("GET", `${path}${q}`);
      token = page.metadata?.continue || undefined;
    } while (token);
    paged.push(performance.now() - s);
  }
  return {
    items: m(items, "objects"),
    responseSize: m(bytes / MiB, "MiB"),
    fullList: latencySummary(full),
    pagedList500: latencySummary(paged),
  };
}

/** `watchers` watches on the namespace; each write is a new ConfigMap; waits for all to see it. */
function watchPhase(ctx: BenchContext, ns: string, watchers: number, writes: number) {
  const { http } = ctx.backend;
  const collection = `/api/v1/namespaces/${ns}/configmaps`;
  return watchFanOut(http, {
    collection,
    watchers,
    writes,
    writeUnit: "creates",
    keyOf: (i) => `fan-${i}`,
    seen: (ev) => {
      const name = ev.object.metadata?.name;
      return ev.type === "ADDED" && name?.startsWith("fan-") ? name : undefined;
    },
    write: (i, name) => http.json("POST", collection, configMap(name, i)),
  });
}

function memory(ctx: BenchContext): Record<string, Measurement> {
  const { apiServerPid, storagePid } = ctx.backend;
  const out: Record<string, Measurement> = { apiServerRss: m(readProc(apiServerPid).rssBytes / MiB, "MiB") };
  if (storagePid) out.etcdRss = m(readProc(storagePid).rssBytes / MiB, "MiB");
  return out;
}

export const apiServerBenchmark: Benchmark = {
  name: "apiserver",
  description: "ConfigMap creates/s, list of N objects, watch fan-out to 100 watchers, server RSS",
  backends: ["embedded", "real"],
  async run(ctx): Promise<BenchOutput> {
    const size = SIZES[ctx.scale];
    const ns = await ctx.backend.namespace("bench-api");
    const sampler = new ProcSampler(ctx.backend.apiServerPid).start();
    const memoryBefore = memory(ctx);
    try {
      ctx.log(`sequential creates: ${size.sequential}`);
      const sequential = await createPhase(ctx, ns, 0, size.sequential, 1);
      ctx.log(`concurrent creates: ${size.total - size.sequential} (${CONCURRENCY}-way)`);
      const concurrent = await createPhase(
        ctx,
        ns,
        size.sequential,
        size.total - size.sequential,
        CONCURRENCY,
      );
      ctx.log(`list of ${size.total}`);
      const list = await listPhase(ctx, ns, size.listRepeats);
      const memoryWithObjects = memory(ctx);
      ctx.log(`watch fan-out: ${size.watchers} watchers x ${size.watchWrites} writes`);
      const watch = await watchPhase(ctx, ns, size.watchers, size.watchWrites);
      const memoryAfterWatch = memory(ctx);
      const serverProcess = sampler.stop();
      return {
        parameters: {
          namespace: ns,
          sequentialCreates: size.sequential,
          concurrentCreates: size.total - size.sequential,
          concurrency: CONCURRENCY,
          listSize: size.total,
          configMapPayloadBytes: PAYLOAD.length,
          watchers: size.watchers,
          watchWrites: size.watchWrites,
          client: "bench/support/kube-http.ts: raw HTTP/1.1 keep-alive, JSON, in the bench process",
        },
        results: {
          createSequential: sequential,
          createConcurrent: concurrent,
          list,
          watchFanOut: watch,
          memory: {
            idle: memoryBefore,
            afterCreatesAndLists: memoryWithObjects,
            afterWatchFanOut: memoryAfterWatch,
          },
          apiServerProcessDuringRun: serverProcess,
        },
        notes: [
          "Latencies include the bench client's own time (same machine, same 2 cores).",
          "Watch latency: from just before the create request until the 100th watcher parsed the ADDED event; one write at a time.",
        ],
      };
    } finally {
      sampler.stop();
      await ctx.backend.deleteNamespace(ns);
    }
  },
};
