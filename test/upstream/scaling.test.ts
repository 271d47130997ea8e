/**
 * Upstream scaling and availability cases (k8s.io/kubernetes v1.33.5
 * test/e2e/apps/statefulset.go): "Scaling should happen in predictable order and halt if any
 * stateful pod is unhealthy", "Burst scaling should run to completion even with unhealthy
 * pods", "MinReadySeconds should be honored when enabled" and "AvailableReplicas should get
 * updated accordingly when MinReadySeconds is enabled", with PetSets, at once in one namespace.
 */
import { Watch } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../support/cluster.js";
import {
  breakProbe,
  confirmStatefulPodCount,
  createPetSet,
  getPetSet,
  newPetSet,
  restoreProbe,
  scale,
  startUpstreamEnv,
  TEST_MS,
  type UpstreamEnv,
  updatePetSet,
  updateReplicas,
  WAIT_MS,
  waitForRunning,
  waitForRunningAndNotReady,
  waitForRunningAndReady,
  waitForStatusField,
} from "./upstream-support.js";

let env: UpstreamEnv;
beforeAll(async () => {
  env = await startUpstreamEnv("upstream-scaling");
});
afterAll(async () => {
  await env?.stop();
});

/**
 * watchtools.Until over the pods of `labels` from now on: resolves once events of `type` were
 * seen for `expected` in that order (other events in between are ignored, as upstream does).
 */
async function watchOrder(labels: string, type: "ADDED" | "DELETED", expected: string[]) {
  const pods = await env.core.listNamespacedPod({ namespace: env.namespace, labelSelector: labels });
  const remaining = [...expected];
  const req = await new Watch(env.cluster.kubeConfig).watch(
    `/api/v1/namespaces/${env.namespace}/pods`,
    { labelSelector: labels, resourceVersion: pods.metadata?.resourceVersion },
    (t: string, pod: { metadata?: { name?: string } }) => {
      if (t === type && pod.metadata?.name === remaining[0]) remaining.shift();
    },
    () => {},
  );
  return {
    done: () =>
      eventually(
        `${type} in order ${expected.join(",")}`,
        () => remaining.length === 0 || undefined,
        WAIT_MS,
      ).finally(() => req.abort()),
  };
}

describe.concurrent("[StatefulSetBasic] scaling (PetSet)", () => {
  it("Scaling should happen in predictable order and halt if any stateful pod is unhealthy", {
    timeout: TEST_MS,
  }, async () => {
    const name = "ss-order";
    const labels = `foo=bar,baz=${name}`;
    const up = await watchOrder(labels, "ADDED", [`${name}-0`, `${name}-1`, `${name}-2`]);
    await createPetSet(env, newPetSet(name, 1));
    await waitForRunningAndReady(env, name, 1);

    // scale up halts with an unhealthy pet
    await breakProbe(env, name);
    await waitForRunningAndNotReady(env, name, 1);
    await waitForStatusField(env, name, "readyReplicas", 0);
    await updateReplicas(env, name, 3);
    await confirmStatefulPodCount(env, name, 1, true);

    // healthy again: scales up to 3, in order
    await restoreProbe(env, name);
    await waitForRunningAndReady(env, name, 3);
    await up.done();

    // scale down halts with an unhealthy pet
    const down = await watchOrder(labels, "DELETED", [`${name}-2`, `${name}-1`, `${name}-0`]);
    await breakProbe(env, name);
    await waitForStatusField(env, name, "readyReplicas", 0);
    await waitForRunningAndNotReady(env, name, 3);
    await updateReplicas(env, name, 0);
    await confirmStatefulPodCount(env, name, 3, true);

    // healthy again: scales down to 0, in reverse order
    await restoreProbe(env, name);
    await scale(env, name, 0);
    await down.done();
  });

  it("Burst scaling should run to completion even with unhealthy pods", { timeout: TEST_MS }, async () => {
    const name = "ss-burst";
    await createPetSet(env, newPetSet(name, 1, { spec: { podManagementPolicy: "Parallel" } }));
    await waitForRunningAndReady(env, name, 1);

    // scale up does not halt with an unhealthy pet
    await breakProbe(env, name);
    await waitForRunningAndNotReady(env, name, 1);
    await waitForStatusField(env, name, "readyReplicas", 0);
    await updateReplicas(env, name, 3);
    await confirmStatefulPodCount(env, name, 3, false);
    await restoreProbe(env, name);
    await waitForRunningAndReady(env, name, 3);

    // scale down does not halt with unhealthy pets
    await breakProbe(env, name);
    await waitForStatusField(env, name, "readyReplicas", 0);
    await waitForRunningAndNotReady(env, name, 3);
    await updateReplicas(env, name, 0);
    await confirmStatefulPodCount(env, name, 0, false);
    await restoreProbe(env, name);
    await scale(env, name, 0);
    await waitForStatusField(env, name, "replicas", 0);
  });

  it("MinReadySeconds should be honored when enabled", { timeout: TEST_MS }, async () => {
    const name = "test-ss-minready";
    await createPetSet(env, newPetSet(name, 1, { labels: { name: "sample-pod", pod: name } }));
    await waitForStatusField(env, name, "availableReplicas", 1);
  });

  it("AvailableReplicas should get updated accordingly when MinReadySeconds is enabled", {
    timeout: TEST_MS,
  }, async () => {
    const name = "test-ss-available";
    // upstream: minReadySeconds 30 and a 5 s look; 10 and 3 s here (the time budget)
    const minReadySeconds = 10;
    await createPetSet(
      env,
      newPetSet(name, 2, { labels: { name: "sample-pod", pod: name }, spec: { minReadySeconds } }),
    );
    await waitForStatusField(env, name, "availableReplicas", 0);
    // a while after pet 0 became Ready, still 0: it is Ready for less than minReadySeconds
    const pods = await waitForRunning(env, name, 1, 1);
    const readySince = pods[0]?.status?.conditions?.find((c) => c.type === "Ready")?.lastTransitionTime;
    await new Promise((r) => setTimeout(r, 3_000));
    const p = await getPetSet(env, name);
    expect(Date.now() - new Date(readySince ?? 0).getTime()).toBeLessThan(minReadySeconds * 1000);
    expect(p.status?.availableReplicas).toBe(0);
    await waitForStatusField(env, name, "availableReplicas", 2);

    await updatePetSet(env, name, { spec: { minReadySeconds: 3600 } });
    await waitForStatusField(env, name, "availableReplicas", 0);
    await updatePetSet(env, name, { spec: { minReadySeconds: 0 } });
    await waitForStatusField(env, name, "availableReplicas", 2);

    // availableReplicas is shown in status
    const out = await env.cluster.kubectl([
      "get",
      "petsets.petset.dev",
      name,
      "-n",
      env.namespace,
      "-o=yaml",
    ]);
    expect(out.stdout).toContain("availableReplicas: 2");
  });
});
