/**
 * Versions (issue 5): N PetSets x M template changes, latency from the PetSet write to its
 * PetSetVersion being visible on a watch; the controller's CPU and memory; and the history
 * GC of many excess versions when revisionHistoryLimit is lowered to 0.
 */
import { join } from "node:path";
import type { BenchContext, Benchmark, BenchOutput } from "./support/bench.js";
import { changesOneAtATime } from "./support/changes-among.js";
import {
  imagePatch,
  MERGE_PATCH,
  petSetManifest,
  petSetsPath,
  VersionWatch,
  versionsPath,
} from "./support/petsets.js";
import { ProcSampler, readProc } from "./support/proc.js";
import {
  type ControllerProcess,
  secondsUntilQuiet,
  startController,
  writesBetween,
} from "./support/processes.js";
import { latencySummary, m, percentile, runPool } from "./support/stats.js";

const SCALES = {
  small: { petSets: 100, changes: 10, gcExcess: 2_000 },
  full: { petSets: 1_000, changes: 20, gcExcess: 10_000 },
} as const;

function sizes(ctx: BenchContext) {
  const base = SCALES[ctx.scale];
  return {
    petSets: ctx.sizes.petSets ?? base.petSets,
    changes: ctx.sizes.changes ?? base.changes,
    gcExcess: ctx.sizes.gcVersions ?? base.gcExcess,
  };
}
const CONCURRENCY = 8;
/** Changes made one at a time after the bursts, for the idle write → version latency. */
const SINGLE_CHANGES = 200;
const ROUND_TIMEOUT_MS = 180_000;

/**
 * One burst: a write for each name, 8 at a time; latency until a version of that PetSet
 * with the written generation (spec.generation) is seen. Matching by generation, not by
 * name, keeps the measurement right when version numbers skip.
 */
async function burst(
  ctx: BenchContext,
  watch: VersionWatch,
  names: readonly string[],
  write: (name: string) => Promise<Written>,
): Promise<{ latencies: number[]; missing: number; seconds: number }> {
  const sentAt = new Map<string, number>();
  const t0 = performance.now();
  await runPool(names.length, CONCURRENCY, async (i) => {
    const name = names[i] ?? "";
    const at = performance.now();
    const written = await write(name);
    sentAt.set(`${name}@${written.metadata.generation}`, at);
  });
  const expected = [...sentAt.keys()];
  await watch.until(() => expected.every((k) => watch.byGeneration.has(k)), ROUND_TIMEOUT_MS);
  const latencies: number[] = [];
  let missing = 0;
  for (const [k, at] of sentAt) {
    const seen = watch.byGeneration.get(k);
    if (seen === undefined) missing++;
    else latencies.push(seen - at);
  }
  if (missing > 0) ctx.log(`  ${missing} of ${names.length} versions not seen within ${ROUND_TIMEOUT_MS} ms`);
  return { latencies, missing, seconds: (performance.now() - t0) / 1000 };
}

type Written = { metadata: { generation?: number } };

