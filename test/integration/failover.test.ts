/**
 * Lost nodes: fence, then move (issue 27, SPEC rule 13, docs/failover.md), the same code on both
 * backends. One PetSet of one pet with a claim, spec.nodeFailure Fence with an `external` fence
 * answered with `kubectl petset hook ack|fail`, on two nodes of its own (kwok's annotation, a
 * taint only its pods tolerate), lost with the label kubelet.petset.dev/lost=true (the
 * simulation: node-loss-sim.test.ts).
 *  1. Its node lost: the fence runs; until it is acked the pod is neither deleted nor doubled;
 *     acked: the pod is force-deleted, its attachment on the lost node removed, and the pet is
 *     Ready on the other node.
 *  2. That node lost: the fence fails (hook fail): the pet stays, PetsOnLostNodes says
 *     FenceFailed; the node comes back before any fence succeeded: the pet is left alone.
 */
import {
  CoreV1Api,
  PatchStrategy,
  StorageV1Api,
  setHeaderOptions,
  type V1Pod,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PetsOnLostNodesCondition } from "../../src/api/index.js";
import { eventually, NODE_MONITOR_GRACE_SECONDS_REAL, startTestCluster } from "../support/cluster.js";
import { startController } from "../support/controller.js";
import { hookRecords, runPlugin } from "./hooks-support.js";
import { createPetSet, getPetSet, petSetManifest, type RolloutEnv } from "./rollout-support.js";

const mergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
const EMBEDDED_GRACE_SECONDS = 4;
const LOST = "kubelet.petset.dev/lost";
const suffix = Math.random().toString(36).slice(2, 7);
const TEST_TAINT = { key: "petset.dev/test", value: `failover-${suffix}`, effect: "NoSchedule" };
const GROUP_LABEL = "petset.dev/failover-test";
const nodes = [`petset-fo-a-${suffix}`, `petset-fo-b-${suffix}`];
const NAME = "db";

let env: RolloutEnv;
let core: CoreV1Api;
let waitMs: number;

beforeAll(async () => {
  const cluster = await startTestCluster(undefined, { nodeMonitorGraceSeconds: EMBEDDED_GRACE_SECONDS });
  const grace = cluster.backend === "embedded" ? EMBEDDED_GRACE_SECONDS : NODE_MONITOR_GRACE_SECONDS_REAL;
  waitMs = (grace + 40) * 1000;
  core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  const namespace = await cluster.namespace("failover");
  for (const name of nodes) {
    await core.createNode({
      body: {
        metadata: {
          name,
          annotations: {
            "kwok.x-k8s.io/node": "fake",
            "volumes.kubernetes.io/controller-managed-attach-detach": "true",
          },
          labels: {
            type: "kwok",
            "kubernetes.io/hostname": name,
            "kubernetes.io/os": "linux",
            [GROUP_LABEL]: suffix,
          },
        },
        spec: { taints: [TEST_TAINT] },
      },
    });
  }
  const controller = await startController(cluster, namespace);
  env = {
    cluster,
    namespace,
    core,
    custom: undefined as never,
    controller,
    async stop() {
      await controller.stop();
      await cluster.stop();
    },
  };
  const { CustomObjectsApi } = await import("@kubernetes/client-node");
  env.custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
});

afterAll(async () => {
  for (const name of nodes) await core?.deleteNode({ name }).catch(() => undefined);
  await env?.stop();
});

const setLost = (node: string, lost: boolean) =>
  core.patchNode(
    { name: node, body: { metadata: { labels: { [LOST]: lost ? "true" : null } } } },
    mergePatch,
  );
const readyOf = (p: V1Pod) => p.status?.conditions?.find((c) => c.type === "Ready")?.status;
const pods = async () => (await core.listNamespacedPod({ namespace: env.namespace })).items;
const lostCondition = async () =>
  (await getPetSet(env, NAME)).status?.conditions.find((c) => c.type === PetsOnLostNodesCondition);

/** The fence record of `pod` (uid) waiting for an answer. */
async function runningFence(pod: V1Pod) {
  return eventually(
    `a fence running for ${pod.metadata?.name} on ${pod.spec?.nodeName}`,
    async () =>
      (await hookRecords(env, NAME)).find(
        (r) => r.hook === "fence" && r.podUID === pod.metadata?.uid && r.phase === "Running",
      ),
    waitMs,
  );
}

/** Answers the fence `id` with the plugin once the controller has written its request. */
async function answer(verb: "ack" | "fail", id: string) {
  const args =
    verb === "ack" ? ["hook", "ack", NAME, id] : ["hook", "fail", NAME, id, "--message", "BMC unreachable"];
  await eventually(`hook ${verb} ${id}`, async () =>
    (await runPlugin(env, args, true)).code === 0 ? true : undefined,
  );
}

