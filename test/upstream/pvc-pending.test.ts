/**
 * Upstream "Automatically recreate PVC for pending pod when PVC is missing" (k8s.io/kubernetes
 * v1.33.5 test/e2e/apps/statefulset.go) with a PetSet. Upstream it is [Disruptive] [Serial]:
 * it cordons a node. Here it has its own namespace and controller, and cordons one node of
 * the simulated kubelet (its own server) or of kwok (shared: other files' pods are only kept
 * off that node for the few seconds it is cordoned).
 */
import { PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../support/cluster.js";
import {
  createPetSet,
  newPetSet,
  startUpstreamEnv,
  TEST_MS,
  type UpstreamEnv,
  verifyClaimsExist,
  WAIT_MS,
  waitForState,
  waitForStatusField,
} from "./upstream-support.js";

const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

let env: UpstreamEnv;
beforeAll(async () => {
  env = await startUpstreamEnv("upstream-pvc-pending");
});
afterAll(async () => {
  await env?.stop();
});

const cordon = (node: string, unschedulable: boolean) =>
  env.core.patchNode({ name: node, body: { spec: { unschedulable: unschedulable || null } } }, merge);

describe("Automatically recreate PVC for pending pod when PVC is missing (PetSet)", () => {
  it("PVC should be recreated when pod is pending due to missing PVC", { timeout: TEST_MS }, async () => {
    const name = "ss-pending";
    const podName = `${name}-0`;
    const nodes = (await env.core.listNode({ labelSelector: "type=kwok" })).items.filter(
      (n) =>
        !n.spec?.unschedulable &&
        n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
    );
    const node = nodes[nodes.length - 1]?.metadata?.name ?? "";
    expect(node).not.toBe("");

    // the pet forced onto that node
    const body = newPetSet(name, 1, { claims: true });
    (body.spec as { template: { spec: Record<string, unknown> } }).template.spec.nodeSelector = {
      "kubernetes.io/hostname": node,
    };
    await createPetSet(env, body);
    const [claim] = await verifyClaimsExist(env, name, [0]).then((all) =>
      all.filter((c) => c.metadata?.name === `datadir-${name}-0`),
    );
    await waitForStatusField(env, name, "readyReplicas", 1);
    const pod = await env.core.readNamespacedPod({ name: podName, namespace: env.namespace });
    expect(pod.spec?.nodeName).toBe(node);

    await cordon(node, true);
    try {
      // the pet's pod deleted: its new pod stays Pending (its node is cordoned)
      await env.core.deleteNamespacedPod({ name: podName, namespace: env.namespace });
      await waitForState(env, name, "the pet recreated, Pending", (s, pods) =>
        (s.status?.observedGeneration ?? 0) >= (s.metadata.generation ?? 0) &&
        s.status?.currentReplicas === 1 &&
        pods.some((p) => p.metadata?.uid !== pod.metadata?.uid && !p.spec?.nodeName)
          ? true
          : undefined,
      );
      const claims = (await env.core.listNamespacedPersistentVolumeClaim({ namespace: env.namespace })).items;
      expect(claims).toHaveLength(1);
      // its claim deleted
      await env.core.deleteNamespacedPersistentVolumeClaim({
        name: claims[0]?.metadata?.name ?? "",
        namespace: env.namespace,
      });
    } finally {
      await cordon(node, false);
    }

    // the claim is recreated (a new object) and the pet runs again, on the same node
    await eventually(
      "the claim recreated",
      async () => {
        const c = await env.core
          .readNamespacedPersistentVolumeClaim({ name: `datadir-${name}-0`, namespace: env.namespace })
          .catch(() => undefined);
        return c && c.metadata?.uid !== claim?.metadata?.uid ? true : undefined;
      },
      WAIT_MS,
    );
    await verifyClaimsExist(env, name, [0]);
    await waitForStatusField(env, name, "readyReplicas", 1);
    const again = await env.core.readNamespacedPod({ name: podName, namespace: env.namespace });
    expect(again.spec?.nodeName).toBe(node);
  });
});