async function versionsPhase(
  ctx: BenchContext,
  ns: string,
  watch: VersionWatch,
  controller: ControllerProcess,
) {
  const { http } = ctx.backend;
  const size = sizes(ctx);
  const names = Array.from({ length: size.petSets }, (_, i) => `ps-${i}`);
  const sampler = new ProcSampler(controller.pid).start();
  const serverSampler = new ProcSampler(ctx.backend.apiServerPid).start();
  const writes0 = await controller.apiWrites();
  const t0 = performance.now();
  ctx.log(`create ${names.length} PetSets`);
  const created = await burst(ctx, watch, names, (name) =>
    http.jsonRetry<Written>(
      "POST",
      petSetsPath(ns),
      petSetManifest(name, { replicas: 0, image: "registry.example/app:r0" }),
    ),
  );
  const changes: number[] = [];
  let missing = created.missing;
  const rounds: Array<Record<string, number>> = [];
  for (let r = 1; r <= size.changes; r++) {
    const cpu0 = cpuSeconds(ctx, controller);
    const round = await burst(ctx, watch, names, (name) =>
      http.jsonRetry<Written>(
        "PATCH",
        `${petSetsPath(ns)}/${name}`,
        imagePatch(name, `registry.example/app:r${r}`),
        MERGE_PATCH,
      ),
    );
    changes.push(...round.latencies);
    missing += round.missing;
    const cpu1 = cpuSeconds(ctx, controller);
    const made = names.length - round.missing;
    const row = {
      round: r,
      seconds: round.seconds,
      versionsPerSecond: made / round.seconds,
      controllerCpuMsPerVersion: ((cpu1.controller - cpu0.controller) * 1000) / made,
      serverCpuMsPerVersion: ((cpu1.server - cpu0.server) * 1000) / made,
      p50Ms: percentile(round.latencies, 50),
      p99Ms: percentile(round.latencies, 99),
    };
    rounds.push(Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v.toFixed(3))])));
    ctx.log(
      `change ${r}/${size.changes}: ${round.seconds.toFixed(1)} s, ${row.versionsPerSecond.toFixed(0)} versions/s, CPU/version controller ${row.controllerCpuMsPerVersion.toFixed(2)} ms server ${row.serverCpuMsPerVersion.toFixed(2)} ms, p50 ${row.p50Ms.toFixed(0)} ms`,
    );
  }
  const seconds = (performance.now() - t0) / 1000;
  const writes = writesBetween(writes0, await controller.apiWrites());
  const versionsMade = names.length * (size.changes + 1) - missing;
  const controllerUse = sampler.stop();
  const serverUse = serverSampler.stop();
  const first = rounds[0];
  const last = rounds.at(-1);
  const ratio = (k: string) => (first && last && first[k] ? (last[k] ?? 0) / first[k] : 0);
  return {
    rounds,
    lastRoundOverFirst: {
      controllerCpuPerVersion: m(ratio("controllerCpuMsPerVersion"), "x"),
      serverCpuPerVersion: m(ratio("serverCpuMsPerVersion"), "x"),
      wallTimePerVersion: m(first && last ? (last.seconds ?? 0) / (first.seconds ?? 1) : 0, "x"),
    },
    controllerCpuPerVersion: m(((controllerUse.cpuTime?.value ?? 0) * 1000) / versionsMade, "ms/version"),
    serverCpuPerVersion: m(((serverUse.cpuTime?.value ?? 0) * 1000) / versionsMade, "ms/version"),
    versionsPerCpuSecond: m(
      versionsMade / ((controllerUse.cpuTime?.value ?? 0) + (serverUse.cpuTime?.value ?? 0)),
      "versions per CPU s (controller + server)",
    ),
    createToFirstVersion: latencySummary(created.latencies),
    changeToVersion: latencySummary(changes),
    versionsNotSeen: m(missing, "versions"),
    wallTime: m(seconds, "s"),
    versionThroughput: m(versionsMade / seconds, "versions/s"),
    controllerApiWrites: {
      total: m(writes.total, "writes"),
      perVersion: m(writes.total / versionsMade, "writes/version"),
      byKind: writes.byKind,
    },
    controller: controllerUse,
    server: serverUse,
  };
}

/** CPU seconds so far of the controller and of the API server (+ etcd on real). */
function cpuSeconds(
  ctx: BenchContext,
  controller: ControllerProcess,
): { controller: number; server: number } {
  const server = [ctx.backend.apiServerPid, ctx.backend.storagePid]
    .filter((p): p is number => p !== undefined)
    .reduce((sum, pid) => sum + readProc(pid).cpuSeconds, 0);
  return { controller: readProc(controller.pid).cpuSeconds, server };
}

/**
 * One change at a time among the idle PetSets: write, wait until its version is seen,
 * then the next. What a user changing one PetSet in a quiet cluster sees.
 */
function singleChangePhase(ctx: BenchContext, ns: string, watch: VersionWatch, count: number) {
  const petSets = sizes(ctx).petSets;
  return changesOneAtATime(
    ctx.backend.http,
    ns,
    watch,
    count,
    (i) => ({
      name: `ps-${(i * 7919) % petSets}`,
      image: `registry.example/app:single-${i}`,
    }),
    30_000,
  );
}

/** PetSetVersion objects copied from v1 of `name`, numbered 2..excess+1, owned by the PetSet. */
async function gcPhase(ctx: BenchContext, ns: string, watch: VersionWatch, controller: ControllerProcess) {
  const { http } = ctx.backend;
  const excess = sizes(ctx).gcExcess;
  const name = "gc";
  await http.json(
    "POST",
    petSetsPath(ns),
    petSetManifest(name, {
      replicas: 0,
      image: "registry.example/app:gc",
      revisionHistoryLimit: excess + 10,
    }),
  );
  await watch.until(() => watch.live.has(`${name}-v1`), 60_000);
  type Version = {
    metadata: Record<string, unknown> & { labels: Record<string, string> };
    spec: Record<string, unknown>;
  };
  const v1 = await http.json<Version & { apiVersion: string; kind: string }>(
    "GET",
    `${versionsPath(ns)}/${name}-v1`,
  );
  ctx.log(`create ${excess} PetSetVersions owned by ${name}`);
  const sampler = new ProcSampler(controller.pid).start();
  const c0 = performance.now();
  await runPool(excess, CONCURRENCY, async (i) => {
    const n = i + 2;
    await http.jsonRetry("POST", versionsPath(ns), {
      apiVersion: v1.apiVersion,
      kind: v1.kind,
      metadata: {
        name: `${name}-v${n}`,
        labels: { ...v1.metadata.labels, "petset.dev/version": String(n) },
        ownerReferences: v1.metadata.ownerReferences,
      },
      spec: { ...v1.spec, version: n },
    });
  });
  const createSeconds = (performance.now() - c0) / 1000;
  const gcVersions = () => [...watch.live].filter((v) => v.startsWith(`${name}-v`)).length;
  await watch.until(() => gcVersions() >= excess + 1, 60_000);
  // Let the controller digest the creates (each one woke a sync) before timing the GC.
  const digestSeconds = await secondsUntilQuiet(controller);
  const before = gcVersions();
  const writes0 = await controller.apiWrites();
  ctx.log(`lower revisionHistoryLimit to 0 with ${before} versions`);
  const gcServer = new ProcSampler(ctx.backend.apiServerPid).start();
  const g0 = performance.now();
  await http.json("PATCH", `${petSetsPath(ns)}/${name}`, { spec: { revisionHistoryLimit: 0 } }, MERGE_PATCH);
  const done = await watch.until(() => gcVersions() <= 3, 600_000);
  const gcSeconds = (performance.now() - g0) / 1000;
  const writes = writesBetween(writes0, await controller.apiWrites());
  return {
    excessVersions: m(excess, "versions"),
    createVersionsThroughput: m(excess / createSeconds, "creates/s"),
    controllerCatchUpAfterCreates: m(digestSeconds, "s"),
    versionsBeforeGc: m(before, "versions"),
    versionsAfterGc: m(gcVersions(), "versions"),
    gcCompleted: done,
    gcTime: m(gcSeconds, "s"),
    gcDeletesPerSecond: m((before - gcVersions()) / gcSeconds, "deletes/s"),
    controllerApiWrites: { total: m(writes.total, "writes"), byKind: writes.byKind },
    controller: sampler.stop(),
    server: gcServer.stop(),
  };
}

