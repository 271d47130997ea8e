/**
 * Simulated node loss (issue 27), the same code on both backends: the label
 * `kubelet.petset.dev/lost=true` loses a node, removing it brings the node back.
 * - embedded: the simulated kubelet stops the node's heartbeats and freezes its pods; the
 *   embedded node lifecycle controller marks it (grace period 4 s for this file);
 * - real: kwok releases the node (--manage-nodes-with-label-selector) and
 *   kube-controller-manager's nodelifecycle marks it (grace NODE_MONITOR_GRACE_SECONDS_REAL).
 * Its claim's volume is attached with a VolumeAttachment on both (embedded: the embedded
 * attach/detach controller; real: kube-controller-manager's attachdetach with the CSI driver of
 * test/cluster/manifests/csi.yaml, played by kwok). What differs: after the force delete the
 * lost node's attachment stays on embedded, and is detached at once on kube-apiserver+kwok.
 * The test creates its own node (kwok's annotation; a taint only its pod tolerates), so losing
 * it touches no other test's pods on the shared real cluster.
 */
import {
  CoreV1Api,
  PatchStrategy,
  StorageV1Api,
  setHeaderOptions,
  type V1Node,
  type V1Pod,
  type V1VolumeAttachment,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  eventually,
  NODE_MONITOR_GRACE_SECONDS_REAL,
  startTestCluster,
  type TestCluster,
} from "../support/cluster.js";

const mergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
const EMBEDDED_GRACE_SECONDS = 4;
const LOST = "kubelet.petset.dev/lost";
const UNREACHABLE = "node.kubernetes.io/unreachable";
const TEST_TAINT = { key: "petset.dev/test", value: "node-loss", effect: "NoSchedule" };

let cluster: TestCluster;
let core: CoreV1Api;
let storage: StorageV1Api;
let ns: string;
let graceMs: number;
const node = `petset-loss-${Math.random().toString(36).slice(2, 7)}`;

beforeAll(async () => {
  cluster = await startTestCluster(undefined, { nodeMonitorGraceSeconds: EMBEDDED_GRACE_SECONDS });
  graceMs =
    (cluster.backend === "embedded" ? EMBEDDED_GRACE_SECONDS : NODE_MONITOR_GRACE_SECONDS_REAL) * 1000;
  core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  storage = cluster.kubeConfig.makeApiClient(StorageV1Api);
  ns = await cluster.namespace("node-loss");
  await core.createNode({
    body: {
      metadata: {
        name: node,
        annotations: {
          "kwok.x-k8s.io/node": "fake",
          "volumes.kubernetes.io/controller-managed-attach-detach": "true",
        },
        labels: { type: "kwok", "kubernetes.io/hostname": node, "kubernetes.io/os": "linux" },
      },
      spec: { taints: [TEST_TAINT] },
    },
  });
});

afterAll(async () => {
  await core?.deleteNode({ name: node }).catch(() => undefined);
  await cluster?.stop();
});

