/**
 * Template changes among many idle PetSets (the scale benchmark's growth curves): write →
 * version visible, one change at a time, and versions per second for a burst of changes
 * with 8 writes in flight. What a user changing PetSets in a big namespace sees, at each
 * PetSet count.
 */
import type { BenchContext } from "./bench.js";
import type { KubeHttp } from "./kube-http.js";
import { imagePatch, MERGE_PATCH, petSetsPath, VersionWatch } from "./petsets.js";
import { latencySummary, m, runPool } from "./stats.js";

type Written = { metadata: { generation?: number } };

const IN_FLIGHT = 8;
const TIMEOUT_MS = 120_000;

export interface ChangesAmongOptions {
  /** Names of the idle PetSets to change (spread over them). */
  names: readonly string[];
  single: number;
  burst: number;
  /** The image the changes set, with a counter appended. */
  imagePrefix: string;
}

/**
 * One change at a time: write (an image patch), wait until its version is seen on `watch`,
 * then the next. `change(i)` names the PetSet and the image of the i-th change.
 */
export async function changesOneAtATime(
  http: KubeHttp,
  ns: string,
  watch: VersionWatch,
  count: number,
  change: (i: number) => { name: string; image: string },
  timeoutMs = TIMEOUT_MS,
) {
  const latencies: number[] = [];
  const samples: Array<{ change: number; ms: number }> = [];
  let missing = 0;
  for (let i = 0; i < count; i++) {
    const { at, key } = await write(http, ns, change(i));
    if (await watch.until(() => watch.byGeneration.has(key), timeoutMs)) {
      const ms = (watch.byGeneration.get(key) ?? at) - at;
      latencies.push(ms);
      samples.push({ change: i, ms: Math.round(ms * 100) / 100 });
    } else missing++;
  }
  return {
    changes: m(count, "changes"),
    versionsNotSeen: m(missing, "versions"),
    latency: latencySummary(latencies),
    // Which changes were slow (0 is the first after the phase before): outliers have a cause.
    slowest: samples.sort((a, b) => b.ms - a.ms).slice(0, 5),
  };
}

async function write(http: KubeHttp, ns: string, c: { name: string; image: string }) {
  const at = performance.now();
  const written = await http.jsonRetry<Written>(
    "PATCH",
    `${petSetsPath(ns)}/${c.name}`,
    imagePatch(c.name, c.image),
    MERGE_PATCH,
  );
  return { at, key: `${c.name}@${written.metadata.generation}` };
}

export async function changesAmong(ctx: BenchContext, ns: string, o: ChangesAmongOptions) {
  const { http } = ctx.backend;
  const watch = new VersionWatch(http, ns);
  await watch.start();
  // Spread over the PetSets with a stride co-prime to most counts.
  const change = (i: number) => ({
    name: o.names[(i * 7919) % o.names.length]!,
    image: `${o.imagePrefix}-${i}`,
  });
  try {
    const single = await changesOneAtATime(http, ns, watch, o.single, change);
    const keys: string[] = [];
    const t0 = performance.now();
    await runPool(o.burst, IN_FLIGHT, async (i) => {
      keys.push((await write(http, ns, change(o.single + i))).key);
    });
    const all = await watch.until(() => keys.every((k) => watch.byGeneration.has(k)), TIMEOUT_MS);
    const last = Math.max(...keys.map((k) => watch.byGeneration.get(k) ?? performance.now()));
    const seconds = (last - t0) / 1000;
    ctx.log(
      `changes among them: one at a time p50 ${single.latency.p50?.value} ms; burst of ${o.burst}: ${(o.burst / seconds).toFixed(0)} versions/s`,
    );
    return {
      single,
      burst: {
        changes: m(o.burst, "changes"),
        inFlight: IN_FLIGHT,
        allSeen: all,
        seconds: m(seconds, "s"),
        versionsPerSecond: m(o.burst / seconds, "versions/s"),
      },
    };
  } finally {
    watch.stop();
  }
}
