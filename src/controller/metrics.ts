/**
 * Prometheus metrics of the controller; one registry per controller instance (no globals).
 * Labels stay bounded: PetSet names appear only on the per-PetSet gauges (one series each,
 * removed with the PetSet); counters and histograms are labelled by kinds (result, verb,
 * hook, handler), never by object.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { PetSetGauges } from "./petset-gauges.js";

export interface ControllerMetrics {
  registry: Registry;
  syncs: Counter<"result">;
  syncDuration: Histogram;
  /** Read when scraped (a set on every add and take was 2 % of a rollout's CPU, issue 29). */
  queueDepth: Gauge;
  /** Where `queueDepth` reads from: the controller's queue once it exists. */
  readQueueDepth(read: () => number): void;
  queueDuration: Histogram;
  /** Watch events the caches took, by resource and type; read when scraped. */
  watchEvents: Counter<"resource" | "type">;
  /** Where `watchEvents` reads from: the caches' own counts once they exist. */
  readWatchEvents(read: () => readonly WatchEventCount[]): void;
  /** petset_versions, petset_pods, petset_condition, petset_pets_on_lost_nodes (petset-gauges.ts). */
  petSets: PetSetGauges;
  apiWrites: Counter<"verb" | "resource">;
  leader: Gauge;
  expectationWaits: Counter;
  expectationsExpired: Counter;
  writesRefused: Counter;
  hookRuns: Counter<"hook" | "handler" | "result">;
  hookRunDuration: Histogram<"hook" | "handler">;
}

export interface WatchEventCount {
  resource: string;
  type: "add" | "update" | "delete";
  count: number;
}

/**
 * How a hook run ended in this process (hooks/runner.ts): its handler returned success or
 * failure, the runner's deadline stopped it, the plan or a lost Lease stopped it, or a
 * transient API error interrupted it (it is resumed, same attempt).
 */
export type HookRunResult = "succeeded" | "failed" | "timed_out" | "cancelled" | "interrupted";

export function createMetrics(): ControllerMetrics {
  const registry = new Registry();
  const opts = { registers: [registry] };
  let queueLength: () => number = () => 0;
  let watchCounts: () => readonly WatchEventCount[] = () => [];
  return {
    registry,
    syncs: new Counter({
      name: "petset_syncs_total",
      help: "PetSet syncs by result",
      labelNames: ["result"],
      ...opts,
    }),
    syncDuration: new Histogram({
      name: "petset_sync_duration_seconds",
      help: "Duration of one PetSet sync",
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
      ...opts,
    }),
    queueDepth: new Gauge({
      name: "petset_queue_depth",
      help: "Keys waiting in the work queue",
      collect() {
        this.set(queueLength());
      },
      ...opts,
    }),
    readQueueDepth(read) {
      queueLength = read;
    },
    queueDuration: new Histogram({
      name: "petset_queue_duration_seconds",
      help: "Time a key waited in the work queue, from its add to a worker picking it up",
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 60],
      ...opts,
    }),
    watchEvents: new Counter({
      name: "petset_watch_events_total",
      help: "Watch events (add, update, delete) the controller's caches took, by resource",
      labelNames: ["resource", "type"],
      collect() {
        this.reset();
        for (const c of watchCounts()) this.inc({ resource: c.resource, type: c.type }, c.count);
      },
      ...opts,
    }),
    readWatchEvents(read) {
      watchCounts = read;
    },
    petSets: new PetSetGauges(registry),
    apiWrites: new Counter({
      name: "petset_api_writes_total",
      help: "Writes to the Kubernetes API by verb and resource",
      labelNames: ["verb", "resource"],
      ...opts,
    }),
    leader: new Gauge({ name: "petset_leader", help: "1 when this replica holds the lease", ...opts }),
    expectationWaits: new Counter({
      name: "petset_expectation_waits_total",
      help: "Syncs that waited because the caches had not shown the controller's own writes yet",
      ...opts,
    }),
    expectationsExpired: new Counter({
      name: "petset_expectations_expired_total",
      help: "Expected writes the caches did not show within the timeout (planned anyway)",
      ...opts,
    }),
    writesRefused: new Counter({
      name: "petset_writes_refused_total",
      help: "Syncs stopped because this replica was not sure it held the Lease",
      ...opts,
    }),
    hookRuns: new Counter({
      name: "petset_hook_runs_total",
      help: "Hook runs ended in this controller, by hook, handler and result (succeeded, failed, timed_out, cancelled, interrupted)",
      labelNames: ["hook", "handler", "result"],
      ...opts,
    }),
    hookRunDuration: new Histogram({
      name: "petset_hook_run_duration_seconds",
      help: "Duration of a hook run that ended (succeeded, failed or timed out), from its attempt's start",
      labelNames: ["hook", "handler"],
      buckets: [0.1, 0.5, 1, 5, 10, 30, 60, 300, 600, 1800, 3600],
      ...opts,
    }),
  };
}
