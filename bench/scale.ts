/**
 * Scale (issue 13): N PetSets x P pets on one controller.
 *
 * 1. Baseline: one 10-pet PetSet rolled out (image change) in an empty namespace with its own
 *    controller: the reference for phase 4.
 * 2. Populate: N PetSets (P pets each, Parallel) created 8 at a time with the controller
 *    running; done when every PetSet reports P ready pets at version 1 (a list, polled).
 * 3. Cold start: the controller is stopped (SIGTERM) and started again on the populated
 *    namespace: seconds to caches synced (/readyz) and to every PetSet synced once
 *    (petset_syncs_total >= N with an empty queue); its RSS then; its idle CPU over 20 s, 5 s
 *    after that and again 60 s after it (steady: past the start-up's one-off collections).
 *    Also the API server's RSS (and etcd's on real), the latency of a full list of pods and of
 *    PetSets at that size, and watch latency there (support/watch-latency.ts).
 * 4. Rollout among them: the same 10-pet rollout as phase 1, in the populated namespace,
 *    reported as a ratio to the baseline.
 *
 * The controller's RSS is sampled every 250 ms through every phase (support/rss-trace.ts):
 * `controllerRssTrace` states its maximum over the whole run, the kernel's high-water mark
 * and how many samples exceeded 300 MiB (issue 29's target at 10,000 x 3).
 */
import { join } from "node:path";
import type { BenchContext, Benchmark, BenchOutput } from "./support/bench.js";
import { changesAmong } from "./support/changes-among.js";
import { imagePatch, MERGE_PATCH, petSetManifest, petSetsPath } from "./support/petsets.js";
import { ProcSampler, rssMiB } from "./support/proc.js";
import { type ControllerProcess, metricIn, startController } from "./support/processes.js";
import { RssTrace } from "./support/rss-trace.js";
import { secondsUntilSettled } from "./support/settled.js";
import { latencySummary, m, runPool, sleep, waitFor } from "./support/stats.js";
import { watchLatency } from "./support/watch-latency.js";

const SIZES = { small: { petSets: 1_000, pets: 3 }, full: { petSets: 10_000, pets: 3 } } as const;
const ROLLOUT_PETS = 10;
const CONCURRENCY = 8;
const IDLE_SECONDS = 20;
/** When the second idle window starts, after every PetSet synced (the first starts after 5 s). */
const STEADY_IDLE_AFTER_SECONDS = 60;
/** Changes among the idle PetSets, last (their rollouts keep the cluster busy): one at a time, then a burst. */
const SINGLE_CHANGES = 30;
const BURST_CHANGES = 300;
/** Watch latency at size: 10 watches (as many informers) on each collection, 20 patches. */
const WATCHERS = 10;
const WATCH_WRITES = 20;
/** Issue 29: the controller's RSS at 10,000 x 3, every sample. */
const RSS_LIMIT_MIB = 300;

interface Listed {
  items: { status?: { readyReplicas?: number; currentVersion?: number } }[];
}

/** Seconds a 10-pet PetSet takes to roll from one image to another (created and settled first). */
async function tenPetRollout(ctx: BenchContext, ns: string): Promise<number> {
  const { http } = ctx.backend;
  const path = `${petSetsPath(ns)}/rollout`;
  const manifest = petSetManifest("rollout", { replicas: ROLLOUT_PETS, image: "nginx:1.26" });
  await http.json("POST", petSetsPath(ns), manifest);
  await secondsUntilSettled(ctx.backend, path, ROLLOUT_PETS, { perPetMs: 30_000, pollMs: 200 });
  await http.json("PATCH", path, imagePatch("rollout", "nginx:1.27"), MERGE_PATCH);
  return secondsUntilSettled(ctx.backend, path, ROLLOUT_PETS, { perPetMs: 30_000, pollMs: 200 });
}

function controllerIn(ctx: BenchContext, ns: string, log: string): Promise<ControllerProcess> {
  return startController(
    ctx.backend.controllerKubeconfigPath,
    ns,
    join(ctx.backend.workDir, log),
    ctx.controllerNodeArgs,
  );
}

