/**
 * Prometheus metrics of the controller; one registry per controller instance (no globals).
 * Labels stay bounded: PetSet names appear only on the per-PetSet gauges (one series each,
 * removed with the PetSet); counters and histograms are labelled by kinds (result, verb,
 * hook, handler), never by object.
 */
import { Counter, Gauge, Histogram, type LabelValues, Registry } from "prom-client";

export interface ControllerMetrics {
  registry: Registry;
  syncs: Counter<"result">;
  syncDuration: Histogram;
  queueDepth: Gauge;
  queueDuration: Histogram;
  versions: Gauge<"namespace" | "petset">;
  podsByVersion: Gauge<"namespace" | "petset" | "version">;
  apiWrites: Counter<"verb" | "resource">;
  leader: Gauge;
  expectationWaits: Counter;
  expectationsExpired: Counter;
  writesRefused: Counter;
  conditions: ConditionMetric;
  hookRuns: Counter<"hook" | "handler" | "result">;
  hookRunDuration: Histogram<"hook" | "handler">;
  /** Pets whose node is lost (planner/node-failure.ts), per PetSet. */
  petsOnLostNodes: Gauge<"namespace" | "petset">;
}

/**
 * How a hook run ended in this process (hooks/runner.ts): its handler returned success or
 * failure, the runner's deadline stopped it, the plan or a lost Lease stopped it, or a
 * transient API error interrupted it (it is resumed, same attempt).
 */
export type HookRunResult = "succeeded" | "failed" | "timed_out" | "cancelled" | "interrupted";

export type ConditionLabel = "namespace" | "petset" | "type" | "status" | "reason";

/**
 * `petset_condition`: 1 per condition a PetSet's status carries, so alerts can read
 * conditions (Progressing=False/ProgressDeadlineExceeded) without kube-state-metrics.
 * A PetSet's earlier series are removed when its conditions change or it is deleted, so a
 * reason that no longer holds stops alerting at once.
 */
export class ConditionMetric {
  private readonly series = new Map<string, LabelValues<ConditionLabel>[]>();

  constructor(private readonly gauge: Gauge<ConditionLabel>) {}

  report(
    namespace: string,
    petset: string,
    conditions: readonly { type: string; status: string; reason?: string | undefined }[],
  ): void {
    this.forget(namespace, petset);
    const labels = conditions.map((c) => ({
      namespace,
      petset,
      type: c.type,
      status: c.status,
      reason: c.reason ?? "",
    }));
    for (const l of labels) this.gauge.set(l, 1);
    this.series.set(`${namespace}/${petset}`, labels);
  }

  forget(namespace: string, petset: string): void {
    const key = `${namespace}/${petset}`;
    for (const l of this.series.get(key) ?? []) this.gauge.remove(l);
    this.series.delete(key);
  }
}

export function createMetrics(): ControllerMetrics {
  const registry = new Registry();
  const opts = { registers: [registry] };
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
    queueDepth: new Gauge({ name: "petset_queue_depth", help: "Keys waiting in the work queue", ...opts }),
    queueDuration: new Histogram({
      name: "petset_queue_duration_seconds",
      help: "Time a key waited in the work queue, from its add to a worker picking it up",
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 60],
      ...opts,
    }),
    versions: new Gauge({
      name: "petset_versions",
      help: "PetSetVersions per PetSet",
      labelNames: ["namespace", "petset"],
      ...opts,
    }),
    podsByVersion: new Gauge({
      name: "petset_pods",
      help: "Pods per PetSet and version",
      labelNames: ["namespace", "petset", "version"],
      ...opts,
    }),
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
    conditions: new ConditionMetric(
      new Gauge({
        name: "petset_condition",
        help: "1 for each condition in a PetSet's status (type, status, reason), on the leader",
        labelNames: ["namespace", "petset", "type", "status", "reason"],
        ...opts,
      }),
    ),
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
    petsOnLostNodes: new Gauge({
      name: "petset_pets_on_lost_nodes",
      help: "Pets whose node is lost (Ready Unknown or False, or gone), per PetSet (docs/failover.md)",
      labelNames: ["namespace", "petset"],
      ...opts,
    }),
  };
}
