/**
 * The shim without HTTP: store, registry with the built-ins, and the internal
 * controllers (CRD serving, garbage collector, namespace lifecycle, jobs, StatefulSets, node
 * lifecycle, attach/detach). The server wraps it;
 * tests drive it directly.
 */
import type { Logger } from "pino";
import { SYSTEM_NAMESPACES } from "./builtin/namespaces.js";
import { registerBuiltins } from "./builtin/register-builtins.js";
import { DEFAULT_STORAGE_CLASSES } from "./builtin/storage-classes.js";
import {
  ATTACH_INPUTS,
  AttachDetachController,
  mountsClaim,
} from "./controllers/attach-detach-controller.js";
import { CRDS_GR, CrdController } from "./controllers/crd-controller.js";
import { DEFAULT_EVENT_TTL_MS, sweepEvents } from "./controllers/event-ttl.js";
import { GarbageCollector } from "./controllers/garbage-collector.js";
import { JOBS_GR, JobController } from "./controllers/job-controller.js";
import { NamespaceController } from "./controllers/namespace-controller.js";
import {
  LEASES_GR,
  NODE_LEASE_NAMESPACE,
  NODES_GR,
  NodeLifecycleController,
} from "./controllers/node-lifecycle-controller.js";
import { DefaultNodeMonitorGracePeriodMs } from "./controllers/node-lifecycle-plan.js";
import { PassScheduler } from "./controllers/pass-scheduler.js";
import {
  CONTROLLER_REVISIONS_GR,
  STATEFULSET_CHILDREN,
  STATEFULSETS_GR,
  StatefulSetController,
} from "./controllers/statefulset-controller.js";
import { systemContext } from "./controllers/system-context.js";
import { GenericStore, NAMESPACES_GR } from "./registry/generic-store.js";
import { ResourceRegistry } from "./registry/resource-registry.js";
import { ObjectStore } from "./storage/object-store.js";
import type { Clock } from "./time.js";
import { deepClone } from "./types.js";

export interface ShimCoreOptions {
  clock: Clock;
  logger?: Logger;
  dataDir?: string;
  watchWindow?: number;
  /** Events expire this long after their last write (kube's --event-ttl, default 1 h). */
  eventTtlMs?: number;
  /**
   * A node whose kubelet is silent this long is marked Ready=Unknown and tainted (kube's
   * --node-monitor-grace-period; default 50 s).
   */
  nodeMonitorGracePeriodMs?: number;
  /** Run the internal controllers on their own after changes (default true). */
  autoReconcile?: boolean;
}

export interface ShimCore {
  objects: ObjectStore;
  registry: ResourceRegistry;
  store: GenericStore;
  /** Runs the internal controllers until nothing changes (deterministic tests). */
  settle(maxPasses?: number): void;
  stop(): void;
}