async function metric(c: ControllerProcess, name: string): Promise<number> {
  return metricIn(await c.metricsText(), name);
}

/**
 * How often the cold start polls the controller's /metrics. Rendering every PetSet's series
 * cost the controller's one thread ~19 ms per scrape at 3,000 PetSets (CPU profile), growing
 * with their number: two scrapes every 200 ms (as before 2026-12-02) took a share of the cold
 * start they measured. One scrape a second gives the time to within a second.
 */
const SYNCED_POLL_MS = 1_000;

/** Milliseconds of `samples` full lists of `path` (one response each, as an informer's first list). */
async function listLatency(ctx: BenchContext, path: string, samples: number) {
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    await ctx.backend.http.json<Listed>("GET", path);
    ms.push(performance.now() - t0);
  }
  return latencySummary(ms);
}

export const scaleBenchmark: Benchmark = {
  name: "scale",
  description: "N PetSets x P pets on one controller: cold start, RSS, idle CPU, a rollout among them",
  backends: ["embedded", "real"],
  backendOptions: { readyDelayMs: 200 },
  async run(ctx): Promise<BenchOutput> {
    const petSets = ctx.sizes.petSets ?? SIZES[ctx.scale].petSets;
    const pets = ctx.sizes.pets ?? SIZES[ctx.scale].pets;
    const rss = new RssTrace(RSS_LIMIT_MIB);
    let out: BenchOutput;
    try {
      out = await runScale(ctx, petSets, pets, rss);
    } finally {
      ctx.log(`controller RSS over the run: ${JSON.stringify(rss.stop().wholeRun)}`);
    }
    const trace = rss.stop();
    const whole = trace.wholeRun as Record<string, unknown>;
    const headline = out.results.headline as Record<string, unknown>;
    headline.controllerRssMaxWholeRun = whole.maxRss;
    headline.controllerRssPeakHwm = whole.peakRssHwm;
    headline[`controllerRssSamplesAbove${RSS_LIMIT_MIB}MiB`] = whole[`samplesAbove${RSS_LIMIT_MIB}MiB`];
    out.results.controllerRssTrace = trace;
    out.notes.push(
      `Controller RSS: sampled from /proc every 250 ms from the moment each controller process was ready until it stopped (baseline, populate, cold start and everything after), with the kernel's high-water mark (VmHWM) of each process, which also covers its start-up; samples above ${RSS_LIMIT_MIB} MiB counted.`,
    );
    return out;
  },
};

