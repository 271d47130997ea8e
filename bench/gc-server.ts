/**
 * GC server cost (issue 13): what deleting N PetSetVersions costs the API server, with no
 * controller running, two ways: one DELETE per version (16 in flight, as the history GC does)
 * and `deletecollection` with a label selector naming the version numbers (chunks of 500, 4
 * in flight). Answers whether moving the history GC to deletecollection could meet "10,000
 * in < 15 s on kube-apiserver": the server's CPU per delete is the floor either way.
 */
import type { Backend } from "./support/backends.js";
import type { BenchContext, Benchmark, BenchOutput } from "./support/bench.js";
import { petSetManifest, petSetsPath, versionsPath } from "./support/petsets.js";
import { readProc } from "./support/proc.js";
import { m, runPool } from "./support/stats.js";

const DELETES_IN_FLIGHT = 16;
const CHUNK = 500;
const CHUNKS_IN_FLIGHT = 4;

interface Made {
  apiVersion: string;
  kind: string;
  metadata: { uid: string };
  spec: { template: unknown };
}

async function makeVersions(b: Backend, ns: string, count: number): Promise<void> {
  const ps = await b.http.json<Made>(
    "POST",
    petSetsPath(ns),
    petSetManifest("gc", { replicas: 0, image: "registry.example/app:gc", revisionHistoryLimit: count + 10 }),
  );
  const owner = {
    apiVersion: ps.apiVersion,
    kind: ps.kind,
    name: "gc",
    uid: ps.metadata.uid,
    controller: true,
  };
  await runPool(count, 8, async (i) => {
    const n = i + 1;
    await b.http.jsonRetry("POST", versionsPath(ns), {
      apiVersion: ps.apiVersion,
      kind: "PetSetVersion",
      metadata: {
        name: `gc-v${n}`,
        labels: { "petset.dev/petset": "gc", "petset.dev/version": String(n), "petset.dev/hash": "h" },
        ownerReferences: [owner],
      },
      spec: {
        petSet: "gc",
        version: n,
        generation: 1,
        hash: "h",
        template: ps.spec.template,
        changeCause: "bench",
      },
    });
  });
}

/** CPU seconds of the API server (and its storage) while `work` runs, and the wall time. */
async function measured(b: Backend, work: () => Promise<void>) {
  const pids = [b.apiServerPid, ...(b.storagePid ? [b.storagePid] : [])];
  const cpu = () => pids.map((p) => readProc(p).cpuSeconds);
  const c0 = cpu();
  const t0 = performance.now();
  await work();
  const seconds = (performance.now() - t0) / 1000;
  const c1 = cpu();
  return { seconds, server: c1[0]! - c0[0]!, storage: pids.length > 1 ? c1[1]! - c0[1]! : undefined };
}

async function oneMode(ctx: BenchContext, mode: "items" | "deletecollection", count: number) {
  const b = ctx.backend;
  const ns = await b.namespace(`bench-gc-${mode}`);
  await makeVersions(b, ns, count);
  ctx.log(`${mode}: ${count} versions made; deleting`);
  const r = await measured(b, async () => {
    if (mode === "items") {
      await runPool(count, DELETES_IN_FLIGHT, async (i) => {
        await b.http.json("DELETE", `${versionsPath(ns)}/gc-v${i + 1}`);
      });
      return;
    }
    const chunks = Math.ceil(count / CHUNK);
    await runPool(chunks, CHUNKS_IN_FLIGHT, async (c) => {
      const numbers = Array.from({ length: Math.min(CHUNK, count - c * CHUNK) }, (_, k) => c * CHUNK + k + 1);
      const selector = encodeURIComponent(
        `petset.dev/petset=gc,petset.dev/version in (${numbers.join(",")})`,
      );
      await b.http.json("DELETE", `${versionsPath(ns)}?labelSelector=${selector}`);
    });
  });
  const left = await b.http.json<{ items: unknown[] }>("GET", versionsPath(ns));
  await b.deleteNamespace(ns);
  ctx.log(`${mode}: ${count} in ${r.seconds.toFixed(1)} s, server CPU ${r.server.toFixed(1)} s`);
  return {
    deleted: m(count - left.items.length, "versions"),
    time: m(r.seconds, "s"),
    deletesPerSecond: m(count / r.seconds, "deletes/s"),
    serverCpu: m(r.server, "s"),
    serverCpuPerDelete: m((r.server * 1000) / count, "ms"),
    ...(r.storage !== undefined
      ? { storageCpu: m(r.storage, "s"), storageCpuPerDelete: m((r.storage * 1000) / count, "ms") }
      : {}),
  };
}

export const gcServerBenchmark: Benchmark = {
  name: "gc-server",
  description: "API server cost of deleting N PetSetVersions: one DELETE each vs deletecollection",
  backends: ["embedded", "real"],
  async run(ctx): Promise<BenchOutput> {
    const count = ctx.sizes.gcVersions ?? (ctx.scale === "full" ? 10_000 : 2_000);
    const items = await oneMode(ctx, "items", count);
    const collection = await oneMode(ctx, "deletecollection", count);
    return {
      parameters: {
        versions: count,
        deletesInFlight: DELETES_IN_FLIGHT,
        chunk: CHUNK,
        chunksInFlight: CHUNKS_IN_FLIGHT,
      },
      results: { items, deletecollection: collection },
      notes: [
        "No controller runs: the versions are made and deleted by the benchmark's own HTTP client.",
        `items: one DELETE per version, ${DELETES_IN_FLIGHT} in flight (the history GC's waves). deletecollection: label selector petset.dev/version in (...), ${CHUNK} numbers per request, ${CHUNKS_IN_FLIGHT} requests in flight.`,
        "Server CPU is the API server process's (real: kube-apiserver; storage: etcd), from /proc, over the delete phase only.",
      ],
    };
  },
};
