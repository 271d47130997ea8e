/**
 * Watch latency: `watchers` watches on one collection from its current resourceVersion, then
 * `writes` writes one at a time, each timed from just before its request until every watcher
 * has received the event carrying it (and until the first did). Used by the API server
 * benchmark (fan-out of ConfigMap creates) and the scale benchmark (annotation patches in a
 * populated namespace, `watchLatency` below).
 */
import type { BenchContext } from "./bench.js";
import type { KubeHttp, WatchEvent, WatchStream } from "./kube-http.js";
import { MERGE_PATCH } from "./petsets.js";
import { latencySummary, m } from "./stats.js";

const WAIT_MS = 30_000;

export interface FanOutOptions {
  /** The collection, e.g. /api/v1/namespaces/NS/pods. */
  collection: string;
  watchers: number;
  writes: number;
  /** What the i-th write carries, as the watch event will show it. */
  keyOf(i: number): string;
  /** The event's key if it is one of the writes' events, else undefined. */
  seen(ev: WatchEvent): string | undefined;
  /** Sends the i-th write. */
  write(i: number, key: string): Promise<unknown>;
  /** Unit of the writes count, e.g. "creates". */
  writeUnit: string;
}

export async function watchFanOut(http: KubeHttp, o: FanOutOptions) {
  const list = await http.json<{ metadata: { resourceVersion: string } }>("GET", `${o.collection}?limit=1`);
  /** key -> receive times, one per watcher that saw it. */
  const seen = new Map<string, number[]>();
  let onSeen: ((key: string) => void) | undefined;
  const streams: WatchStream[] = [];
  for (let w = 0; w < o.watchers; w++) {
    streams.push(
      http.watch(`${o.collection}?resourceVersion=${list.metadata.resourceVersion}`, (ev, at) => {
        const key = o.seen(ev);
        if (key === undefined) return;
        const times = seen.get(key) ?? [];
        times.push(at);
        seen.set(key, times);
        onSeen?.(key);
      }),
    );
  }
  await Promise.all(streams.map((s) => s.established));
  const toAll: number[] = [];
  const toFirst: number[] = [];
  let missed = 0;
  try {
    for (let i = 0; i < o.writes; i++) {
      const key = o.keyOf(i);
      const done = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), WAIT_MS);
        onSeen = (k) => {
          if (k === key && (seen.get(key)?.length ?? 0) >= o.watchers) {
            clearTimeout(timer);
            resolve(true);
          }
        };
      });
      const t0 = performance.now();
      await o.write(i, key);
      const complete = await done;
      const times = seen.get(key) ?? [];
      if (!complete) missed++;
      if (times.length > 0) {
        toFirst.push(Math.min(...times) - t0);
        if (complete) toAll.push(Math.max(...times) - t0);
      }
    }
  } finally {
    for (const s of streams) s.close();
  }
  return {
    watchers: m(o.watchers, "watches"),
    writes: m(o.writes, o.writeUnit),
    untilAllWatchersSaw: latencySummary(toAll),
    untilFirstWatcherSaw: latencySummary(toFirst),
    writesNotSeenByAllWithin30s: m(missed, "writes"),
  };
}

const ANNOTATION = "bench.petset.dev/watch-probe";

interface Probed {
  metadata?: { annotations?: Record<string, string> };
}

/**
 * Watch latency at size: metadata-only patches (an annotation nothing reacts to: no version,
 * no rollout) of objects of a populated namespace, in turn.
 */
export function watchLatency(
  ctx: BenchContext,
  o: { collection: string; names: readonly string[]; watchers: number; writes: number },
) {
  const { http } = ctx.backend;
  return watchFanOut(http, {
    collection: o.collection,
    watchers: o.watchers,
    writes: o.writes,
    writeUnit: "patches",
    keyOf: (i) => `${Date.now()}-${i}`,
    seen: (ev) =>
      ev.type === "MODIFIED" ? (ev.object as Probed).metadata?.annotations?.[ANNOTATION] : undefined,
    write: (i, key) =>
      http.json(
        "PATCH",
        `${o.collection}/${o.names[i % o.names.length] ?? ""}`,
        { metadata: { annotations: { [ANNOTATION]: key } } },
        MERGE_PATCH,
      ),
  });
}
