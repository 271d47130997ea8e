/**
 * Upstream "[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic]"
 * (k8s.io/kubernetes v1.33.5 test/e2e/apps/statefulset.go): identity, adoption, the
 * predecessor deadlock and an evicted pet, with PetSets (the API cases: api-endpoints.test.ts). The cases run at once, one PetSet
 * each, in one namespace with one controller. docs/upstream-conformance.md lists what differs.
 */
import { PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Labels } from "../../src/api/index.js";
import { eventually } from "../support/cluster.js";
import {
  controllerOf,
  createPetSet,
  deletePodAtIndex,
  HEADLESS_SVC,
  listPods,
  newPetSet,
  resumeNextPod,
  saturate,
  scale,
  startUpstreamEnv,
  TEST_MS,
  type UpstreamEnv,
  updatePetSet,
  WAIT_MS,
  waitForRunning,
  waitForRunningAndReady,
  waitForStatusField,
} from "./upstream-support.js";

const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

let env: UpstreamEnv;
beforeAll(async () => {
  env = await startUpstreamEnv("upstream-basic");
});
afterAll(async () => {
  await env?.stop();
});

async function readPod(name: string) {
  return env.core.readNamespacedPod({ name, namespace: env.namespace });
}

async function claimUids(name: string): Promise<Record<string, string>> {
  const claims = (await env.core.listNamespacedPersistentVolumeClaim({ namespace: env.namespace })).items;
  return Object.fromEntries(
    claims
      .filter((c) => c.metadata?.name?.startsWith(`datadir-${name}-`))
      .map((c) => [c.metadata?.name ?? "", c.metadata?.uid ?? ""]),
  );
}

/** CheckMount / CheckHostname / CheckServiceName / CheckPodIndexLabel, without exec. */
async function checkIdentity(name: string, replicas: number) {
  const pods = await listPods(env, name);
  expect(pods.map((p) => p.metadata?.name)).toEqual(
    Array.from({ length: replicas }, (_, i) => `${name}-${i}`),
  );
  const claims = (await env.core.listNamespacedPersistentVolumeClaim({ namespace: env.namespace })).items;
  for (const [i, pod] of pods.entries()) {
    // the stable hostname and the governing service
    expect(pod.spec?.hostname).toBe(`${name}-${i}`);
    expect(pod.spec?.subdomain).toBe(HEADLESS_SVC);
    // the index label (SPEC rule 5: petset.dev/pod-index, not apps.kubernetes.io/pod-index)
    expect(pod.metadata?.labels?.[Labels.podIndex]).toBe(String(i));
    // the data directory is the pet's own claim, bound
    const vol = pod.spec?.volumes?.find((v) => v.name === "datadir");
    expect(vol?.persistentVolumeClaim?.claimName).toBe(`datadir-${name}-${i}`);
    const claim = claims.find((c) => c.metadata?.name === `datadir-${name}-${i}`);
    expect(claim?.status?.phase).toBe("Bound");
  }
}

