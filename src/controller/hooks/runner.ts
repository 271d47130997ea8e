/**
 * The hook runner: the adapter that executes what the planner decided (planner/hooks.ts).
 * After the plan of every sync it is shown the PetSet's versions as cached and the plan's
 * hook records (its `status.hooks`: the runs this plan asks for). The rules:
 *  - A run starts only when the cache shows its record Running at that attempt (the intent
 *    is recorded before the side effect) AND the plan still asks for it at that attempt: a
 *    superseded version's hook, a cancelled one or one the plan just timed out never starts,
 *    even for a moment (SPEC rule 2: a skipped version never runs).
 *  - A run in flight that the plan does not ask for at its attempt is stopped and its side
 *    effect withdrawn (its Job deleted, its handshake request removed if still its own).
 *  - Never two runs of one hook id at once in this process: a stopped run's handler must have
 *    returned before the id starts again; across processes the handlers see to it
 *    (job-attempts.ts; docs/hooks.md, "Failure table").
 *  - Nothing starts while the Lease fence refuses writes (a lapse before the loss is noticed):
 *    the key is synced again shortly, and handlers check the fence on their own requests.
 * A finished run writes its outcome to the record (record-writer.ts), records an Event and
 * wakes the PetSet's sync. Every run that ends here is counted (petset_hook_runs_total, by
 * result: metrics.ts); one that succeeded, failed or timed out is timed from its attempt's
 * startedAt (petset_hook_run_duration_seconds), so a run resumed after a restart counts whole.
 *
 * Nothing here is state that matters: the records are. A controller restarted mid-hook sees
 * Running records and starts them again, same id and attempt: the Job handler finds its Job by
 * name, the handshake finds its ack, a webhook gets the same uid; an exec runs again (hooks
 * are at-least-once; PETSET_HOOK_ID lets them be idempotent). The planner alone times runs
 * out (the record's startedAt + timeoutSeconds, or from when this controller began driving if
 * later: planner/takeover.ts); the runner's own deadline, the same, only stops work.
 * All writes go through the fenced client: a replica that lost its Lease writes nothing.
 */
import type { V1Pod } from "@kubernetes/client-node";
import {
  type HookHandlerKind,
  type HookRecord,
  hookSpecOf,
  type PetSet,
  type PetSetVersion,
  versionName,
} from "../../api/index.js";
import { abortAfter } from "../../util/abort-signal.js";
import type { EventRecorder } from "../event-recorder.js";
import type { ControllerMetrics, HookRunResult } from "../metrics.js";
import { hookDeadline } from "../planner/takeover.js";
import { runExec } from "./exec-handler.js";
import { runExternal, withdrawExternal } from "./external-handler.js";
import type { HandlerDeps, HookHandler, HookRun } from "./hook-run.js";
import { deleteHookJob, runJob } from "./job-handler.js";
import { writeHookOutcome } from "./record-writer.js";
import { isTransient, retryTransient } from "./transient.js";
import { runWebhook } from "./webhook-handler.js";

const HANDLERS: Record<HookHandlerKind, HookHandler> = {
  exec: runExec,
  job: runJob,
  webhook: runWebhook,
  external: runExternal,
};

interface InFlight {
  key: string;
  attempts: number;
  run: HookRun;
  abort: AbortController;
  /** Settles once the handler returned (or threw). */
  done: Promise<void>;
}

/** How soon a PetSet is synced again when the fence kept its runs from starting. */
const RETRY_MS = 1_000;
/** How long a finished run's outcome write keeps trying through transient errors. */
const OUTCOME_WRITE_MS = 60_000;

/**
 * The runs to have in flight (pure): records Running in the cache that the plan asks for at
 * the same attempt, by id, with the version whose status holds them.
 */
