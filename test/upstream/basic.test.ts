/**
 * Upstream "[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic]"
 * (k8s.io/kubernetes v1.33.5 test/e2e/apps/statefulset.go): identity, adoption, the
 * predecessor deadlock and the API endpoints, with PetSets. The cases run at once, one PetSet
 * each, in one namespace with one controller. docs/upstream-conformance.md lists what differs.
 */
import { PatchStrategy, setHeaderOptions, Watch } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GROUP, Labels, PETSET_PLURAL, type PetSet, VERSION } from "../../src/api/index.js";
import { eventually } from "../support/cluster.js";
import {
  controllerOf,
  createPetSet,
  deletePodAtIndex,
  getPetSet,
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
  waitForStatus,
  waitForStatusField,
} from "./upstream-support.js";

const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
const ps = { group: GROUP, version: VERSION, plural: PETSET_PLURAL };

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

  it("should have a working scale subresource", { timeout: TEST_MS }, async () => {
    const name = "ss-scale";
    await createPetSet(env, newPetSet(name, 1));
    await waitForRunningAndReady(env, name, 1);
    // waitForStatus; and status.replicas counts the pod (status writes may lag the pod)
    await waitForStatusField(env, name, "replicas", 1);

    const scaleOf = () =>
      env.custom.getNamespacedCustomObjectScale({ ...ps, namespace: env.namespace, name });
    type Scale = {
      metadata: Record<string, unknown>;
      spec: { replicas: number };
      status: { replicas: number };
    };
    const s = (await scaleOf()) as Scale;
    expect(s.spec.replicas).toBe(1);
    expect(s.status.replicas).toBe(1);

    // updating the scale subresource, unconditionally (no resourceVersion)
    const { resourceVersion: _rv, ...metadata } = s.metadata;
    const body: Scale = { ...s, metadata, spec: { replicas: 2 } };
    const updated = (await env.custom.replaceNamespacedCustomObjectScale({
      ...ps,
      namespace: env.namespace,
      name,
      body,
    })) as Scale;
    expect(updated.spec.replicas).toBe(2);
    expect((await getPetSet(env, name)).spec.replicas).toBe(2);

    // patching the scale subresource (a merge patch: custom resources take no strategic merge)
    await env.custom.patchNamespacedCustomObjectScale(
      { ...ps, namespace: env.namespace, name, body: { spec: { replicas: 4 } } },
      merge,
    );
    expect((await getPetSet(env, name)).spec.replicas).toBe(4);
  });

  it("should list, patch and delete a collection of StatefulSets", { timeout: TEST_MS }, async () => {
    const name = "test-ss";
    const pauseImage = "registry.k8s.io/pause:3.10";
    await createPetSet(env, newPetSet(name, 1, { labels: { name: "sample-pod", pod: "httpd" } }));
    await waitForRunningAndReady(env, name, 1);
    await waitForStatus(env, name);

    // patching the PetSet: a label, replicas, the template
    const patched = await updatePetSet(env, name, {
      metadata: { labels: { "test-ss": "patched" } },
      spec: {
        replicas: 2,
        template: { spec: { terminationGracePeriodSeconds: 1, containers: [{ name, image: pauseImage }] } },
      },
    });
    expect(patched.spec.replicas).toBe(2);
    expect((patched.spec.template.spec as { containers: { image: string }[] }).containers[0]?.image).toBe(
      pauseImage,
    );
    await waitForRunningAndReady(env, name, 2);
    await waitForStatus(env, name);

    // listing every PetSet (all namespaces) with the label
    const listAll = async () =>
      (
        (await env.custom.listClusterCustomObject({ ...ps, labelSelector: "test-ss=patched" })) as {
          items: PetSet[];
        }
      ).items;
    expect(await listAll()).toHaveLength(1);

    // deleting the collection
    await env.custom.deleteCollectionNamespacedCustomObject({
      ...ps,
      namespace: env.namespace,
      labelSelector: "test-ss=patched",
      gracePeriodSeconds: 1,
    });
    await eventually("PetSets with test-ss=patched deleted", async () =>
      (await listAll()).length === 0 ? true : undefined,
    );
  });

  it("should validate Statefulset Status endpoints", { timeout: TEST_MS }, async () => {
    const name = "ss-status";
    await createPetSet(env, newPetSet(name, 1));
    await waitForRunningAndReady(env, name, 1);
    await waitForStatus(env, name);

    // a watch on the label from before it is set
    const seen: PetSet[] = [];
    const watch = await new Watch(env.cluster.kubeConfig).watch(
      `/apis/${GROUP}/${VERSION}/namespaces/${env.namespace}/${PETSET_PLURAL}`,
      { labelSelector: "e2e=testing" },
      (_type: string, obj: PetSet) => seen.push(obj),
      () => {},
    );
    const seenCondition = (type: string, reason?: string) =>
      eventually(
        `a watch event of ${name} with condition ${type}`,
        () =>
          seen.some((o) =>
            o.status?.conditions.some(
              (c) => c.type === type && (reason === undefined || c.reason === reason),
            ),
          ) || undefined,
        WAIT_MS,
      );
    try {
      await updatePetSet(env, name, { metadata: { labels: { e2e: "testing" } } });

      // GET /status
      const status = (await env.custom.getNamespacedCustomObjectStatus({
        ...ps,
        namespace: env.namespace,
        name,
      })) as PetSet;
      expect(status.metadata.name).toBe(name);
      expect(status.status?.observedGeneration).toBeGreaterThan(0);

      // PUT /status with one more condition, retried on conflict (the controller writes too)
      const condition = {
        type: "StatusUpdate",
        status: "True",
        reason: "E2E",
        message: "Set from e2e test",
        lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
      };
      await eventually(
        "status updated",
        async () => {
          const cur = await getPetSet(env, name);
          const body = {
            ...cur,
            status: { ...cur.status, conditions: [...(cur.status?.conditions ?? []), condition] },
          };
          const updated = (await env.custom.replaceNamespacedCustomObjectStatus({
            ...ps,
            namespace: env.namespace,
            name,
            body,
          })) as PetSet;
          return updated.status?.conditions.some((c) => c.type === "StatusUpdate") || undefined;
        },
        WAIT_MS,
      );
      await seenCondition("StatusUpdate", "E2E");

      // PATCH /status. Upstream's payload has only type and status; PetSet conditions are
      // metav1.Condition (reason, message, lastTransitionTime required), so it is refused.
      const bare = { status: { conditions: [{ type: "StatusPatched", status: "True" }] } };
      await expect(
        env.custom.patchNamespacedCustomObjectStatus(
          { ...ps, namespace: env.namespace, name, body: bare },
          merge,
        ),
      ).rejects.toMatchObject({ code: 422 });
      const full = { status: { conditions: [{ ...condition, type: "StatusPatched", reason: "E2E" }] } };
      const patched = (await env.custom.patchNamespacedCustomObjectStatus(
        { ...ps, namespace: env.namespace, name, body: full },
        merge,
      )) as PetSet;
      expect(patched.status?.conditions.map((c) => c.type)).toContain("StatusPatched");
      await seenCondition("StatusPatched");
    } finally {
      watch.abort();
    }
  });
});