async function readyPet(notUid?: string): Promise<V1Pod> {
  return eventually(
    "db-0 Ready",
    async () =>
      (await pods()).find(
        (p) => p.metadata?.name === "db-0" && readyOf(p) === "True" && p.metadata?.uid !== notUid,
      ),
    waitMs,
  );
}

describe("failover: fence, then move", () => {
  it("issue 27: a lost node's pet moves only after its fence succeeded; a failed fence and a node back leave it alone", async () => {
    const manifest = petSetManifest(NAME, {
      replicas: 1,
      claims: ["data"],
      spec: {
        nodeFailure: { policy: "Fence", afterSeconds: 1, fence: { external: {}, timeoutSeconds: 300 } },
      },
    });
    const template = (manifest.spec as { template: { spec: Record<string, unknown> } }).template;
    template.spec.nodeSelector = { [GROUP_LABEL]: suffix };
    template.spec.tolerations = [{ ...TEST_TAINT, operator: "Equal" }];
    // StorageClass csi: CSI volumes attached by kube-controller-manager on kube-apiserver (any
    // class binds on embedded, whose attach/detach controller attaches it), as node-loss-sim.
    const claimSpec = (manifest.spec as { volumeClaimTemplates: { spec: Record<string, unknown> }[] })
      .volumeClaimTemplates[0]?.spec;
    if (claimSpec !== undefined) claimSpec.storageClassName = "csi";
    await createPetSet(env, manifest);
    const first = await readyPet();
    const nodeA = first.spec?.nodeName ?? "";
    expect(nodes).toContain(nodeA);
    const storage = env.cluster.kubeConfig.makeApiClient(StorageV1Api);
    const volume = await eventually(
      "data-db-0 bound",
      async () =>
        (await core.readNamespacedPersistentVolumeClaim({ name: "data-db-0", namespace: env.namespace })).spec
          ?.volumeName,
    );
    const attachments = async (node: string) =>
      (await storage.listVolumeAttachment()).items.filter(
        (va) => va.spec.nodeName === node && va.spec.source.persistentVolumeName === volume,
      );
    await eventually(`data-db-0 attached to ${nodeA}`, async () =>
      (await attachments(nodeA)).length > 0 ? true : undefined,
    );

    // 1. Lost: the fence runs; nothing moves until it is acked.
    await setLost(nodeA, true);
    const fence = await runningFence(first);
    expect(fence.id).toBe(
      `fence.${NAME}.0.${(first.metadata?.uid ?? "").replace(/-/g, "").slice(0, 8)}.${nodeA}`,
    );
    await eventually("PetsOnLostNodes Fencing", async () =>
      (await lostCondition())?.reason === "Fencing" ? true : undefined,
    );
    const list = await runPlugin(env, ["hook", "list", NAME], true);
    expect(list.stdout).toContain(fence.id);
    const during = await pods();
    expect(during.map((p) => p.metadata?.uid)).toEqual([first.metadata?.uid]);
    expect(during[0]?.metadata?.deletionTimestamp).toBeUndefined();
    await answer("ack", fence.id);
    const moved = await readyPet(first.metadata?.uid);
    expect(moved.spec?.nodeName).not.toBe(nodeA);
    expect((await pods()).length).toBe(1);
    expect(await attachments(nodeA)).toEqual([]);
    await eventually(`data-db-0 attached to ${moved.spec?.nodeName}`, async () =>
      (await attachments(moved.spec?.nodeName ?? "")).length > 0 ? true : undefined,
    );
    await eventually("PetsOnLostNodes gone", async () =>
      (await lostCondition()) === undefined ? true : undefined,
    );

    // 2. Lost again: the fence fails, the pet stays; the node comes back: left alone.
    const nodeB = moved.spec?.nodeName ?? "";
    await setLost(nodeB, true);
    const second = await runningFence(moved);
    await answer("fail", second.id);
    const failed = await eventually("PetsOnLostNodes FenceFailed", async () => {
      const c = await lostCondition();
      return c?.reason === "FenceFailed" ? c : undefined;
    });
    expect(failed.message).toContain(`db-0 on node ${nodeB}`);
    expect((await pods()).map((p) => p.metadata?.uid)).toEqual([moved.metadata?.uid]);
    await setLost(nodeB, false);
    await eventually(
      "PetsOnLostNodes gone after the node came back",
      async () => ((await lostCondition()) === undefined ? true : undefined),
      waitMs,
    );
    expect((await hookRecords(env, NAME)).find((r) => r.id === second.id)?.phase).toBe("Cancelled");
    const stayed = await readyPet();
    expect(stayed.metadata?.uid).toBe(moved.metadata?.uid);
    await setLost(nodeA, false);
  }, 240_000);
});