export function runsToHave(
  versions: readonly PetSetVersion[],
  planned: readonly HookRecord[],
): Map<string, { record: HookRecord; holder: PetSetVersion }> {
  const asked = new Map<string, number>();
  for (const r of planned) if (r.phase === "Running") asked.set(r.id, r.attempts);
  const runs = new Map<string, { record: HookRecord; holder: PetSetVersion }>();
  for (const v of versions) {
    for (const record of v.status?.hooks ?? []) {
      if (record.phase === "Running" && asked.get(record.id) === record.attempts)
        runs.set(record.id, { record, holder: v });
    }
  }
  return runs;
}

export interface HookRunnerDeps extends HandlerDeps {
  events: EventRecorder;
  /** Wake the sync of a PetSet (namespace/name). */
  enqueue(key: string): void;
  /** Aborted when this replica loses its Lease. */
  signal?: AbortSignal | undefined;
  /** When this controller began driving (planner/takeover.ts); the planner is given the same. */
  drivingSince?: number;
  /** Where ended runs are counted and timed (none: not counted). */
  metrics?: Pick<ControllerMetrics, "hookRuns" | "hookRunDuration"> | undefined;
  /** Handlers by kind, for tests (default: the real ones). */
  handlers?: Partial<Record<HookHandlerKind, HookHandler>>;
}

export class HookRunner {
  private readonly inFlight = new Map<string, InFlight>();
  /**
   * Runs (`id#attempt`) whose outcome this runner wrote: the cache may still show them Running
   * for a moment, and they must not start again (a successful hook runs once where we can tell).
   */
  private readonly written = new Set<string>();
  /** Stopped runs whose handler has not returned yet, by id: the id does not start again. */
  private readonly settling = new Map<string, Promise<void>>();
  /** Keys to sync again shortly (retrySoon). */
  private readonly retries = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(private readonly deps: HookRunnerDeps) {}

  /** Runs in flight (for tests and metrics). */
  get running(): number {
    return this.inFlight.size;
  }

  /**
   * After a sync's plan: `versions` as cached, `planned` the plan's hook records (its
   * status.hooks). Starts and stops runs by the rules of the header.
   */
  reconcile(petSet: PetSet, versions: readonly PetSetVersion[], planned: readonly HookRecord[]): void {
    const namespace = petSet.metadata.namespace ?? "default";
    const key = `${namespace}/${petSet.metadata.name ?? ""}`;
    const wanted = runsToHave(versions, planned);
    for (const [id, f] of this.inFlight) {
      if (f.key !== key) continue;
      if (wanted.get(id)?.record.attempts === f.attempts) continue;
      this.stop(id, f, true);
    }
    const running = new Set([...wanted.values()].map(({ record }) => `${record.id}#${record.attempts}`));
    for (const key of this.written) {
      const id = key.slice(0, key.lastIndexOf("#"));
      if (
        !running.has(key) &&
        (wanted.has(id) || versions.some((v) => v.status?.hooks?.some((r) => r.id === id)))
      )
        this.written.delete(key);
    }
    if (this.deps.signal?.aborted) return;
    const toStart = [...wanted].filter(
      ([id, { record }]) =>
        !this.inFlight.has(id) && !this.settling.has(id) && !this.written.has(`${id}#${record.attempts}`),
    );
    if (toStart.length === 0) return;
    if (!this.fenceHolds()) {
      this.retrySoon(key);
      return;
    }
    for (const [id, { record, holder }] of toStart) {
      const run = this.buildRun(petSet, versions, record);
      if (run === undefined) continue;
      this.start(key, id, holder, run);
    }
  }

  private fenceHolds(): boolean {
    try {
      this.deps.fence?.check();
      return true;
    } catch {
      return false;
    }
  }

  /** Sync `key` again shortly (a run kept from starting, or interrupted). */
  private retrySoon(key: string): void {
    if (this.retries.has(key)) return;
    const timer = setTimeout(() => {
      this.retries.delete(key);
      this.deps.enqueue(key);
    }, RETRY_MS);
    timer.unref?.();
    this.retries.set(key, timer);
  }

