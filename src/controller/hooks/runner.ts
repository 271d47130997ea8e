/**
 * The hook runner: the adapter that executes what the planner decided (planner/hooks.ts).
 * After every sync it is shown the PetSet's versions as cached; each hook record in phase
 * Running is a run that must be in flight here, and each run in flight whose record is no
 * longer Running at that attempt is aborted (cancelled Jobs are deleted, pending handshakes
 * withdrawn). A finished run writes its outcome to the record (record-writer.ts), records an
 * Event and wakes the PetSet's sync.
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
import { hookDeadline } from "../planner/takeover.js";
import { runExec } from "./exec-handler.js";
import { runExternal, withdrawExternal } from "./external-handler.js";
import type { HandlerDeps, HookHandler, HookRun } from "./hook-run.js";
import { deleteHookJob, runJob } from "./job-handler.js";
import { writeHookOutcome } from "./record-writer.js";
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
}

export interface HookRunnerDeps extends HandlerDeps {
  events: EventRecorder;
  /** Wake the sync of a PetSet (namespace/name). */
  enqueue(key: string): void;
  /** Aborted when this replica loses its Lease. */
  signal?: AbortSignal | undefined;
  /** When this controller began driving (planner/takeover.ts); the planner is given the same. */
  drivingSince?: number;
}

export class HookRunner {
  private readonly inFlight = new Map<string, InFlight>();
  /**
   * Runs (`id#attempt`) whose outcome this runner wrote: the cache may still show them Running
   * for a moment, and they must not start again (a successful hook runs once where we can tell).
   */
  private readonly written = new Set<string>();

  constructor(private readonly deps: HookRunnerDeps) {}

  /** Runs in flight (for tests and metrics). */
  get running(): number {
    return this.inFlight.size;
  }

  reconcile(petSet: PetSet, versions: readonly PetSetVersion[]): void {
    const namespace = petSet.metadata.namespace ?? "default";
    const key = `${namespace}/${petSet.metadata.name ?? ""}`;
    const wanted = new Map<string, { record: HookRecord; holder: PetSetVersion }>();
    for (const v of versions) {
      for (const record of v.status?.hooks ?? []) {
        if (record.phase === "Running") wanted.set(record.id, { record, holder: v });
      }
    }
    for (const [id, f] of this.inFlight) {
      if (f.key !== key) continue;
      const w = wanted.get(id);
      if (w !== undefined && w.record.attempts === f.attempts) continue;
      this.stop(id, f, w === undefined);
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
    for (const [id, { record, holder }] of wanted) {
      if (this.inFlight.has(id) || this.deps.signal?.aborted) continue;
      if (this.written.has(`${id}#${record.attempts}`)) continue;
      const run = this.buildRun(petSet, versions, record);
      if (run === undefined) continue;
      this.start(key, id, holder, run);
    }
  }

  /** The PetSet is gone: stop its runs (their Jobs go with it through ownerReferences). */
  forget(key: string): void {
    for (const [id, f] of this.inFlight) if (f.key === key) this.stop(id, f, false);
  }

  stopAll(): void {
    for (const [id, f] of this.inFlight) this.stop(id, f, false);
  }

  private stop(id: string, f: InFlight, withdraw: boolean): void {
    this.inFlight.delete(id);
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
    const f: InFlight = { key, attempts: run.record.attempts, run, abort };
    this.inFlight.set(id, f);
    const deadline = hookDeadline(run.record.startedAt, run.spec.timeoutSeconds, this.deps.drivingSince);
    const left = Number.isNaN(deadline) ? 0 : Math.max(0, deadline - this.deps.clock.now());
    const signals = [abort.signal];
    if (this.deps.signal !== undefined) signals.push(this.deps.signal);
    const signal = abortAfter(signals, left);
    const log = this.deps.logger.child({ hook: run.record.hook, id, attempt: run.record.attempts });
    log.info({ handler: run.record.handler }, "hook run started");
    const handler = HANDLERS[run.record.handler];
    void (async () => {
      let outcome: { ok: boolean; message: string };
      try {
        outcome = await handler(run, this.deps, signal);
      } catch (err) {
        if (signal.aborted) {
          log.info({ reason: String(signal.reason) }, "hook run stopped");
          return;
        }
        outcome = { ok: false, message: `error: ${err instanceof Error ? err.message : String(err)}` };
      } finally {
        if (this.inFlight.get(id) === f) this.inFlight.delete(id);
      }
      if (signal.aborted) return;
      log.info({ ok: outcome.ok, message: outcome.message }, "hook run finished");
      const runKey = `${id}#${run.record.attempts}`;
      this.written.add(runKey);
      await this.finish(key, holder, run, outcome).catch((err: unknown) => {
        this.written.delete(runKey);
        log.warn({ err: String(err) }, "could not record the hook's outcome; the run is retried");
      });
    })();
  }

  private async finish(
    key: string,
    holder: PetSetVersion,
    run: HookRun,
    outcome: { ok: boolean; message: string },
  ) {
    const namespace = run.context.namespace;
    const written = await writeHookOutcome(
      this.deps.kubeConfig,
      {
        namespace,
        versionName: holder.metadata.name ?? versionName(run.context.petSet, holder.spec.version),
        id: run.record.id,
        attempts: run.record.attempts,
      },
      { ...outcome, finishedAt: new Date(this.deps.clock.now()).toISOString() },
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
