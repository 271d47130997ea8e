/**
 * The process metrics `petset controller` serves beside its own (src/controller/metrics.ts):
 * prom-client's defaults (process_resident_memory_bytes, nodejs_heap_size_used_bytes, GC, ...),
 * which an operator sizes the memory limit by, and the event-loop lag, watched when syncs
 * slow down (docs/operations.md).
 *
 * The lag histogram gauges (nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,p99}_seconds)
 * are this module's, not prom-client's: prom-client samples with a timer every 10 ms, and 100
 * wake-ups a second were most of an idle controller's CPU (10 ms/s, 1 without;
 * docs/benchmarks.md §3e). Here the timer fires every EVENT_LOOP_SAMPLE_MS and each gauge is
 * the delay beyond that schedule (prom-client's include the interval itself: an idle loop read
 * 0.01 s). A block longer than the interval always shows; a shorter one shows in proportion to
 * its length. The histogram restarts at each scrape, as prom-client's does, and drops the
 * interval in progress then. nodejs_eventloop_lag_seconds (one setImmediate per scrape) stays
 * prom-client's.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { collectDefaultMetrics, Gauge, type Registry } from "prom-client";

export const EVENT_LOOP_SAMPLE_MS = 100;

/** prom-client's own sampling when it must run one: as rare as its timer allows (never, in practice). */
const IDLE_TIMER_MS = 2 ** 31 - 1;

const LAG_GAUGES = {
  min: "The minimum event-loop delay beyond the sampling schedule since the last scrape.",
  max: "The maximum event-loop delay beyond the sampling schedule since the last scrape.",
  mean: "The mean event-loop delay beyond the sampling schedule since the last scrape.",
  stddev: "The standard deviation of the event-loop delays since the last scrape.",
  p50: "The 50th percentile of the event-loop delays beyond the sampling schedule since the last scrape.",
  p90: "The 90th percentile of the event-loop delays beyond the sampling schedule since the last scrape.",
  p99: "The 99th percentile of the event-loop delays beyond the sampling schedule since the last scrape.",
} as const;

type LagStat = keyof typeof LAG_GAUGES;

export function collectProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: IDLE_TIMER_MS });
  const histogram = monitorEventLoopDelay({ resolution: EVENT_LOOP_SAMPLE_MS });
  histogram.enable();
  const intervalNs = EVENT_LOOP_SAMPLE_MS * 1e6;
  const beyond = (ns: number) => Math.max(0, ns - intervalNs) / 1e9;
  const read: Record<LagStat, () => number> = {
    min: () => beyond(histogram.min),
    max: () => beyond(histogram.max),
    mean: () => beyond(histogram.mean),
    stddev: () => histogram.stddev / 1e9,
    p50: () => beyond(histogram.percentile(50)),
    p90: () => beyond(histogram.percentile(90)),
    p99: () => beyond(histogram.percentile(99)),
  };
  // Read together at scrape: the first gauge collected takes a snapshot and restarts the histogram.
  let snapshot: Record<LagStat, number> | undefined;
  const stats = Object.keys(LAG_GAUGES) as LagStat[];
  for (const stat of stats) {
    const name = `nodejs_eventloop_lag_${stat}_seconds`;
    registry.removeSingleMetric(name);
    new Gauge({
      name,
      help: LAG_GAUGES[stat],
      registers: [registry],
      collect() {
        if (stat === stats[0] || snapshot === undefined) {
          const empty = histogram.count === 0; // scraped again within one interval
          const values = stats.map((s): [LagStat, number] => [s, empty ? 0 : read[s]()]);
          snapshot = Object.fromEntries(values) as Record<LagStat, number>;
          histogram.reset();
        }
        this.set(snapshot[stat]);
      },
    });
  }
}
