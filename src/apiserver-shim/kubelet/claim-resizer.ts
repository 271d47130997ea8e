/**
 * The simulated CSI external-resizer and kubelet volume expansion, as an ordinary API client
 * (a client-node informer on claims and merge-patch writes), so the same code runs next to the
 * embedded server (started with the simulated kubelet) and on the test cluster (a process
 * started by test/cluster/up.sh, see claim-resizer-main.ts). Wiring only: what to write is
 * decided by the pure nextResizeStep (claim-resize.ts) on the claim as last seen.
 *
 * Each step is written `stepDelayMs` after the claim reached its current state, so every
 * intermediate state is visible to watchers. A claim status write carries the resourceVersion
 * it was planned from (a conflict means a newer claim, which plans again).
 */
import {
  ApiException,
  CoreV1Api,
  type KubeConfig,
  type KubernetesObject,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
} from "@kubernetes/client-node";
import type { Logger } from "pino";
import { pooledKubeConfig } from "../../util/keep-alive.js";
import { allowPlainHttp } from "../../util/kubeconfig.js";
import { nextResizeStep } from "./claim-resize.js";
import { systemTimerClock, type TimerClock } from "./clock.js";

// Local (not writer.js): the resizer process of the test cluster compiles only what it imports.
const toPlain = (o: unknown): Record<string, unknown> =>
  JSON.parse(JSON.stringify(o)) as Record<string, unknown>;
const statusCode = (err: unknown): number | undefined => (err instanceof ApiException ? err.code : undefined);

export interface ClaimResizerOptions {
  kubeConfig: KubeConfig;
  logger: Logger;
  /** Delay before each step (default 200 ms). */
  stepDelayMs?: number;
  clock?: TimerClock;
}

export interface ClaimResizer {
  stop(): Promise<void>;
}

const mergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

interface Meta {
  name: string;
  namespace: string;
  resourceVersion: string;
}

function metaOf(claim: Record<string, unknown>): Meta | undefined {
  const m = claim.metadata as Partial<Meta> | undefined;
  if (!m?.name || !m.namespace || !m.resourceVersion) return undefined;
  return { name: m.name, namespace: m.namespace, resourceVersion: m.resourceVersion };
}

const obj = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === "object" ? (v as Record<string, unknown>) : {};

/** The Event the external-resizer or kubelet records for a step (kube's reasons), if any. */
function resizeEvent(
  kind: string,
  volume: string,
): { type: string; reason: string; message: string } | undefined {
  switch (kind) {
    case "controller-start":
      return { type: "Normal", reason: "Resizing", message: `External resizer is resizing volume ${volume}` };
    case "controller-fail":
    case "node-fail":
      return {
        type: "Warning",
        reason: "VolumeResizeFailed",
        message: `resize volume "${volume}" failed (simulated)`,
      };
    case "node-finish":
      return {
        type: "Normal",
        reason: "FileSystemResizeSuccessful",
        message: `MountVolume.NodeExpandVolume succeeded for volume "${volume}"`,
      };
    default:
      return undefined;
  }
}

async function recordEvent(
  core: CoreV1Api,
  claim: Record<string, unknown>,
  e: { type: string; reason: string; message: string },
  now: Date,
): Promise<void> {
  const m = obj(claim.metadata);
  const namespace = String(m.namespace ?? "");
  const name = String(m.name ?? "");
  await core.createNamespacedEvent({
    namespace,
    body: {
      metadata: { generateName: `${name}.`, namespace },
      involvedObject: {
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        name,
        namespace,
        uid: String(m.uid ?? ""),
        resourceVersion: String(m.resourceVersion ?? ""),
      },
      type: e.type,
      reason: e.reason,
      message: e.message,
      source: { component: "simulated-resizer" },
      reportingComponent: "simulated-resizer",
      reportingInstance: "",
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    },
  });
}

