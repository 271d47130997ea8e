/**
 * The simulated kubelet: fake nodes plus stage-driven pod and claim lifecycles, as an
 * ordinary API client (client-node informers and writes), so it runs against the
 * embedded server or any cluster. Wiring only: informers fill a plain-JSON store, each
 * change wakes the StageRunner, which plans with the pure engine and writes through
 * KubeStageWriter.
 */

import {
  CoordinationV1Api,
  CoreV1Api,
  type KubeConfig,
  type KubernetesObject,
  makeInformer,
} from "@kubernetes/client-node";
import type { Logger } from "pino";
import { pooledKubeConfig } from "../../util/keep-alive.js";
import { allowPlainHttp } from "../../util/kubeconfig.js";
import { startClaimResizer } from "./claim-resizer.js";
import { systemTimerClock, type TimerClock } from "./clock.js";
import { isOwnVolume } from "./engine.js";
import { isLost } from "./lost-nodes.js";
import { NodeLeaseRenewer } from "./node-lease.js";
import { FakeNodeAnnotation, volumeNameFor } from "./node-status.js";
import { ClaimSchema, type KubeObject, objectKey } from "./objects.js";
import { ProcessRunner } from "./process-runner.js";
import { type ObjectSource, StageRunner } from "./runner.js";
import { loadDefaultStages, type StageConfig, type StageResource, withParams } from "./stages.js";
import {
  discoverCapabilities,
  KubeStageWriter,
  type ServerCapabilities,
  statusCode,
  toPlain,
} from "./writer.js";

export interface SimulatedKubeletOptions {
  kubeConfig: KubeConfig;
  logger: Logger;
  /** Stage delays and heartbeats; defaults to the system clock. */
  clock?: TimerClock;
  /** Defaults to stages/default.yaml. */
  stages?: StageConfig;
  /** Fake nodes `<nodePrefix>0..N-1` to create and play (default 3). */
  nodes?: number;
  nodePrefix?: string;
  /** Shorthand for params.readyDelayMs. */
  readyDelayMs?: number;
  /** Overrides of the stage params (see stages/default.yaml). */
  params?: Record<string, number>;
  /**
   * Run the containers of restartPolicy Never/OnFailure pods (Job pods) as local processes
   * (see process-runner.ts). Only for servers whose pod authors may run code on this
   * machine: `petset dev` and the embedded test backend. Default false.
   */
  runProcesses?: boolean;
  /**
   * Also play the CSI external-resizer and the kubelet's volume expansion for claims
   * (claim-resizer.ts); default true, with this delay (ms) before each resize step.
   */
  resizeClaims?: boolean | { stepDelayMs: number };
  /**
   * Duration of the node Leases the kubelet renews every quarter of it (kube's kubelet
   * --node-lease-duration-seconds, default 40). Keep it below the node lifecycle controller's
   * grace period, or healthy nodes flap to Unknown.
   */
  nodeLeaseDurationSeconds?: number;
  /**
   * Also play nodes others create with kwok's annotation `kwok.x-k8s.io/node: fake` (a test's
   * own node). Never where kwok runs (it plays them). Default false.
   */
  adoptFakeNodes?: boolean;
}

export interface SimulatedKubelet {
  /** Names of the nodes this kubelet plays. */
  readonly nodes: readonly string[];
  readonly capabilities: ServerCapabilities;
  /** Stops informers and timers; waits for writes in flight. Nodes are left in place. */
  stop(): Promise<void>;
}

interface Watched {
  resource: StageResource;
  path: string;
  list: () => Promise<{ items: KubernetesObject[]; metadata?: { resourceVersion?: string } }>;
}

/** The kubelet's client config: plain-HTTP clusters allowed (see src/util/kubeconfig.ts). */
export const clientConfigFor = allowPlainHttp;