describe.concurrent("[StatefulSetBasic] (PetSet)", () => {
  it("should provide basic identity", { timeout: TEST_MS }, async () => {
    const name = "ss-identity";
    await createPetSet(env, newPetSet(name, 3, { claims: true, pauseNewPods: true }));
    await saturate(env, name, 3);
    await checkIdentity(name, 3);
    // upstream writes the hostname onto /data and reads it back after the restart: the same
    // claims (uids) must be mounted by the same pets
    const before = await claimUids(name);
    const podUids = (await listPods(env, name)).map((p) => p.metadata?.uid);
    expect(Object.keys(before)).toHaveLength(3);

    // e2estatefulset.Restart: scale to 0, wait for status.replicas 0, scale back
    await scale(env, name, 0);
    await waitForStatusField(env, name, "replicas", 0);
    await updatePetSet(env, name, { spec: { replicas: 3 } });
    await waitForRunningAndReady(env, name, 3);

    await checkIdentity(name, 3);
    expect(await claimUids(name)).toEqual(before);
    const after = (await listPods(env, name)).map((p) => p.metadata?.uid);
    expect(after.filter((u) => podUids.includes(u))).toEqual([]);
  });

  it("should adopt matching orphans and release non-matching pods", { timeout: TEST_MS }, async () => {
    const name = "ss-adopt";
    const created = await createPetSet(env, newPetSet(name, 1, { claims: true, pauseNewPods: true }));
    await saturate(env, name, 1);
    const pods = await listPods(env, name);
    expect(pods).toHaveLength(1);
    const podName = pods[0]?.metadata?.name ?? "";

    // created with a controllerRef
    const ref = controllerOf(pods[0] ?? {});
    expect(ref).toMatchObject({ kind: "PetSet", name, uid: created.metadata.uid });

    const adopted = (what: string) =>
      eventually(
        what,
        async () => {
          const r = controllerOf(await readPod(podName));
          if (r === undefined) return undefined;
          expect(r).toMatchObject({ kind: "PetSet", name, uid: created.metadata.uid });
          return r;
        },
        WAIT_MS,
      );
    const patchPod = (body: Record<string, unknown>) =>
      env.core.patchNamespacedPod({ name: podName, namespace: env.namespace, body }, merge);

    // orphaning the pod: the PetSet re-adopts it
    await patchPod({ metadata: { ownerReferences: null } });
    await adopted(`${podName} re-adopted`);

    // removing its labels: the PetSet releases it
    const prevLabels = (await readPod(podName)).metadata?.labels ?? {};
    await patchPod({ metadata: { labels: null } });
    await eventually(
      `${podName} released`,
      async () => (controllerOf(await readPod(podName)) === undefined ? true : undefined),
      WAIT_MS,
    );

    // labels back: adopted again
    await patchPod({ metadata: { labels: prevLabels } });
    await adopted(`${podName} adopted after its labels came back`);
  });

  it("should not deadlock when a pod's predecessor fails", { timeout: TEST_MS }, async () => {
    const name = "ss-deadlock";
    await createPetSet(env, newPetSet(name, 2, { claims: true, pauseNewPods: true }));
    await waitForRunning(env, name, 1, 0);
    // resuming pet 0
    await resumeNextPod(env, name);
    // pet 1 enters running (not ready)
    await waitForRunning(env, name, 2, 1);
    // deleting the healthy pet 0 must not wait for the unhealthy pet 1: it is recreated
    await deletePodAtIndex(env, name, 0);
    await waitForRunning(env, name, 2, 1);
    // resuming pet 1
    await resumeNextPod(env, name);
    await waitForRunningAndReady(env, name, 2);
  });

  it("Should recreate evicted statefulset", { timeout: TEST_MS }, async () => {
    const name = "ss-evicted";
    const podName = `${name}-0`;
    const conflictingPort = { hostPort: 21017, containerPort: 21017, name: "conflict" };
    // a Ready schedulable node of the simulated kubelet or kwok
    const nodes = (await env.core.listNode({ labelSelector: "type=kwok" })).items.filter(
      (n) =>
        !n.spec?.unschedulable &&
        n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
    );
    const node = nodes[0]?.metadata?.name ?? "";
    expect(node).not.toBe("");

    // a pod holding the host port on that node
    const blocker = `${name}-test-pod`;
    await env.core.createNamespacedPod({
      namespace: env.namespace,
      body: {
        metadata: { name: blocker },
        spec: {
          nodeName: node,
          containers: [{ name: "webserver", image: "httpd:2.4.38-alpine", ports: [conflictingPort] }],
        },
      },
    });
    await eventually(
      `${blocker} running`,
      async () => (await readPod(blocker)).status?.phase === "Running" || undefined,
      WAIT_MS,
    );

    // a PetSet whose pet wants the same host port on the same node
    const body = newPetSet(name, 1);
    const podSpec = (body.spec as { template: { spec: Record<string, unknown> } }).template.spec;
    podSpec.nodeName = node;
    (podSpec.containers as { ports?: unknown[] }[])[0]!.ports = [conflictingPort];
    await createPetSet(env, body);

    // The kubelet's admission (no real kubelet here: the test plays it while the blocker runs):
    // every pod of the pet is rejected, phase Failed. The PetSet must delete and recreate it.
    const rejected = new Set<string>();
    await eventually(
      `${podName} rejected, deleted and recreated at least once`,
      async () => {
        const pod = await readPod(podName).catch(() => undefined);
        const uid = pod?.metadata?.uid ?? "";
        if (rejected.size > 0 && !rejected.has(uid)) return true;
        if (pod === undefined || pod.status?.phase === "Failed" || pod.metadata?.deletionTimestamp)
          return undefined;
        const images = pod.spec?.containers.map((c) => ({ name: c.name, image: c.image ?? "" })) ?? [];
        await env.core.patchNamespacedPodStatus(
          {
            name: podName,
            namespace: env.namespace,
            body: {
              metadata: { resourceVersion: pod.metadata?.resourceVersion },
              status: {
                phase: "Failed",
                reason: "NodePorts",
                message:
                  "Pod was rejected: Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports",
                containerStatuses: images.map((c) => ({
                  ...c,
                  imageID: "",
                  ready: false,
                  restartCount: 0,
                  state: { waiting: { reason: "ContainerCreating" } },
                })),
              },
            },
          },
          merge,
        );
        rejected.add(uid);
        return undefined;
      },
      WAIT_MS,
    );

    // the blocker goes: the recreated pet runs
    await env.core.deleteNamespacedPod({ name: blocker, namespace: env.namespace, gracePeriodSeconds: 0 });
    await eventually(
      `${podName} recreated and running`,
      async () => {
        const pod = await readPod(podName);
        const uid = pod.metadata?.uid ?? "";
        if (rejected.has(uid)) return undefined;
        return pod.status?.phase === "Running" || undefined;
      },
      WAIT_MS,
    );
  });
});