export function createShimCore(opts: ShimCoreOptions): ShimCore {
  const objects = new ObjectStore({
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
    ...(opts.watchWindow ? { watchWindow: opts.watchWindow } : {}),
    onRecoveryWarning: (w) => opts.logger?.warn({ file: w.file, offset: w.offset }, w.message),
  });
  const registry = new ResourceRegistry();
  registerBuiltins(registry, objects, opts.clock);
  const store = new GenericStore(objects, opts.clock);
  const crds = new CrdController(store, registry);
  crds.serveAll();
  const collector = new GarbageCollector(store, registry);
  const gcPass = () => collector.pass();
  const nsPass = () => new NamespaceController(store, registry).pass();
  const crdPass = () => crds.pass();
  const jobs = new JobController(store, registry);
  // Deadlines and TTLs: the pass says when it is due again; one timer, the earliest.
  let jobTimer: NodeJS.Timeout | undefined;
  const jobPass = () => {
    const after = jobs.pass();
    if (jobTimer) clearTimeout(jobTimer);
    jobTimer = undefined;
    if (after !== undefined && auto) jobTimer = setTimeout(() => jobc.poke(), Math.max(after, 10));
  };
  const statefulSets = new StatefulSetController(store, registry);
  // minReadySeconds: the pass says when a pod becomes available; one timer, as for jobs.
  let stsTimer: NodeJS.Timeout | undefined;
  const stsPass = () => {
    const after = statefulSets.pass();
    if (stsTimer) clearTimeout(stsTimer);
    stsTimer = undefined;
    if (after !== undefined && auto) stsTimer = setTimeout(() => stsc.poke(), Math.max(after, 10));
  };
  const nodeLifecycle = new NodeLifecycleController(
    store,
    registry,
    opts.nodeMonitorGracePeriodMs ?? DefaultNodeMonitorGracePeriodMs,
  );
  // Grace periods: the pass says when the next one runs out; one timer, as for jobs.
  let nodeTimer: NodeJS.Timeout | undefined;
  const nodePass = () => {
    const after = nodeLifecycle.pass();
    if (nodeTimer) clearTimeout(nodeTimer);
    nodeTimer = undefined;
    if (after !== undefined && auto) nodeTimer = setTimeout(() => nodec.poke(), Math.max(after, 10));
  };
  const attachDetach = new AttachDetachController(store, registry);
  // Held detaches (a node that is not Ready): the pass says when the first is due.
  let attachTimer: NodeJS.Timeout | undefined;
  const attachPass = () => {
    const after = attachDetach.pass();
    if (attachTimer) clearTimeout(attachTimer);
    attachTimer = undefined;
    if (after !== undefined && auto) attachTimer = setTimeout(() => adc.poke(), Math.max(after, 10));
  };
  const onError = (what: string) => (err: unknown) => opts.logger?.error({ err }, `${what} pass failed`);
  const auto = opts.autoReconcile ?? true;
  // The GC looks only at what events since its last pass touched; passes at most every 25 ms.
  const gc = new PassScheduler(gcPass, onError("garbage collector"), 25);
  const nsc = new PassScheduler(nsPass, onError("namespace controller"));
  const crdc = new PassScheduler(crdPass, onError("CRD finalizer"));
  const jobc = new PassScheduler(jobPass, onError("job controller"));
  const stsc = new PassScheduler(stsPass, onError("statefulset controller"));
  const nodec = new PassScheduler(nodePass, onError("node lifecycle controller"));
  // Scans every pod that mounts a claim: at most every 25 ms, as the GC.
  const adc = new PassScheduler(attachPass, onError("attach/detach controller"), 25);
  objects.subscribe((e) => {
    crds.onEvent(e);
    const gcWork = collector.observe(e);
    // Noted whether passes run by themselves or by settle(): a pass reads only those pods.
    const podOnNotReadyNode = e.gr === "/pods" && nodeLifecycle.notePodChange(e.object);
    if (!auto) return;
    const m = e.object.metadata;
    if (gcWork) gc.poke();
    if (e.gr === NAMESPACES_GR || e.type === "DELETED") nsc.poke();
    if (e.gr === CRDS_GR || e.type === "DELETED") crdc.poke();
    if (e.gr === JOBS_GR || m.ownerReferences?.some((r) => r.kind === "Job")) jobc.poke();
    // A StatefulSet's pods and claims, its revisions, and orphans or freed names it may take
    // (not the pods of other controllers: a PetSet's pods change often and concern it only).
    if (
      e.gr === STATEFULSETS_GR ||
      e.gr === CONTROLLER_REVISIONS_GR ||
      (STATEFULSET_CHILDREN.has(e.gr) &&
        (e.type === "DELETED" ||
          !m.ownerReferences?.some((r) => r.controller) ||
          m.ownerReferences.some((r) => r.kind === "StatefulSet")))
    )
      stsc.poke();
    if (
      e.gr === NODES_GR ||
      (e.gr === LEASES_GR && m.namespace === NODE_LEASE_NAMESPACE) ||
      podOnNotReadyNode
    )
      nodec.poke();
    if (ATTACH_INPUTS.has(e.gr) || (e.gr === "/pods" && mountsClaim(e.object))) adc.poke();
  });
  const nsDef = registry.get("", "v1", "namespaces")!;
  for (const ns of SYSTEM_NAMESPACES)
    if (!store.peek(nsDef, undefined, ns))
      store.create(nsDef, undefined, { metadata: { name: ns } }, systemContext(opts.clock, "kube-apiserver"));
  // The test cluster's StorageClasses (test/cluster/manifests/storage.yaml), as its setup applies them.
  const scDef = registry.get("storage.k8s.io", "v1", "storageclasses")!;
  for (const sc of DEFAULT_STORAGE_CLASSES)
    if (!store.peek(scDef, undefined, sc.metadata.name!))
      store.create(scDef, undefined, deepClone(sc), systemContext(opts.clock, "kube-apiserver"));
  objects.beginWatchWindows();
  if (auto) for (const s of [gc, nsc, crdc, jobc, stsc, nodec, adc]) s.poke();
  // Event expiry sweeps a tenth of the TTL apart (at most a minute), so an Event outlives its
  // TTL by at most that much.
  const eventTtlMs = opts.eventTtlMs ?? DEFAULT_EVENT_TTL_MS;
  const eventSweep = auto
    ? setInterval(
        () => {
          try {
            sweepEvents(objects, opts.clock, eventTtlMs);
          } catch (err) {
            onError("event expiry")(err);
          }
        },
        Math.min(Math.max(eventTtlMs / 10, 1_000), 60_000),
      ).unref()
    : undefined;
  return {
    objects,
    registry,
    store,
    settle(maxPasses = 50) {
      for (let i = 0; i < maxPasses; i++) {
        const before = objects.currentRv();
        crdPass();
        nsPass();
        gcPass();
        jobs.pass();
        statefulSets.pass();
        nodeLifecycle.pass();
        attachDetach.pass();
        if (objects.currentRv() === before) return;
      }
    },
    stop() {
      for (const s of [gc, nsc, crdc, jobc, stsc, nodec, adc]) s.stop();
      if (attachTimer) clearTimeout(attachTimer);
      if (jobTimer) clearTimeout(jobTimer);
      if (nodeTimer) clearTimeout(nodeTimer);
      if (stsTimer) clearTimeout(stsTimer);
      if (eventSweep) clearInterval(eventSweep);
      objects.close();
    },
  };
}
