/**
 * The simulated kubelet against the embedded API server: real HTTP, real watches. Every
 * assertion waits on a watch event with a deadline; nothing sleeps in place of a condition.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CoreV1Api,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Node,
  type V1PersistentVolume,
  type V1PersistentVolumeClaim,
  type V1Pod,
  Watch,
} from "@kubernetes/client-node";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiServer, startApiServer } from "../../src/apiserver-shim/index.js";
import {
  clientConfigFor,
  type SimulatedKubelet,
  startSimulatedKubelet,
} from "../../src/apiserver-shim/kubelet/kubelet.js";

// PETSET_KUBELET_KUBECONFIG: run against that cluster instead of the embedded server. It
// must be a bare API server (no scheduler, no kubelet or kwok, no controller-manager): this
// is how the simulated kubelet is checked against kube-apiserver itself.
const externalKubeconfig = process.env.PETSET_KUBELET_KUBECONFIG;

const params = {
  startDelayMs: 50,
  readyDelayMs: 200,
  slowDelayMs: 1_500,
  restartPeriodMs: 300,
  deleteDelayMs: 50,
};
const DEADLINE_MS = 15_000;
const mergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

type Check<T> = (obj: T) => boolean;
type PodCheck = Check<V1Pod>;
type Named = { metadata?: { name?: string } };

/** One watch on a collection; `until` resolves on the first event that passes a check. */
class ObjectWatch<T extends Named> {
  readonly history = new Map<string, T[]>();
  private readonly waiters: { name: string; check: Check<T>; deleted: boolean; resolve: (o: T) => void }[] =
    [];
  private req: { abort(): void } | undefined;

  constructor(private readonly path: string) {}

  async start(kc: KubeConfig): Promise<void> {
    this.req = await new Watch(kc).watch(
      this.path,
      {},
      (type: string, obj: T) => {
        const name = obj.metadata?.name ?? "";
        this.history.set(name, [...(this.history.get(name) ?? []), obj]);
        for (const w of [...this.waiters]) {
          if (w.name === name && (w.deleted ? type === "DELETED" : w.check(obj))) {
            this.waiters.splice(this.waiters.indexOf(w), 1);
            w.resolve(obj);
          }
        }
      },
      () => {},
    );
  }

