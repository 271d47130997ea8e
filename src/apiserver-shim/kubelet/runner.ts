/**
 * Runs stages against a cache: one timer per object, keyed by resource and name. Each
 * event re-plans the object; a timer survives an event only if the same stage still
 * applies (so unrelated updates do not push readiness back, but a changed image does).
 * When a timer fires the object is re-read from the cache and re-planned before anything
 * is written, and nothing is ever done twice to the same resourceVersion: after a write
 * the runner waits for the cache to show a newer version.
 */
import type { Logger } from "pino";
import type { TimerClock } from "./clock.js";
import { type NodeView, planStage, renderStage, type World, type Write } from "./engine.js";
import { isLost } from "./lost-nodes.js";
import { FakeNodeAnnotation, nodeOrdinal } from "./node-status.js";
import { type KubeObject, NodeSchema, objectKey } from "./objects.js";
import type { Stage, StageConfig, StageResource } from "./stages.js";

/** Read side: the informer caches. Objects are never mutated. */
export interface ObjectSource {
  get(resource: StageResource, key: string): KubeObject | undefined;
  list(resource: StageResource): readonly KubeObject[];
}

export type WriteFailure = "Conflict" | "NotFound" | "Unavailable";

/** A failed write, with the Kubernetes-style reason that decides what the runner does next. */
export class StageWriteError extends Error {
  override name = "StageWriteError";
  constructor(
    readonly reason: WriteFailure,
    readonly write: Write,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Write side. `apply` performs the writes in order and resolves when all that matter
 * succeeded (Events are best effort); it rejects with a StageWriteError whose reason is
 * Conflict (a resourceVersion precondition failed), NotFound (the object is gone) or
 * Unavailable (anything else: retried with backoff). `read` gets the live object.
 */
export interface StageWriter {
  apply(writes: readonly Write[], context: { stage: string }): Promise<void>;
  read(resource: StageResource, namespace: string | undefined, name: string): Promise<KubeObject | undefined>;
}

export interface StageRunnerOptions {
  config: StageConfig;
  clock: TimerClock;
  source: ObjectSource;
  writer: StageWriter;
  /** Nodes this kubelet plays: only their pods (and unscheduled pods) are touched. */
  managedNodes: readonly string[];
  /**
   * Also play nodes created later with kwok's annotation `kwok.x-k8s.io/node: fake` (as kwok
   * does), e.g. a test's own node. Only where no kwok runs: the embedded server.
   */
  adoptFakeNodes?: boolean;
  logger: Logger;
  maxConflictRetries?: number;
}

interface Entry {
  resource: StageResource;
  objKey: string;
  stage: string | undefined;
  cancel: (() => void) | undefined;
  inFlight: boolean;
  actedOnRv: string | undefined;
  failures: number;
}

export class StageRunner {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Pods bound by us but not yet seen bound in the cache: counted on their node. */
  private readonly assumed = new Map<string, string>();
  private readonly managed: Set<string>;
  /** Whether each managed node was lost when last seen (lost-nodes.ts). */
  private readonly lost = new Map<string, boolean>();
  private stopped = false;
  /** The managed nodes, parsed (pod counts apart): recomputed only when a node changes. */
  private nodesCache: NodeView[] | undefined;
  /**
   * Where each pod counts (its node, or the one we bound it to) and its IP, and the totals per
   * node: kept up to date on every event. Recounting every pod on every pod event made a
   * populate of 30,000 pods quadratic (docs/benchmarks.md, scale).
   */
  private readonly placements = new Map<string, { node: string; ip: string | undefined }>();
  private readonly perNode = new Map<string, { pods: number; ips: Map<string, number> }>();
  /**
   * Pods whose resize waits for room (PodResizePending reason Deferred), per node. As the
   * kubelet retries a deferred resize when pods on its node go or shrink, any other pod of the
   * node that changes or goes re-evaluates them (kept per event: usually empty).
   */
  private readonly deferred = new Map<string, Set<string>>();

  constructor(private readonly o: StageRunnerOptions) {
    this.managed = new Set(o.managedNodes);
  }

  /** Call after the cache added or updated `obj`. */
  observe(resource: StageResource, obj: KubeObject): void {
    const objKey = objectKey(obj.metadata);
    if (resource === "nodes") {
      this.nodesCache = undefined;
      if (this.o.adoptFakeNodes && obj.metadata.annotations?.[FakeNodeAnnotation] === "fake")
        this.managed.add(objKey);
      const lost = isLost(obj.metadata.labels);
      if (this.managed.has(objKey) && (this.lost.get(objKey) ?? false) !== lost) {
        this.lost.set(objKey, lost);
        // Lost: its pods' timers stop (frozen); back: their stages resume.
        for (const [pod, p] of this.placements) if (p.node === objKey) this.evaluate("pods", pod);
      }
    }
    if (resource === "pods") {
      if (podNodeName(obj)) this.assumed.delete(objKey);
      this.place(objKey, obj);
    }
    this.evaluate(resource, objKey);
    if (resource === "pods") this.trackDeferred(objKey, obj);
    // A node or a claim that changed may let an unbound pod be bound now.
    if (
      (resource === "nodes" && this.managed.has(obj.metadata.name)) ||
      resource === "persistentvolumeclaims"
    ) {
      for (const pod of this.o.source.list("pods")) {
        if (!podNodeName(pod)) this.evaluate("pods", objectKey(pod.metadata));
      }
    }
  }

  /** Call after the cache deleted `obj`. */
  forget(resource: StageResource, obj: KubeObject): void {
    const objKey = objectKey(obj.metadata);
    const key = `${resource}/${objKey}`;
    this.entries.get(key)?.cancel?.();
    this.entries.delete(key);
    if (resource === "pods") {
      this.assumed.delete(objKey);
      this.place(objKey, undefined);
      this.trackDeferred(objKey, undefined, podNodeName(obj));
    }
    if (resource === "nodes") {
      this.nodesCache = undefined;
      this.lost.delete(objKey);
      if (!this.o.managedNodes.includes(objKey)) this.managed.delete(objKey);
    }
  }

  /** The nodes this kubelet plays now (its own and, with adoptFakeNodes, those it adopted). */
  managedNodes(): string[] {
    return [...this.managed];
  }

  /**
   * Keeps `deferred` up to date for `pod` (undefined: gone from `node`); when another pod of
   * the node changed or went, its deferred pods are evaluated again (their room may have come).
   */
  private trackDeferred(objKey: string, pod: KubeObject | undefined, goneFrom = ""): void {
    const node = pod ? podNodeName(pod) : goneFrom;
    if (!node) return;
    let waiting = this.deferred.get(node);
    if (pod !== undefined && isResizeDeferred(pod)) {
      if (!waiting) {
        waiting = new Set();
        this.deferred.set(node, waiting);
      }
      waiting.add(objKey);
      return;
    }
    waiting?.delete(objKey);
    if (!waiting || waiting.size === 0) {
      this.deferred.delete(node);
      return;
    }
    for (const key of waiting) this.evaluate("pods", key);
  }

  /** Counts `pod` (undefined: gone) on the node it is bound or assumed to, with its IP. */
  private place(objKey: string, pod: KubeObject | undefined): void {
    const old = this.placements.get(objKey);
    const node = pod ? podNodeName(pod) || this.assumed.get(objKey) || "" : "";
    const rawIP = pod?.status?.podIP;
    const ip = typeof rawIP === "string" && rawIP ? rawIP : undefined;
    if (old?.node === node && old.ip === ip) return;
    if (old) {
      const n = this.perNode.get(old.node);
      if (n) {
        n.pods--;
        if (old.ip !== undefined) {
          const c = (n.ips.get(old.ip) ?? 1) - 1;
          if (c > 0) n.ips.set(old.ip, c);
          else n.ips.delete(old.ip);
        }
      }
      this.placements.delete(objKey);
    }
    if (!node) return;
    let n = this.perNode.get(node);
    if (!n) {
      n = { pods: 0, ips: new Map() };
      this.perNode.set(node, n);
    }
    n.pods++;
    if (ip !== undefined) n.ips.set(ip, (n.ips.get(ip) ?? 0) + 1);
    this.placements.set(objKey, { node, ip });
  }

  /** Cancels every timer and waits for writes in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const e of this.entries.values()) e.cancel?.();
    this.entries.clear();
    await Promise.allSettled([...this.inFlight]);
  }

  /** The managed nodes as the engine sees them, in ordinal order, with their current pods. */
  world(): World {
    this.nodesCache ??= this.computeNodes();
    const empty = new Map<string, number>();
    const source = this.o.source;
    const claims = { has: (key: string) => source.get("persistentvolumeclaims", key) !== undefined };
    return {
      podsOn: (node) =>
        [...this.placements]
          .filter(([, p]) => p.node === node)
          .flatMap(([key]) => source.get("pods", key) ?? []),
      nodes: this.nodesCache.map((n) => {
        const counted = this.perNode.get(n.name);
        return { ...n, pods: counted?.pods ?? 0, podIPs: counted?.ips ?? empty };
      }),
      claims,
    };
  }

  private computeNodes(): NodeView[] {
    const nodes: NodeView[] = [];
    for (const obj of this.o.source.list("nodes")) {
      const node = NodeSchema.safeParse(obj).data;
      if (!node || !this.managed.has(node.metadata.name)) continue;
      const ready = (node.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
      const internalIP = node.status?.addresses?.find((a) => a.type === "InternalIP")?.address;
      nodes.push({
        name: node.metadata.name,
        ready,
        unschedulable: node.spec?.unschedulable === true,
        taints: node.spec?.taints ?? [],
        labels: node.metadata.labels ?? {},
        pods: 0,
        internalIP,
        podCIDR: node.spec?.podCIDR,
        podIPs: new Map(),
        ...(node.status?.allocatable
          ? {
              allocatable: Object.fromEntries(
                Object.entries(node.status.allocatable).map(([k, v]) => [k, String(v)]),
              ),
            }
          : {}),
      });
    }
    return nodes.sort((a, b) => nodeOrdinal(a.name) - nodeOrdinal(b.name) || a.name.localeCompare(b.name));
  }

  private evaluate(resource: StageResource, objKey: string): void {
    if (this.stopped) return;
    const key = `${resource}/${objKey}`;
    const obj = this.o.source.get(resource, objKey);
    let e = this.entries.get(key);
    if (!obj) {
      if (e && !e.inFlight) this.drop(key, e);
      return;
    }
    if (e?.inFlight) return; // re-evaluated when the write completes
    if (e?.actedOnRv !== undefined && e.actedOnRv === obj.metadata.resourceVersion) return;
    const plan = planStage(this.o.config, resource, obj, this.world());
    if (!plan) {
      if (e) this.drop(key, e);
      return;
    }
    if (e?.cancel && e.stage === plan.stage.name) return; // keep the delay already running
    e ??= this.newEntry(key, resource, objKey);
    e.cancel?.();
    this.schedule(key, e, plan.stage.name, plan.delayMs);
  }

  private newEntry(key: string, resource: StageResource, objKey: string): Entry {
    const e: Entry = {
      resource,
      objKey,
      stage: undefined,
      cancel: undefined,
      inFlight: false,
      actedOnRv: undefined,
      failures: 0,
    };
    this.entries.set(key, e);
    return e;
  }

  private drop(key: string, e: Entry): void {
    e.cancel?.();
    this.entries.delete(key);
  }

  private schedule(key: string, e: Entry, stage: string, delayMs: number): void {
    e.stage = stage;
    e.cancel = this.o.clock.setTimer(delayMs, () => this.fire(key, e));
  }

  private fire(key: string, e: Entry): void {
    e.cancel = undefined;
    if (this.stopped || this.entries.get(key) !== e) return;
    const obj = this.o.source.get(e.resource, e.objKey);
    if (!obj) {
      this.drop(key, e);
      return;
    }
    const plan = planStage(this.o.config, e.resource, obj, this.world());
    if (!plan || plan.stage.name !== e.stage || obj.metadata.resourceVersion === e.actedOnRv) {
      e.stage = undefined;
      this.evaluate(e.resource, e.objKey);
      return;
    }
    e.inFlight = true;
    const run = this.execute(e, plan.stage, obj, 0)
      .catch((err: unknown) => this.o.logger.warn({ err, object: key }, "simulated kubelet: re-read failed"))
      .finally(() => {
        e.inFlight = false;
        this.inFlight.delete(run);
        if (this.entries.get(key) !== e) return;
        if (!e.cancel) e.stage = undefined;
        this.evaluate(e.resource, e.objKey);
      });
    this.inFlight.add(run);
  }

  private async execute(e: Entry, stage: Stage, obj: KubeObject, attempt: number): Promise<void> {
    const log = {
      stage: stage.name,
      resource: e.resource,
      object: e.objKey,
      rv: obj.metadata.resourceVersion,
    };
    const writes = renderStage(stage, obj, this.world(), this.o.clock.now());
    for (const w of writes) {
      if (w.op !== "bind") continue;
      this.assumed.set(e.objKey, w.node);
      this.place(e.objKey, this.o.source.get("pods", e.objKey));
    }
    try {
      await this.o.writer.apply(writes, { stage: stage.name });
      e.actedOnRv = obj.metadata.resourceVersion;
      e.failures = 0;
      this.o.logger.debug(log, "simulated kubelet: stage applied");
    } catch (err) {
      if (this.assumed.delete(e.objKey)) this.place(e.objKey, this.o.source.get("pods", e.objKey));
      if (!(err instanceof StageWriteError) || err.reason === "Unavailable") {
        e.failures++;
        const backoffMs = Math.min(10_000, 200 * 2 ** Math.min(e.failures, 6));
        this.o.logger.warn({ ...log, err, backoffMs }, "simulated kubelet: stage failed, will retry");
        if (!this.stopped) this.schedule(`${e.resource}/${e.objKey}`, e, stage.name, backoffMs);
        return;
      }
      e.actedOnRv = obj.metadata.resourceVersion;
      if (err.reason === "NotFound") return; // gone: the informer will tell us
      // Conflict: our cache was stale. Re-read; if the stage still applies, apply it now.
      const fresh = await this.o.writer.read(e.resource, obj.metadata.namespace, obj.metadata.name);
      const again = fresh && planStage(this.o.config, e.resource, fresh, this.world());
      const retry = again && again.stage.name === stage.name && attempt < (this.o.maxConflictRetries ?? 3);
      this.o.logger.debug({ ...log, retry: Boolean(retry) }, "simulated kubelet: conflict");
      if (retry && fresh && !this.stopped) await this.execute(e, stage, fresh, attempt + 1);
    }
  }
}

function podNodeName(pod: KubeObject): string | undefined {
  const spec = pod.spec;
  if (spec === null || typeof spec !== "object" || !("nodeName" in spec)) return undefined;
  return typeof spec.nodeName === "string" && spec.nodeName ? spec.nodeName : undefined;
}

/** The pod's resize waits for room on its node (PodResizePending, reason Deferred). */
function isResizeDeferred(pod: KubeObject): boolean {
  const conditions = (pod.status as { conditions?: unknown } | undefined)?.conditions;
  return (
    Array.isArray(conditions) &&
    conditions.some(
      (c: { type?: unknown; reason?: unknown }) => c?.type === "PodResizePending" && c.reason === "Deferred",
    )
  );
}
