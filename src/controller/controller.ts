/**
 * Wiring: watch events fill the caches; each event maps to the key of the PetSet it concerns
 * and wakes the queue; workers take keys and run the sync. Only the leader runs workers.
 *
 * With leader election the caches start only once this replica leads (as in
 * kube-controller-manager): their first list is a consistent read made after the Lease
 * changed hands, so it shows every write the previous leader made while it held the Lease.
 * Every write goes through clients fenced by the elector's LeaseGuard (lease-guard.ts).
 */
import { hostname } from "node:os";
import { setImmediate as yieldTurn } from "node:timers/promises";
import type { KubeConfig, KubernetesObject, V1Pod } from "@kubernetes/client-node";
import { Labels } from "../api/names.js";
import type { Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import { createClaimControl } from "./claim-control.js";
import { CrdsTooOld, checkCrdCompat, readInstalledCrds, readUntilAnswered } from "./crd-compat.js";
import { createEventRecorder } from "./event-recorder.js";
import { ExpectationStore, type ExpectedResource } from "./expectations.js";
import { HookRunner } from "./hooks/runner.js";
import { type ControllerCaches, type ResourceCache, startControllerCaches } from "./informers.js";
import { type LeaderElector, startLeaderElection } from "./leader-election.js";
import { fencedKubeConfig, isLeaseLost, type LeaseGuard, unfencedGuard } from "./lease-guard.js";
import { type ControllerMetrics, createMetrics } from "./metrics.js";
import { createNodeFencing } from "./node-fencing.js";
import { type NodeWatch, watchNodes } from "./node-watch.js";
import { cachedPodView } from "./parsed-cache.js";
import { createPetSetClient } from "./petset-client.js";
import { createPodControl } from "./pod-control.js";
import { KeyQueue } from "./queue.js";
import { DEFAULT_STATUS_PROGRESS_INTERVAL_MS, StatusWriteLimiter } from "./status-coalescing.js";
import { type StorageClassWatch, watchStorageClasses } from "./storage-class-watch.js";
import { type SyncContext, type SyncResult, syncPetSet } from "./sync.js";
import {
  type CacheEventKind,
  petSetEventWake,
  podEventWake,
  SOON_MS,
  SYNC_SPACING_MS,
  type Wake,
  wakeGiven,
} from "./wake-policy.js";

export interface ControllerOptions {
  kubeConfig: KubeConfig;
  clock: Clock;
  logger: Logger;
  namespace?: string | undefined;
  workers: number;
  leaderElection?: LeaderElectionSettings | undefined;
  metrics?: ControllerMetrics;
  /** How long a sync waits for the caches to show the controller's own writes (default 30 s). */
  expectationsTimeoutMs?: number;
  /**
   * At most one progress-only status write per PetSet per this many ms (status-coalescing.ts;
   * default 1000, 0 writes every change at once). Condition changes are always written at once.
   */
  statusProgressIntervalMs?: number;
  /** Least time between two syncs of one PetSet (wake-policy.ts; default SYNC_SPACING_MS, 0: none). */
  syncSpacingMs?: number;
  /** Names this replica in the User-Agent of its requests (audit logs tell replicas apart). */
  userAgent?: string;
  /** Limit of the caches' lists and watch set-ups (default 30 s; see informers.ts). */
  cacheRequestTimeoutMs?: number;
}

export interface LeaderElectionSettings {
  namespace: string;
  name: string;
  identity?: string;
  /** Defaults as client-go: 15 s lease, 10 s renew deadline, 2 s retry period. */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** Writes stop this long before the Lease could expire (default leaseDuration - renewDeadline). */
  fenceMarginMs?: number;
}

export class PetSetController {
  readonly metrics: ControllerMetrics;
  private caches: ControllerCaches | undefined;
  private elector: LeaderElector | undefined;
  private readonly queue: KeyQueue;
  private readonly expectations: ExpectationStore;
  /** Status-write coalescing and echoes (status-coalescing.ts), shared by the syncs and the events. */
  private readonly statusWrites: StatusWriteLimiter;
  /** PetSets whose last sync waited for the caches to show its own writes (sync-expectations.ts). */
  private readonly parked = new Set<string>();
  private running = false;
  private workersDone: Promise<void>[] = [];
  private readonly userAgent: string;
  private hookRunner: HookRunner | undefined;
  private nodeWatch: NodeWatch | undefined;
  private storageClassWatch: StorageClassWatch | undefined;
  /** Ends the pooled keep-alive connections of the fenced clients. */
  private closeConnections: (() => void) | undefined;

  constructor(private readonly opts: ControllerOptions) {
    this.metrics = opts.metrics ?? createMetrics();
    this.queue = new KeyQueue({
      clock: opts.clock,
      observeWait: (seconds) => this.metrics.queueDuration.observe(seconds),
      minIntervalMs: opts.syncSpacingMs ?? SYNC_SPACING_MS,
    });
    this.metrics.readQueueDepth(() => this.queue.length);
    this.statusWrites = new StatusWriteLimiter(
      opts.statusProgressIntervalMs ?? DEFAULT_STATUS_PROGRESS_INTERVAL_MS,
    );
    this.expectations = new ExpectationStore(opts.expectationsTimeoutMs ?? 30_000);
    this.userAgent = opts.userAgent ?? "petset-controller";
  }

  /**
   * The /readyz answer: true once the caches have synced, or, for a standby replica, once it
   * competes for the Lease (its caches start when it leads).
   */
  ready = false;

  async start(): Promise<void> {
    await this.checkCrds();
    const le = this.opts.leaderElection;
    if (!le) {
      this.metrics.leader.set(1);
      await this.startCaches();
      this.startWorkers(unfencedGuard);
      return;
    }
    const elector = startLeaderElection({
      kubeConfig: this.opts.kubeConfig,
      clock: this.opts.clock,
      logger: this.opts.logger,
      namespace: le.namespace,
      name: le.name,
      identity: le.identity ?? `${hostname()}-${process.pid}`,
      ...(le.leaseDurationMs !== undefined ? { leaseDurationMs: le.leaseDurationMs } : {}),
      ...(le.renewDeadlineMs !== undefined ? { renewDeadlineMs: le.renewDeadlineMs } : {}),
      ...(le.retryPeriodMs !== undefined ? { retryPeriodMs: le.retryPeriodMs } : {}),
      ...(le.fenceMarginMs !== undefined ? { fenceMarginMs: le.fenceMarginMs } : {}),
      headers: { "User-Agent": this.userAgent },
      onStartedLeading: () => {
        this.metrics.leader.set(1);
        this.leading = this.startCaches().then(
          () => this.startWorkers(elector.guard),
          (err: unknown) => this.opts.logger.error({ err: String(err) }, "caches failed to start"),
        );
      },
      onStoppedLeading: () => {
        // Like client-go: a replica that lost the lease must not write again. The fence
        // refuses every write and aborts those in flight; the workers stop; the process owner
        // (petset controller) exits so a fresh start re-reads everything.
        this.metrics.leader.set(0);
        this.queue.shutDown();
        this.onLostLeadership?.();
      },
    });
    this.elector = elector;
    this.ready = true;
  }

  private leading: Promise<void> | undefined;

  /** Refuses to start against CRDs older than this build needs (crd-compat.ts). */
  private async checkCrds(): Promise<void> {
    const installed = await readUntilAnswered(
      () => readInstalledCrds(this.opts.kubeConfig),
      (err, n) => this.opts.logger.warn({ err: String(err), retry: n }, "cannot read the CRDs yet: retrying"),
    );
    const verdict = checkCrdCompat(installed);
    if (!verdict.ok) throw new CrdsTooOld(verdict.message);
    for (const warning of verdict.warnings) this.opts.logger.warn(warning);
  }

  private async startCaches(): Promise<void> {
    const { kubeConfig, logger, namespace } = this.opts;
    const caches = startControllerCaches({
      kubeConfig,
      namespace,
      logger,
      ...(this.opts.cacheRequestTimeoutMs !== undefined
        ? { requestTimeoutMs: this.opts.cacheRequestTimeoutMs }
        : {}),
    });
    this.caches = caches;
    this.metrics.readWatchEvents(() =>
      Object.values(caches).flatMap((c: ResourceCache<KubernetesObject> | undefined) =>
        c === undefined
          ? []
          : (["add", "update", "delete"] as const).map((type) => ({
              resource: c.name,
              type,
              count: c.eventCounts[type],
            })),
      ),
    );
    const enqueueOwner = (o: KubernetesObject) =>
      this.enqueue(o.metadata?.namespace, o.metadata?.labels?.[Labels.petSet] ?? ownerName(o));
    caches.petSets.onChange((o, kind) => {
      const key = `${o.metadata?.namespace}/${o.metadata?.name}`;
      if (kind === "delete") this.expectations.forget(key);
      const unseen = kind !== "delete" && specUnseen(o);
      // The echo of this controller's own status write shares the next sync (wake-policy.ts).
      const ownEcho = kind === "update" && this.statusWrites.takeEcho(key, o.metadata?.resourceVersion);
      const state = { running: this.running, parked: this.parked.has(key) };
      if (wakeGiven(state, () => petSetEventWake(kind, unseen, ownEcho)) === "soon") {
        this.queue.addSoon(key, SOON_MS);
        return;
      }
      // A spec this controller has not recorded yet goes ahead of follow-up work (queue.ts):
      // its new version is what its user waits for.
      this.enqueue(o.metadata?.namespace, o.metadata?.name, unseen);
    });
    // Every event of an owned object also meets the owner's `present` expectation of its name
    // (expectations.ts `observed`), then wakes the owner.
    const observeThenEnqueue =
      <T extends KubernetesObject>(
        resource: ExpectedResource,
        wake?: (o: T, kind: CacheEventKind, earlier: T | undefined) => Wake,
      ) =>
      (o: T, kind: CacheEventKind, earlier: T | undefined) => {
        const namespace = o.metadata?.namespace;
        const owner = o.metadata?.labels?.[Labels.petSet] ?? ownerName(o);
        const name = o.metadata?.name;
        if (!namespace || !owner) return;
        const key = `${namespace}/${owner}`;
        if (name) this.expectations.observed(key, resource, name);
        // wake-policy.ts: an event that cannot let the plan act sooner shares the next sync.
        const state = { running: this.running, parked: this.parked.has(key) };
        if (wake !== undefined && wakeGiven(state, () => wake(o, kind, earlier)) === "soon")
          this.queue.addSoon(key, SOON_MS);
        else this.enqueue(namespace, owner);
      };
    caches.versions.onChange(observeThenEnqueue("petsetversions"));
    caches.pods.onChange(
      observeThenEnqueue<V1Pod>("pods", (pod, kind, earlier) =>
        // Views only for an update: the rules for an add or a delete read none.
        kind === "update"
          ? podEventWake(kind, earlier && cachedPodView(earlier), cachedPodView(pod))
          : podEventWake(kind, undefined, undefined),
      ),
    );
    caches.claims.onChange(observeThenEnqueue("persistentvolumeclaims"));
    // Nodes: not awaited below (node-watch.ts); a node's Ready change wakes the sets on it.
    if (caches.nodes !== undefined) this.nodeWatch = watchNodes(caches.nodes, caches.pods, enqueueOwner);
    // StorageClasses: not awaited either (storage-class-watch.ts); a change wakes every PetSet.
    if (caches.storageClasses !== undefined)
      this.storageClassWatch = watchStorageClasses(caches.storageClasses, caches.petSets, (o) =>
        this.enqueue(o.metadata?.namespace, o.metadata?.name),
      );
    await Promise.all([
      caches.petSets.synced,
      caches.versions.synced,
      caches.pods.synced,
      caches.claims.synced,
    ]);
    this.ready = true;
    logger.info("caches synced");
  }

  onLostLeadership: (() => void) | undefined;

  private enqueue(namespace: string | undefined, name: string | undefined, urgent = false): void {
    if (!namespace || !name) return;
    this.queue.add(`${namespace}/${name}`, { urgent });
  }

  private startWorkers(guard: LeaseGuard): void {
    if (this.running || !this.caches || this.queue.isShutDown) return;
    this.running = true;
    for (const ps of this.caches.petSets.list()) this.enqueue(ps.metadata?.namespace, ps.metadata?.name);
    const ctx = this.syncContext(this.caches, guard);
    for (let i = 0; i < this.opts.workers; i++) this.workersDone.push(this.worker(ctx));
  }

  private syncContext(caches: ControllerCaches, guard: LeaseGuard): SyncContext {
    const writes = {
      count: (verb: string, resource: string) => this.metrics.apiWrites.inc({ verb, resource }),
    };
    // Every adapter below writes through fenced clients: no write without the Lease.
    const kubeConfig = fencedKubeConfig(this.opts.kubeConfig, guard, { "User-Agent": this.userAgent });
    this.closeConnections = () => kubeConfig.closeConnections();
    const client = createPetSetClient(kubeConfig, writes);
    const events = createEventRecorder({ kubeConfig, clock: this.opts.clock, logger: this.opts.logger });
    // Leading with synced caches from now: earlier time is not judged (planner/takeover.ts).
    const drivingSince = this.opts.clock.now();
    const hooks = new HookRunner({
      drivingSince,
      kubeConfig,
      caches,
      clock: this.opts.clock,
      logger: this.opts.logger,
      events,
      enqueue: (key) => this.queue.add(key),
      metrics: this.metrics,
      signal: guard.signal,
      fence: guard,
    });
    this.hookRunner = hooks;
    return {
      caches,
      clock: this.opts.clock,
      logger: this.opts.logger,
      pods: createPodControl(kubeConfig, writes),
      claims: createClaimControl(kubeConfig, writes),
      versions: client.versions,
      status: client.status,
      petSets: client.petSets,
      events,
      metrics: this.metrics,
      hooks,
      expectations: this.expectations,
      signal: guard.signal,
      statusWrites: this.statusWrites,
      drivingSince,
      ...(this.nodeWatch !== undefined ? { nodes: this.nodeWatch } : {}),
      ...(this.storageClassWatch !== undefined ? { storageClasses: this.storageClassWatch } : {}),
      nodeFencing: createNodeFencing(kubeConfig, writes),
    };
  }

  private async worker(ctx: SyncContext): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      const end = this.metrics.syncDuration.startTimer();
      const started = performance.now();
      let result: SyncResult;
      try {
        result = await syncPetSet(ctx, key);
        this.metrics.syncs.inc({ result: "ok" });
        // With --log-level debug, a timeline of the syncs (which key, how long, requeued when).
        this.opts.logger.debug(
          {
            key,
            ms: Math.round((performance.now() - started) * 10) / 10,
            requeueAfterMs: result.requeueAfterMs,
          },
          "synced",
        );
        this.queue.forget(key);
        if (result.waiting) this.parked.add(key);
        else this.parked.delete(key);
        if (result.requeueAfterMs !== undefined) this.queue.addAfter(key, result.requeueAfterMs);
      } catch (err) {
        this.metrics.syncs.inc({ result: "error" });
        this.parked.delete(key);
        if (isLeaseLost(err) || ctx.signal?.aborted) this.metrics.writesRefused.inc();
        const delay = this.queue.addRateLimited(key);
        this.opts.logger.warn(
          { key, err: err instanceof Error ? err.message : String(err), retryInMs: delay },
          "sync failed",
        );
      } finally {
        end();
        this.queue.done(key);
      }
      // A sync that writes nothing never leaves the microtask queue, and the next key is
      // handed over at once: thousands of them in a row (a cold start) starved the watches,
      // the Lease renewal and /healthz for seconds. One macrotask turn per sync lets I/O in.
      await yieldTurn();
    }
  }

  /**
   * Stops the workers (letting running syncs finish), the elector and the caches. With
   * `releaseLease: false` the lease is left to expire, as after a crash.
   */
  async stop(opts: { releaseLease?: boolean } = {}): Promise<void> {
    this.queue.shutDown();
    await this.leading;
    await Promise.all(this.workersDone);
    // Runs in flight stop; their records stay Running and the next leader resumes them.
    this.hookRunner?.stopAll();
    this.closeConnections?.();
    await this.elector?.stop({ release: opts.releaseLease ?? true });
    if (this.caches) {
      await Promise.all(Object.values(this.caches).map((c) => c.stop()));
    }
  }
}

function ownerName(o: KubernetesObject): string | undefined {
  return o.metadata?.ownerReferences?.find((r) => r.controller && r.kind === "PetSet")?.name;
}

/** The PetSet's generation is newer than the status says the controller observed. */
function specUnseen(o: KubernetesObject): boolean {
  const generation = o.metadata?.generation;
  const observed = (o as { status?: { observedGeneration?: unknown } }).status?.observedGeneration;
  return generation !== undefined && generation !== observed;
}