const readyOf = (n: V1Node) => n.status?.conditions?.find((c) => c.type === "Ready")?.status;
const podReady = (p: V1Pod) => p.status?.conditions?.find((c) => c.type === "Ready")?.status;
const taintsOf = (n: V1Node) => (n.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort();

/** The label on (the node is lost) or off (it is back), by merge patch. */
async function attachmentsOf(volume: string): Promise<V1VolumeAttachment[]> {
  const list = await storage.listVolumeAttachment();
  return list.items.filter((a) => a.spec.source.persistentVolumeName === volume);
}

async function setLost(lost: boolean): Promise<void> {
  const body = { metadata: { labels: { [LOST]: lost ? "true" : null } } };
  await core.patchNode({ name: node, body }, mergePatch);
}

describe("simulated node loss", () => {
  it("issue 27: a lost node is Ready=Unknown with the unreachable taints within its grace period; its pod stays until force-deleted; its claim's VolumeAttachment; back, it is Ready", async () => {
    await eventually(`node ${node} Ready`, async () =>
      readyOf(await core.readNode({ name: node })) === "True" ? true : undefined,
    );
    // A pet's claim: StorageClass csi (CSI volumes on kube-apiserver; any class binds on embedded).
    await core.createNamespacedPersistentVolumeClaim({
      namespace: ns,
      body: {
        metadata: { name: "data-pet-0" },
        spec: {
          storageClassName: "csi",
          accessModes: ["ReadWriteOnce"],
          resources: { requests: { storage: "1Gi" } },
        },
      },
    });
    await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: "pet-0" },
        spec: {
          nodeSelector: { "kubernetes.io/hostname": node },
          tolerations: [{ ...TEST_TAINT, operator: "Equal" }],
          terminationGracePeriodSeconds: 30,
          containers: [{ name: "app", image: "nginx:1.27" }],
          volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data-pet-0" } }],
        },
      },
    });
    await eventually("pet-0 Ready", async () =>
      podReady(await core.readNamespacedPod({ name: "pet-0", namespace: ns })) === "True" ? true : undefined,
    );
    const volume = await eventually("data-pet-0 bound", async () => {
      const c = await core.readNamespacedPersistentVolumeClaim({ name: "data-pet-0", namespace: ns });
      return c.status?.phase === "Bound" ? c.spec?.volumeName : undefined;
    });
    const attachment = await eventually(`an attached VolumeAttachment of ${volume} on ${node}`, async () =>
      (await attachmentsOf(volume)).find((a) => a.spec.nodeName === node && a.status?.attached),
    );

    const lostAt = Date.now();
    await setLost(true);
    const lost = await eventually(
      `node ${node} Ready=Unknown`,
      async () => {
        const n = await core.readNode({ name: node });
        return readyOf(n) === "Unknown" && taintsOf(n).includes(`${UNREACHABLE}:NoExecute`) ? n : undefined;
      },
      graceMs + 30_000,
    );
    const tookMs = Date.now() - lostAt;
    expect(tookMs).toBeGreaterThanOrEqual(graceMs - 1_000);
    expect(taintsOf(lost)).toEqual(
      [
        `${TEST_TAINT.key}:${TEST_TAINT.effect}`,
        `${UNREACHABLE}:NoExecute`,
        `${UNREACHABLE}:NoSchedule`,
      ].sort(),
    );
    // Its pod stays (nobody may assume it stopped), marked not Ready by the node lifecycle controller.
    const pod = await eventually("pet-0 Ready=False", async () => {
      const p = await core.readNamespacedPod({ name: "pet-0", namespace: ns });
      return podReady(p) === "False" ? p : undefined;
    });
    expect(pod.metadata?.deletionTimestamp).toBeUndefined();
    expect(pod.spec?.nodeName).toBe(node);

    // A graceful delete is never confirmed by the lost node's kubelet; a force delete needs none.
    await core.deleteNamespacedPod({ name: "pet-0", namespace: ns, gracePeriodSeconds: 30 });
    const terminating = await core.readNamespacedPod({ name: "pet-0", namespace: ns });
    expect(terminating.metadata?.deletionTimestamp).toBeDefined();
    await core.deleteNamespacedPod({ name: "pet-0", namespace: ns, gracePeriodSeconds: 0 });
    await eventually("pet-0 gone", async () =>
      (await core.listNamespacedPod({ namespace: ns })).items.length === 0 ? true : undefined,
    );
    if (cluster.backend === "embedded") {
      // Nothing confirms the unmount on a lost node: its attachment stays until deleted (or
      // out-of-service, or kube's 6 min force detach). kwok reports no volumesInUse, so
      // kube-controller-manager detaches at once there (docs/failover.md, "Simulated node loss").
      expect((await attachmentsOf(volume)).map((a) => a.metadata?.name)).toEqual([attachment.metadata?.name]);
    }

    await setLost(false);
    const back = await eventually(
      `node ${node} Ready again`,
      async () => {
        const n = await core.readNode({ name: node });
        return readyOf(n) === "True" && !taintsOf(n).some((t) => t.startsWith(UNREACHABLE)) ? n : undefined;
      },
      60_000,
    );
    expect(taintsOf(back)).toEqual([`${TEST_TAINT.key}:${TEST_TAINT.effect}`]);
    // A live node with no pod using the volume: detached.
    await eventually(`${volume} detached`, async () =>
      (await attachmentsOf(volume)).length === 0 ? true : undefined,
    );
  });
});