  /** The PetSet is gone: stop its runs (their Jobs go with it through ownerReferences). */
  forget(key: string): void {
    for (const [id, f] of this.inFlight) if (f.key === key) this.stop(id, f, false);
  }

  stopAll(): void {
    for (const [id, f] of this.inFlight) this.stop(id, f, false);
    for (const timer of this.retries.values()) clearTimeout(timer);
    this.retries.clear();
  }

  private stop(id: string, f: InFlight, withdraw: boolean): void {
    this.inFlight.delete(id);
    this.settling.set(id, f.done);
    f.abort.abort(new Error("hook run cancelled"));
    if (!withdraw || this.deps.signal?.aborted) return;
    const cleanup =
      f.run.record.handler === "job"
        ? deleteHookJob(f.run, this.deps)
        : f.run.record.handler === "external"
          ? withdrawExternal(f.run, this.deps)
          : Promise.resolve();
    void cleanup.catch(() => {});
  }

  private buildRun(
    petSet: PetSet,
    versions: readonly PetSetVersion[],
    record: HookRecord,
  ): HookRun | undefined {
    const spec = hookSpecOf(petSet.spec, record.hook);
    if (spec === undefined) return undefined;
    const namespace = petSet.metadata.namespace ?? "default";
    const templateVersion =
      record.hook === "preUpdate" || record.hook === "preScaleDown"
        ? (record.fromVersion ?? record.toVersion)
        : record.toVersion;
    let pod: V1Pod | undefined;
    if (record.pod !== undefined) {
      const cached = this.deps.caches.pods.get(record.pod, namespace);
      if (cached?.metadata?.uid === record.podUID) pod = cached;
    }
    return {
      record,
      spec,
      petSet,
      version: versions.find((v) => v.spec.version === templateVersion),
      pod,
      context: {
        id: record.id,
        hook: record.hook,
        petSet: petSet.metadata.name ?? "",
        namespace,
        attempt: record.attempts,
        ...(record.pod !== undefined ? { pod: record.pod } : {}),
        ...(record.ordinal !== undefined ? { ordinal: record.ordinal } : {}),
        ...(record.fromVersion !== undefined ? { fromVersion: record.fromVersion } : {}),
        ...(record.toVersion !== undefined ? { toVersion: record.toVersion } : {}),
        ...(petSet.metadata.generation !== undefined ? { generation: petSet.metadata.generation } : {}),
        ...(record.replicas !== undefined ? { replicas: record.replicas } : {}),
        ...(record.candidate !== undefined ? { candidate: record.candidate } : {}),
      },
    };
  }