export const versionsBenchmark: Benchmark = {
  name: "versions",
  description: "N PetSets x M template changes: write-to-version latency; GC of excess versions",
  backends: ["embedded", "real"],
  async run(ctx): Promise<BenchOutput> {
    const size = sizes(ctx);
    const ns = await ctx.backend.namespace("bench-versions");
    const watch = new VersionWatch(ctx.backend.http, ns);
    await watch.start();
    const controller = await startController(
      ctx.backend.controllerKubeconfigPath,
      ns,
      join(ctx.backend.workDir, "controller.log"),
      ctx.controllerNodeArgs,
    );
    try {
      const versions = await versionsPhase(ctx, ns, watch, controller);
      // One change right after the last burst: it waits behind the burst's follow-up syncs
      // unless it goes ahead of them (the queue's urgent lane).
      const afterBurst = await changesOneAtATime(ctx.backend.http, ns, watch, 1, (i) => ({
        name: "ps-1",
        image: `registry.example/app:after-burst-${i}`,
      }));
      // "Idle PetSets": the burst's follow-up syncs (events of the controller's own writes,
      // coalesced status writes) finish first; how long that took is reported.
      const burstTail = await secondsUntilQuiet(controller);
      ctx.log(
        `${SINGLE_CHANGES} single changes, one at a time (controller quiet after ${burstTail.toFixed(1)} s)`,
      );
      const single = {
        ...(await singleChangePhase(ctx, ns, watch, SINGLE_CHANGES)),
        controllerQuietAfterBurst: m(burstTail, "s"),
        rightAfterBurst: afterBurst.latency.max,
      };
      ctx.log(
        `single change → version p50 ${single.latency.p50?.value} ms, p99 ${single.latency.p99?.value} ms`,
      );
      const gc = await gcPhase(ctx, ns, watch, controller);
      const headline = {
        versionsPerSecond: versions.versionThroughput,
        controllerCpuPerVersion: versions.controllerCpuPerVersion,
        serverCpuPerVersion: versions.serverCpuPerVersion,
        lastRoundOverFirstCpu: versions.lastRoundOverFirst.controllerCpuPerVersion,
        singleChangeP50: single.latency.p50,
        singleChangeP99: single.latency.p99,
        gcTime: gc.gcTime,
        gcDeletesPerSecond: gc.gcDeletesPerSecond,
      };
      return {
        parameters: {
          namespace: ns,
          petSets: size.petSets,
          templateChangesPerPetSet: size.changes,
          replicas: 0,
          writeConcurrency: CONCURRENCY,
          gcExcessVersions: size.gcExcess,
          controller:
            "node dist/src/cli/petset.js controller --namespace <ns> --no-leader-elect (default --workers 8; 4 before 2026-12-05 night) (child process)",
        },
        results: { headline, versions, single, gc },
        notes: [
          "Each round writes every PetSet once (8 writes in flight) and waits until all their versions are visible, so latency includes queueing behind the rest of the round.",
          "revisionHistoryLimit is the default (10) in the versions phase, so the history GC also deletes versions while it runs.",
          "GC: PetSetVersions copied from v1 (same content) are created directly, then revisionHistoryLimit goes to 0; done when at most 3 remain (current/update, newest).",
        ],
      };
    } finally {
      watch.stop();
      await controller.stop();
      await ctx.backend.deleteNamespace(ns);
    }
  },
};
