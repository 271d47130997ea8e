/**
 * Watch latency at size: `watchers` watches on one collection of a populated namespace (as
 * informers hold them), then `writes` metadata-only patches of objects in it, one at a time;
 * each timed from just before its PATCH until every watcher has received the MODIFIED event
 * carrying it. The patch is an annotation, so nothing reacts to it (no version, no rollout).
 */
import type { BenchContext } from "./bench.js";
import type { WatchStream } from "./kube-http.js";
import { MERGE_PATCH } from "./petsets.js";
import { latencySummary, m } from "./stats.js";

const ANNOTATION = "bench.petset.dev/watch-probe";
const WAIT_MS = 30_000;

export interface WatchLatencyOptions {
  /** The collection, e.g. /api/v1/namespaces/NS/pods. */
  collection: string;
  /** Names of objects in it to patch, in turn. */
  names: readonly string[];
  watchers: number;
  writes: number;
}

interface Probed {
  metadata?: { name?: string; annotations?: Record<string, string> };
}

export async function watchLatency(ctx: BenchContext, o: WatchLatencyOptions) {
  const { http } = ctx.backend;
  const list = await http.json<{ metadata: { resourceVersion: string } }>("GET", `${o.collection}?limit=1`);
  /** probe value -> receive times, one per watcher that saw it. */
  const seen = new Map<string, number[]>();
  let onSeen: ((probe: string) => void) | undefined;
  const streams: WatchStream[] = [];
  for (let w = 0; w < o.watchers; w++) {
    streams.push(
      http.watch(`${o.collection}?resourceVersion=${list.metadata.resourceVersion}`, (ev, at) => {
        const probe = (ev.object as Probed).metadata?.annotations?.[ANNOTATION];
        if (ev.type !== "MODIFIED" || probe === undefined) return;
        const times = seen.get(probe) ?? [];
        times.push(at);
        seen.set(probe, times);
        onSeen?.(probe);
      }),
    );
  }
  await Promise.all(streams.map((s) => s.established));
  const toAll: number[] = [];
  const toFirst: number[] = [];
  let missed = 0;
  try {
    for (let i = 0; i < o.writes; i++) {
      const name = o.names[i % o.names.length] ?? "";
      const probe = `${Date.now()}-${i}`;
      const done = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), WAIT_MS);
        onSeen = (p) => {
          if (p === probe && (seen.get(p)?.length ?? 0) >= o.watchers) {
            clearTimeout(timer);
            resolve(true);
          }
        };
      });
      const t0 = performance.now();
      await http.json(
        "PATCH",
        `${o.collection}/${name}`,
        { metadata: { annotations: { [ANNOTATION]: probe } } },
        MERGE_PATCH,
      );
      const complete = await done;
      const times = seen.get(probe) ?? [];
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
    writes: m(o.writes, "patches"),
    untilAllWatchersSaw: latencySummary(toAll),
    untilFirstWatcherSaw: latencySummary(toFirst),
    writesNotSeenByAllWithin30s: m(missed, "writes"),
  };
}