  private start(key: string, id: string, holder: PetSetVersion, run: HookRun): void {
    const abort = new AbortController();
    const deadline = hookDeadline(run.record.startedAt, run.spec.timeoutSeconds, this.deps.drivingSince);
    const left = Number.isNaN(deadline) ? 0 : Math.max(0, deadline - this.deps.clock.now());
    const signals = [abort.signal];
    if (this.deps.signal !== undefined) signals.push(this.deps.signal);
    const signal = abortAfter(signals, left);
    const log = this.deps.logger.child({ hook: run.record.hook, id, attempt: run.record.attempts });
    log.info({ handler: run.record.handler }, "hook run started");
    const handler = this.deps.handlers?.[run.record.handler] ?? HANDLERS[run.record.handler];
    let settled: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      settled = resolve;
    });
    const f: InFlight = { key, attempts: run.record.attempts, run, abort, done };
    this.inFlight.set(id, f);
    const startedHere = this.deps.clock.now();
    void (async () => {
      let outcome: { ok: boolean; message: string };
      try {
        outcome = await handler(run, this.deps, signal);
      } catch (err) {
        if (signal.aborted) {
          log.info({ reason: String(signal.reason) }, "hook run stopped");
          const byDeadline = !abort.signal.aborted && !this.deps.signal?.aborted;
          this.observe(run, byDeadline ? "timed_out" : "cancelled", startedHere);
          return;
        }
        if (isTransient(err)) {
          // Not the hook's failure: the run starts again (same attempt) on a later sync.
          log.warn({ err: String(err) }, "hook run interrupted by a transient error; it is resumed");
          this.observe(run, "interrupted", startedHere);
          this.retrySoon(key);
          return;
        }
        outcome = { ok: false, message: `error: ${err instanceof Error ? err.message : String(err)}` };
      } finally {
        if (this.inFlight.get(id) === f) this.inFlight.delete(id);
        settled();
        if (this.settling.get(id) === done) {
          this.settling.delete(id);
          // The id may start again (a new attempt waited for this one to end).
          if (signal.aborted && !this.deps.signal?.aborted) this.deps.enqueue(key);
        }
      }
      if (signal.aborted) {
        const byDeadline = !abort.signal.aborted && !this.deps.signal?.aborted;
        this.observe(run, byDeadline ? "timed_out" : "cancelled", startedHere);
        return;
      }
      log.info({ ok: outcome.ok, message: outcome.message }, "hook run finished");
      this.observe(run, outcome.ok ? "succeeded" : "failed", startedHere);
      const runKey = `${id}#${run.record.attempts}`;
      this.written.add(runKey);
      await this.finish(key, holder, run, outcome).catch((err: unknown) => {
        this.written.delete(runKey);
        log.warn({ err: String(err) }, "could not record the hook's outcome; the run is retried");
      });
    })();
  }

  /** Counts an ended run; times it from its attempt's start when it ran to an end. */
  private observe(run: HookRun, result: HookRunResult, startedHere: number): void {
    const metrics = this.deps.metrics;
    if (metrics === undefined) return;
    const labels = { hook: run.record.hook, handler: run.record.handler };
    metrics.hookRuns.inc({ ...labels, result });
    if (result === "cancelled" || result === "interrupted") return;
    const recorded = Date.parse(run.record.startedAt);
    const since = Number.isNaN(recorded) ? startedHere : Math.min(recorded, startedHere);
    metrics.hookRunDuration.observe(labels, Math.max(0, this.deps.clock.now() - since) / 1000);
  }

  private async finish(
    key: string,
    holder: PetSetVersion,
    run: HookRun,
    outcome: { ok: boolean; message: string },
  ) {
    const namespace = run.context.namespace;
    // The outcome is known: a transient error writing it must not run the hook again.
    const until = abortAfter(this.deps.signal ? [this.deps.signal] : [], OUTCOME_WRITE_MS);
    const finishedAt = new Date(this.deps.clock.now()).toISOString();
    const written = await retryTransient(
      () =>
        writeHookOutcome(
          this.deps.kubeConfig,
          {
            namespace,
            versionName: holder.metadata.name ?? versionName(run.context.petSet, holder.spec.version),
            id: run.record.id,
            attempts: run.record.attempts,
          },
          { ...outcome, finishedAt },
        ),
      until,
    );
    if (written === "written") {
      const what =
        run.record.pod !== undefined
          ? `${run.record.hook} on ${run.record.pod}`
          : `${run.record.hook} of version ${run.record.toVersion ?? "?"}`;
      await this.deps.events.record(
        {
          apiVersion: run.petSet.apiVersion,
          kind: run.petSet.kind,
          namespace,
          name: run.context.petSet,
          uid: run.petSet.metadata.uid,
        },
        outcome.ok
          ? {
              type: "Normal",
              reason: "HookSucceeded",
              message: `${what}: succeeded (attempt ${run.record.attempts}): ${outcome.message}`,
            }
          : {
              type: "Warning",
              reason: "HookRunFailed",
              message: `${what}: attempt ${run.record.attempts} failed: ${outcome.message}`,
            },
      );
    }
    this.deps.enqueue(key);
  }
}