async function runScale(
  ctx: BenchContext,
  petSets: number,
  pets: number,
  rss: RssTrace,
): Promise<BenchOutput> {
  const { http } = ctx.backend;

  ctx.log(`baseline: a ${ROLLOUT_PETS}-pet rollout in an empty namespace`);
  const emptyNs = await ctx.backend.namespace("bench-scale-empty");
  const baselineController = await controllerIn(ctx, emptyNs, "controller-baseline.log");
  rss.follow(baselineController.pid, "baseline");
  let baselineSeconds: number;
  try {
    baselineSeconds = await tenPetRollout(ctx, emptyNs);
  } finally {
    await baselineController.stop();
    await ctx.backend.deleteNamespace(emptyNs);
  }
  ctx.log(`baseline rollout ${baselineSeconds.toFixed(1)} s`);

  const ns = await ctx.backend.namespace("bench-scale");
  let controller = await controllerIn(ctx, ns, "controller-populate.log");
  rss.follow(controller.pid, "populate");
  try {
    ctx.log(`populate: ${petSets} PetSets x ${pets} pets`);
    const t0 = performance.now();
    await runPool(petSets, CONCURRENCY, async (i) => {
      const manifest = petSetManifest(`s-${i}`, { replicas: pets, image: "nginx:1.26" });
      (manifest.spec as Record<string, unknown>).podManagementPolicy = "Parallel";
      await http.jsonRetry("POST", petSetsPath(ns), manifest);
    });
    const createdSeconds = (performance.now() - t0) / 1000;
    await waitFor(
      `${petSets} PetSets with ${pets} ready pets`,
      async () => {
        const list = await http.json<Listed>("GET", petSetsPath(ns));
        const ready = list.items.filter(
          (p) => p.status?.readyReplicas === pets && p.status?.currentVersion === 1,
        ).length;
        return ready >= petSets ? true : undefined;
      },
      Math.max(600_000, petSets * pets * 100),
      5_000,
    );
    const populateSeconds = (performance.now() - t0) / 1000;
    ctx.log(`populated in ${populateSeconds.toFixed(1)} s (creates took ${createdSeconds.toFixed(1)} s)`);

    ctx.log("cold start: controller stopped and started again");
    await controller.stop();
    const t1 = performance.now();
    controller = await controllerIn(ctx, ns, "controller-cold.log");
    rss.follow(controller.pid, "coldStartAndAfter");
    const cachesSyncedSeconds = (performance.now() - t1) / 1000;
    await waitFor(
      `every PetSet synced once (${petSets})`,
      async () => {
        const text = await controller.metricsText();
        return metricIn(text, "petset_syncs_total") >= petSets && metricIn(text, "petset_queue_depth") === 0
          ? true
          : undefined;
      },
      600_000,
      SYNCED_POLL_MS,
    );
    const allSyncedAt = performance.now();
    const allSyncedSeconds = (allSyncedAt - t1) / 1000;
    const rssAfterSync = rssMiB(controller.pid);
    // Where the RSS goes (prom-client's process metrics of the controller).
    const mib = async (name: string) => m((await metric(controller, name)) / 2 ** 20, "MiB");
    const controllerMemory = {
      rss: rssAfterSync,
      heapUsed: await mib("nodejs_heap_size_used_bytes"),
      heapTotal: await mib("nodejs_heap_size_total_bytes"),
      external: await mib("nodejs_external_memory_bytes"),
    };
    ctx.log(`caches synced ${cachesSyncedSeconds.toFixed(1)} s, all synced ${allSyncedSeconds.toFixed(1)} s`);

    await sleep(5_000); // let requeues of the start-up settle before the idle window
    const idle = new ProcSampler(controller.pid).start();
    const serverIdle = new ProcSampler(ctx.backend.apiServerPid).start();
    await sleep(IDLE_SECONDS * 1000);
    const idleController = idle.stop();
    const idleServer = serverIdle.stop();
    ctx.log(`idle CPU ${idleController.cpuAverage?.value} cores`);
    // A second window once the start-up's one-off work is over: V8's memory reducer runs full
    // collections some seconds after the allocation rate drops, and one fell into the first
    // window of a 10,000 x 3 run (RSS 263 -> 248 MiB inside it, 0.0355 cores).
    await sleep(Math.max(0, allSyncedAt + STEADY_IDLE_AFTER_SECONDS * 1000 - performance.now()));
    const steady = new ProcSampler(controller.pid).start();
    await sleep(IDLE_SECONDS * 1000);
    const idleSteady = steady.stop();
    ctx.log(`idle CPU ${STEADY_IDLE_AFTER_SECONDS} s after start-up ${idleSteady.cpuAverage?.value} cores`);

    const server: Record<string, unknown> = { apiServerRss: rssMiB(ctx.backend.apiServerPid) };
    if (ctx.backend.storagePid !== undefined) server.etcdRss = rssMiB(ctx.backend.storagePid);
    const podList = await listLatency(ctx, `/api/v1/namespaces/${ns}/pods`, 5);
    const petSetList = await listLatency(ctx, petSetsPath(ns), 5);
    ctx.log(`watch latency: ${WATCHERS} watches, ${WATCH_WRITES} patches, on pods and on PetSets`);
    const someNames = Array.from({ length: WATCH_WRITES }, (_, i) =>
      Math.floor((i * petSets) / WATCH_WRITES),
    );
    const podWatch = await watchLatency(ctx, {
      collection: `/api/v1/namespaces/${ns}/pods`,
      names: someNames.map((i) => `s-${i}-0`),
      watchers: WATCHERS,
      writes: WATCH_WRITES,
    });
    const petSetWatch = await watchLatency(ctx, {
      collection: petSetsPath(ns),
      names: someNames.map((i) => `s-${i}`),
      watchers: WATCHERS,
      writes: WATCH_WRITES,
    });

    ctx.log(`rollout of a ${ROLLOUT_PETS}-pet PetSet among them`);
    const amongSeconds = await tenPetRollout(ctx, ns);
    const ratio = amongSeconds / baselineSeconds;
    ctx.log(`rollout ${amongSeconds.toFixed(1)} s, ${ratio.toFixed(2)}x the empty namespace's`);

    ctx.log(`${SINGLE_CHANGES} changes one at a time among them, then a burst of ${BURST_CHANGES}`);
    const changes = await changesAmong(ctx, ns, {
      names: Array.from({ length: petSets }, (_, i) => `s-${i}`),
      single: SINGLE_CHANGES,
      burst: BURST_CHANGES,
      imagePrefix: "nginx:1.27-among",
    });

    const headline = {
      coldStartCachesSynced: m(cachesSyncedSeconds, "s"),
      coldStartAllSynced: m(allSyncedSeconds, "s"),
      controllerRss: rssAfterSync,
      idleCpu: idleController.cpuAverage,
      idleCpuSteady: idleSteady.cpuAverage,
      rolloutAmongOverEmpty: m(ratio, "x"),
      singleChangeP50: changes.single.latency.p50,
      burstVersionsPerSecond: changes.burst.versionsPerSecond,
    };
    return {
      parameters: { namespace: ns, petSets, petsPerPetSet: pets, rolloutPets: ROLLOUT_PETS },
      results: {
        headline,
        populate: { seconds: m(populateSeconds, "s"), createSeconds: m(createdSeconds, "s") },
        coldStart: {
          cachesSynced: m(cachesSyncedSeconds, "s"),
          allSynced: m(allSyncedSeconds, "s"),
          controllerRss: rssAfterSync,
          controllerMemory,
        },
        idle: {
          seconds: IDLE_SECONDS,
          controller: idleController,
          server: idleServer,
          steady: { startsAfterAllSynced: m(STEADY_IDLE_AFTER_SECONDS, "s"), controller: idleSteady },
        },
        lists: { pods: podList, petSets: petSetList },
        watches: { pods: podWatch, petSets: petSetWatch },
        server,
        rollout: {
          emptyNamespace: m(baselineSeconds, "s"),
          amongPetSets: m(amongSeconds, "s"),
          ratio: m(ratio, "x"),
        },
        changes,
      },
      notes: [
        "Populate: PetSets created 8 at a time with podManagementPolicy Parallel; done when every one reports its pets ready at version 1.",
        "Cold start: seconds from starting the controller process until /readyz (caches synced), and until petset_syncs_total >= N with an empty queue (one /metrics scrape a second; before 2026-12-02 two every 200 ms, which cost the controller a large share of its CPU at 10,000 PetSets).",
        `Idle CPU: the controller's average over ${IDLE_SECONDS} s, 5 s after every PetSet was synced.`,
        `Watch latency: ${WATCHERS} watches on the namespace's pods (then PetSets) from the current resourceVersion; ${WATCH_WRITES} annotation patches one at a time, each from just before its PATCH until every watch has its MODIFIED event (the controller runs, the patches change nothing it acts on).`,
        "Rollout: a 10-pet PetSet from nginx:1.26 to 1.27; the baseline ran first in an empty namespace with its own controller.",
        `Changes among them (last): ${SINGLE_CHANGES} image changes one at a time, each timed from its PATCH until its PetSetVersion is seen on a watch; then ${BURST_CHANGES} with 8 in flight, versions/s until the last is seen. Each change also rolls that PetSet's pets.`,
      ],
    };
  } finally {
    await controller.stop();
    await ctx.backend.deleteNamespace(ns);
  }
}