  /** Resolves with the first version of `name` (seen before or after the call) passing `check`. */
  until(name: string, what: string, check: Check<T>, deleted = false): Promise<T> {
    const seen = deleted ? undefined : this.history.get(name)?.find((o) => check(o));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${name}: no ${what} within ${DEADLINE_MS}ms`)),
        DEADLINE_MS,
      );
      this.waiters.push({
        name,
        check,
        deleted,
        resolve: (o) => {
          clearTimeout(timer);
          resolve(o);
        },
      });
    });
  }

  stop(): void {
    this.req?.abort();
  }
}

const ready: PodCheck = (p) =>
  p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
const running: PodCheck = (p) => p.status?.phase === "Running";
const restarts = (p: V1Pod, n: number) => (p.status?.containerStatuses?.[0]?.restartCount ?? 0) >= n;

function podBody(name: string, image: string): V1Pod {
  return { metadata: { name }, spec: { containers: [{ name: "app", image }] } };
}

const suiteName = externalKubeconfig
  ? `simulated kubelet on ${externalKubeconfig}`
  : "simulated kubelet on the embedded API server";

describe(suiteName, () => {
  let server: ApiServer | undefined;
  let kubelet: SimulatedKubelet;
  let core: CoreV1Api;
  const namespace = `kubelet-${Math.random().toString(36).slice(2, 8)}`;
  const watch = new ObjectWatch<V1Pod>(`/api/v1/namespaces/${namespace}/pods`);
  const nodeWatch = new ObjectWatch<V1Node>("/api/v1/nodes");
  const volumeWatch = new ObjectWatch<V1PersistentVolume>("/api/v1/persistentvolumes");
  const claimWatch = new ObjectWatch<V1PersistentVolumeClaim>(
    `/api/v1/namespaces/${namespace}/persistentvolumeclaims`,
  );
  const dir = mkdtempSync(join(tmpdir(), "petset-kubelet-"));

  beforeAll(async () => {
    const logger = pino({ level: process.env.PETSET_TEST_LOG ?? "warn" });
    const file = new KubeConfig();
    if (externalKubeconfig) {
      file.loadFromFile(externalKubeconfig);
    } else {
      server = await startApiServer({ host: "127.0.0.1", port: 0, logger });
      await server.writeKubeconfig(join(dir, "kubeconfig"));
      file.loadFromFile(join(dir, "kubeconfig"));
    }
    const kc = clientConfigFor(file);
    core = kc.makeApiClient(CoreV1Api);
    await nodeWatch.start(kc);
    kubelet = await startSimulatedKubelet({ kubeConfig: kc, logger, nodes: 3, params });
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    await watch.start(kc);
    await claimWatch.start(kc);
    await volumeWatch.start(kc);
  });

  afterAll(async () => {
    for (const w of [watch, nodeWatch, claimWatch, volumeWatch]) w.stop();
    await kubelet?.stop();
    if (externalKubeconfig) await core?.deleteNamespace({ name: namespace }).catch(() => undefined);
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("creates the fake nodes and makes them Ready", async () => {
    expect(kubelet.nodes).toEqual(["petset-node-0", "petset-node-1", "petset-node-2"]);
    const nodeReady: Check<V1Node> = (n) =>
      n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
    for (const name of kubelet.nodes) {
      const node = await nodeWatch.until(name, "Ready", nodeReady);
      expect(node.status?.capacity).toMatchObject({ pods: "110" });
    }
  });

  it("normal image: scheduled, Running, then Ready", async () => {
    await core.createNamespacedPod({ namespace, body: podBody("normal", "nginx:1.27") });
    const first = await watch.until("normal", "Running", running);
    expect(ready(first)).toBe(false);
    const p = await watch.until("normal", "Ready", ready);
    expect(kubelet.nodes).toContain(p.spec?.nodeName);
    expect(p.status?.podIP).toMatch(/^10\.244\.\d+\.\d+$/);
    expect(p.status?.containerStatuses?.[0]).toMatchObject({
      name: "app",
      image: "nginx:1.27",
      ready: true,
    });
  });

  it("broken image: CrashLoopBackOff with growing restartCount, never Ready", async () => {
    await core.createNamespacedPod({ namespace, body: podBody("broken", "nginx:broken") });
    const p = await watch.until("broken", "third restart", (x) => restarts(x, 3));
    expect(p.status?.containerStatuses?.[0]?.state?.waiting).toMatchObject({
      reason: "CrashLoopBackOff",
      message: expect.stringContaining("nginx:broken"),
    });
    expect(watch.history.get("broken")?.some(ready)).toBe(false);
  });

  it("slow image: Ready only after slowDelayMs", async () => {
    await core.createNamespacedPod({ namespace, body: podBody("slow", "nginx:slow") });
    await watch.until("slow", "Running", running);
    const runningAt = Date.now();
    await watch.until("slow", "Ready", ready);
    expect(Date.now() - runningAt).toBeGreaterThanOrEqual(params.slowDelayMs - 100);
  });

  it("in-place image change: the container restarts, then is Ready again", async () => {
    await core.createNamespacedPod({ namespace, body: podBody("inplace", "nginx:1.27") });
    await watch.until("inplace", "Ready", ready);
    await core.patchNamespacedPod(
      {
        name: "inplace",
        namespace,
        body: { spec: { containers: [{ name: "app", image: "nginx:1.28" }] } },
      },
      setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch),
    );
    const restarted = await watch.until("inplace", "restart", (x) => restarts(x, 1));
    expect(restarted.status?.containerStatuses?.[0]).toMatchObject({ image: "nginx:1.28", ready: false });
    await watch.until("inplace", "Ready after restart", (x) => ready(x) && restarts(x, 1));
  });

  it("graceful deletion: the pod goes away", async () => {
    await core.createNamespacedPod({ namespace, body: podBody("doomed", "nginx:1.27") });
    await watch.until("doomed", "Ready", ready);
    await core.deleteNamespacedPod({ name: "doomed", namespace });
    await watch.until("doomed", "deletion", () => true, true);
  });

  it("claim: Pending -> Bound with a volume", async () => {
    await core.createNamespacedPersistentVolumeClaim({
      namespace,
      body: {
        metadata: { name: "data" },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
      },
    });
    const claim = await claimWatch.until("data", "Bound", (c) => c.status?.phase === "Bound");
    expect(claim.spec?.volumeName).toBe(`pvc-${claim.metadata?.uid}`);
    const volume = await volumeWatch.until(
      claim.spec!.volumeName!,
      "Bound",
      (v) => v.status?.phase === "Bound",
    );
    expect(volume.spec?.claimRef).toMatchObject({ name: "data", namespace, uid: claim.metadata?.uid });
  });

  // kube-apiserver adds the pvc-protection finalizer, which only kube-controller-manager
  // removes: on a bare kube-apiserver the claim would never go.
  it.skipIf(externalKubeconfig !== undefined)(
    "claim deleted: its volume is deleted (reclaim Delete)",
    async () => {
      const claim = await core.readNamespacedPersistentVolumeClaim({ name: "data", namespace });
      await core.deleteNamespacedPersistentVolumeClaim({ name: "data", namespace });
      await volumeWatch.until(claim.spec!.volumeName!, "deletion", () => true, true);
    },
  );

  it("keeps working after an update it did not make (merge patch of labels)", async () => {
    await core.patchNamespacedPod(
      { name: "normal", namespace, body: { metadata: { labels: { touched: "yes" } } } },
      mergePatch,
    );
    const p = await watch.until("normal", "label", (x) => x.metadata?.labels?.touched === "yes");
    expect(ready(p)).toBe(true);
  });
});