/** Starts the resizer; resolves once its claim cache has synced. */
export async function startClaimResizer(o: ClaimResizerOptions): Promise<ClaimResizer> {
  const logger = o.logger.child({ component: "simulated-resizer" });
  const clock = o.clock ?? systemTimerClock;
  const delayMs = o.stepDelayMs ?? 200;
  const kubeConfig = pooledKubeConfig(allowPlainHttp(o.kubeConfig));
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const claims = new Map<string, Record<string, unknown>>();
  /** Per claim: the resourceVersion a step is scheduled for, and how to cancel it. */
  const timers = new Map<string, { rv: string; cancel: () => void }>();
  const inFlight = new Set<Promise<void>>();
  let stopped = false;

  const perform = async (key: string): Promise<void> => {
    const claim = claims.get(key);
    const meta = claim && metaOf(claim);
    const step = claim && nextResizeStep(claim, new Date(clock.now()));
    if (!meta || !step) return;
    try {
      if (step.volume)
        await core
          .patchPersistentVolume(
            { name: step.volume.name, body: { spec: { capacity: { storage: step.volume.capacity } } } },
            mergePatch,
          )
          .catch((err: unknown) => {
            if (statusCode(err) !== 404) throw err;
          });
      await core.patchNamespacedPersistentVolumeClaimStatus(
        {
          name: meta.name,
          namespace: meta.namespace,
          body: { metadata: { resourceVersion: meta.resourceVersion }, status: step.status },
        },
        mergePatch,
      );
      logger.debug({ claim: key, step: step.kind }, "claim resize step written");
      const event = resizeEvent(step.kind, step.volume?.name ?? String(obj(claim.spec).volumeName ?? ""));
      if (event) await recordEvent(core, claim, event, new Date(clock.now())).catch(() => undefined);
    } catch (err) {
      const code = statusCode(err);
      if (code === 409 || code === 404) return; // a newer claim (or none) plans again
      logger.warn({ err, claim: key, step: step.kind }, "claim resize step failed; retrying");
      if (!stopped) schedule(key, true);
    }
  };

  const schedule = (key: string, retry = false): void => {
    const claim = claims.get(key);
    const meta = claim && metaOf(claim);
    const pending = timers.get(key);
    if (!meta || !nextResizeStep(claim, new Date(clock.now()))) {
      pending?.cancel();
      timers.delete(key);
      return;
    }
    if (pending && pending.rv === meta.resourceVersion && !retry) return;
    pending?.cancel();
    const cancel = clock.setTimer(delayMs, () => {
      timers.delete(key);
      const p = perform(key).finally(() => inFlight.delete(p));
      inFlight.add(p);
    });
    timers.set(key, { rv: meta.resourceVersion, cancel });
  };

  const informer = makeInformer(kubeConfig, "/api/v1/persistentvolumeclaims", () =>
    core.listPersistentVolumeClaimForAllNamespaces(),
  );
  const keyOf = (c: Record<string, unknown>) => {
    const m = c.metadata as { namespace?: string; name?: string } | undefined;
    return `${m?.namespace ?? ""}/${m?.name ?? ""}`;
  };
  const upsert = (raw: KubernetesObject) => {
    const c = toPlain(raw);
    claims.set(keyOf(c), c);
    schedule(keyOf(c));
  };
  informer.on("add", upsert);
  informer.on("update", upsert);
  informer.on("delete", (raw) => {
    const key = keyOf(toPlain(raw));
    claims.delete(key);
    timers.get(key)?.cancel();
    timers.delete(key);
  });
  let restart: (() => void) | undefined;
  informer.on("error", (err: unknown) => {
    if (stopped) return;
    logger.warn({ err }, "simulated resizer: watch failed, restarting in 1s");
    restart = clock.setTimer(1000, () => {
      if (!stopped) informer.start().catch(() => undefined); // a failure emits "error" again
    });
  });
  await informer.start();
  logger.info({ stepDelayMs: delayMs }, "simulated resizer started");
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      restart?.();
      for (const t of timers.values()) t.cancel();
      timers.clear();
      await informer.stop();
      await Promise.all(inFlight);
      kubeConfig.closeConnections();
    },
  };
}