/** Starts the kubelet; resolves once the nodes exist and the caches have synced. */
export async function startSimulatedKubelet(o: SimulatedKubeletOptions): Promise<SimulatedKubelet> {
  const logger = o.logger.child({ component: "simulated-kubelet" });
  const config = withParams(o.stages ?? loadDefaultStages(), { ...o.params, readyDelayMs: o.readyDelayMs });
  // Pooled keep-alive connections: the kubelet writes every pod's status, several times each.
  const kubeConfig = pooledKubeConfig(clientConfigFor(o.kubeConfig));
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const capabilities = await discoverCapabilities(core);
  const prefix = o.nodePrefix ?? "petset-node-";
  const nodes = Array.from({ length: o.nodes ?? 3 }, (_, i) => `${prefix}${i}`);
  await Promise.all(nodes.map((name, i) => ensureNode(core, name, i)));

  const store = new Map<StageResource, Map<string, KubeObject>>();
  const source: ObjectSource = {
    get: (resource, key) => store.get(resource)?.get(key),
    list: (resource) => [...(store.get(resource)?.values() ?? [])],
  };
  // Node status and Lease heartbeats on connections of their own (kubelet's HeartbeatClient),
  // never queued behind pod writes (writer.ts).
  const heartbeatConfig = pooledKubeConfig(clientConfigFor(o.kubeConfig));
  const writer = new KubeStageWriter(core, capabilities, logger, heartbeatConfig.makeApiClient(CoreV1Api));
  const clock = o.clock ?? systemTimerClock;
  const runner = new StageRunner({
    config,
    clock,
    source,
    writer,
    managedNodes: nodes,
    logger,
    ...(o.adoptFakeNodes ? { adoptFakeNodes: true } : {}),
  });
  const processes = o.runProcesses
    ? new ProcessRunner({ core, logger, clock, managedNodes: nodes })
    : undefined;

  const watched: Watched[] = [
    { resource: "nodes", path: "/api/v1/nodes", list: () => core.listNode() },
    { resource: "pods", path: "/api/v1/pods", list: () => core.listPodForAllNamespaces() },
  ];
  if (capabilities.persistentVolumeClaims) {
    watched.push({
      resource: "persistentvolumeclaims",
      path: "/api/v1/persistentvolumeclaims",
      list: () => core.listPersistentVolumeClaimForAllNamespaces(),
    });
  }

  let stopped = false;
  const restarts = new Set<ReturnType<typeof setTimeout>>();
  const informers = watched.map(({ resource, path, list }) => {
    const objects = new Map<string, KubeObject>();
    store.set(resource, objects);
    const informer = makeInformer(kubeConfig, path, list);
    const upsert = (raw: KubernetesObject) => {
      const obj = toPlain(raw);
      objects.set(objectKey(obj.metadata), obj);
      runner.observe(resource, obj);
      if (resource === "pods") processes?.observe(obj);
    };
    informer.on("add", upsert);
    informer.on("update", upsert);
    informer.on("delete", (raw) => {
      const obj = toPlain(raw);
      objects.delete(objectKey(obj.metadata));
      runner.forget(resource, obj);
      if (resource === "pods") processes?.forget(obj);
      if (resource === "persistentvolumeclaims" && capabilities.volumes)
        void deleteOwnVolume(core, obj, logger);
    });
    informer.on("error", (err: unknown) => {
      if (stopped) return;
      logger.warn({ err, resource }, "simulated kubelet: watch failed, restarting in 1s");
      const t = setTimeout(() => {
        restarts.delete(t);
        if (!stopped) informer.start().catch(() => undefined); // a failure emits "error" again
      }, 1000);
      restarts.add(t);
    });
    return informer;
  });
  await Promise.all(informers.map((i) => i.start()));
  const resizer =
    o.resizeClaims !== false && capabilities.persistentVolumeClaims && capabilities.volumes
      ? await startClaimResizer({
          kubeConfig: o.kubeConfig,
          logger: o.logger,
          clock,
          ...(typeof o.resizeClaims === "object" ? { stepDelayMs: o.resizeClaims.stepDelayMs } : {}),
        })
      : undefined;
  const nodeOf = (name: string) => store.get("nodes")?.get(name);
  const leases = new NodeLeaseRenewer({
    api: heartbeatConfig.makeApiClient(CoordinationV1Api),
    clock,
    logger,
    nodes: () => runner.managedNodes(),
    isLost: (name) => isLost(nodeOf(name)?.metadata.labels),
    uidOf: (name) => nodeOf(name)?.metadata.uid,
    ...(o.nodeLeaseDurationSeconds ? { durationSeconds: o.nodeLeaseDurationSeconds } : {}),
  });
  leases.start();
  logger.info({ nodes, capabilities, params: config.params }, "simulated kubelet started");

  return {
    nodes,
    capabilities,
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const t of restarts) clearTimeout(t);
      await Promise.all(informers.map((i) => i.stop()));
      await resizer?.stop();
      await leases.stop();
      processes?.stop();
      await runner.stop();
      kubeConfig.closeConnections();
      heartbeatConfig.closeConnections();
    },
  };
}

/** Creates the node, or adopts it when it exists (e.g. a restart with --data-dir). */
async function ensureNode(core: CoreV1Api, name: string, index: number): Promise<void> {
  const labels = {
    "kubernetes.io/hostname": name,
    "kubernetes.io/os": "linux",
    "kubernetes.io/arch": "amd64",
    type: "kwok",
  };
  const podCIDR = `10.244.${index}.0/24`;
  try {
    await core.createNode({
      body: {
        apiVersion: "v1",
        kind: "Node",
        metadata: { name, labels, annotations: { [FakeNodeAnnotation]: "fake" } },
        spec: { podCIDR, podCIDRs: [podCIDR] },
      },
    });
  } catch (err) {
    if (statusCode(err) !== 409) throw err;
  }
}

/** Reclaim policy Delete for the volumes claim-bind created (named `pvc-<uid>`). */
async function deleteOwnVolume(core: CoreV1Api, obj: KubeObject, logger: Logger): Promise<void> {
  const claim = ClaimSchema.safeParse(obj).data;
  if (!claim?.spec?.volumeName || claim.spec.volumeName !== volumeNameFor(claim)) return;
  try {
    const pv = await core.readPersistentVolume({ name: claim.spec.volumeName });
    if (!isOwnVolume(pv.metadata?.annotations)) return;
    await core.deletePersistentVolume({ name: claim.spec.volumeName });
  } catch (err) {
    if (statusCode(err) !== 404)
      logger.warn({ err, volume: claim.spec.volumeName }, "simulated kubelet: volume not deleted");
  }
}
