/**
 * Upstream [StatefulSetBasic] update cases (k8s.io/kubernetes v1.33.5
 * test/e2e/apps/statefulset.go: rollbackTest, the canary/phased case,
 * deletingPodForRollingUpdatePartitionTest, OnDelete) with PetSets. Revisions are version
 * numbers: a roll back is a new version with rollbackOf (SPEC rule 1), not the old revision
 * again, so where upstream expects `updateRevision == priorRevision` this expects the new
 * version to be a rollback of the prior one. docs/upstream-conformance.md lists the rest.
 */
import { PatchStrategy, setHeaderOptions, type V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GROUP, PETSET_PLURAL, type PetSet, VERSION } from "../../src/api/index.js";
import { listVersions } from "../integration/rollout-support.js";
import {
  breakProbe,
  createPetSet,
  deletePodAtIndex,
  getPetSet,
  listPods,
  NEW_WEBSERVER_IMAGE,
  newPetSet,
  restoreProbe,
  startUpstreamEnv,
  TEST_MS,
  type UpstreamEnv,
  updatePetSet,
  versionOf,
  WEBSERVER_IMAGE,
  waitForPartitionedRollingUpdate,
  waitForPodReady,
  waitForRollingUpdate,
  waitForRunningAndReady,
  waitForState,
  waitForStatus,
} from "./upstream-support.js";

const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
const TEST_FINALIZER = "example.com/test-finalizer";

let env: UpstreamEnv;
beforeAll(async () => {
  env = await startUpstreamEnv("upstream-update");
});
afterAll(async () => {
  await env?.stop();
});

const imageOf = (p: V1Pod) => p.spec?.containers[0]?.image;
/** Only the image changes (a JSON patch: a merge patch would replace the containers list). */
const setImage = (name: string, image: string) =>
  env.custom.patchNamespacedCustomObject(
    {
      group: GROUP,
      version: VERSION,
      plural: PETSET_PLURAL,
      namespace: env.namespace,
      name,
      body: [{ op: "replace", path: "/spec/template/spec/containers/0/image", value: image }],
    },
    setHeaderOptions("Content-Type", PatchStrategy.JsonPatch),
  );
const setPartition = (name: string, partition: number) =>
  updatePetSet(env, name, {
    spec: { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition } } },
  });

/** Every pet: below the partition at the old image and version, from it on at the new ones. */
function expectPartitioned(pods: V1Pod[], partition: number, current: number, update: number) {
  for (const [i, pod] of pods.entries()) {
    const old = i < partition;
    expect(imageOf(pod), `${pod.metadata?.name} image`).toBe(old ? WEBSERVER_IMAGE : NEW_WEBSERVER_IMAGE);
    expect(versionOf(pod), `${pod.metadata?.name} version`).toBe(old ? current : update);
  }
}

async function createdAndSettled(name: string, body: Record<string, unknown>): Promise<PetSet> {
  await createPetSet(env, body);
  await waitForRunningAndReady(env, name, 3);
  const set = await waitForStatus(env, name);
  expect(set.status?.currentVersion).toBe(set.status?.updateVersion);
  for (const pod of await listPods(env, name)) expect(versionOf(pod)).toBe(set.status?.currentVersion);
  return set;
}

/** rollbackTest */
async function rollbackTest(name: string, claims: boolean) {
  const created = await createdAndSettled(name, newPetSet(name, 3, { claims }));
  const first = created.status?.currentVersion ?? 0;
  const pod1 = `${name}-1`;
  await breakProbe(env, name, pod1);
  await waitForPodReady(env, name, pod1, false);

  // updating the template: a new version
  await setImage(name, NEW_WEBSERVER_IMAGE);
  let set = await waitForStatus(env, name);
  expect(set.status?.currentVersion).not.toBe(set.status?.updateVersion);
  const second = set.status?.updateVersion ?? 0;
  // Differs by design (SPEC rule 4): upstream waits for the unhealthy pet 1; a PetSet replaces
  // a pet that is not Ready at the new version at once, so restoring its probe finds a new pod.
  await waitForState(env, name, "unready pet 1 replaced at the new version", (_s, pods) =>
    pods.some((p) => p.metadata?.name === pod1 && versionOf(p) === second) ? true : undefined,
  );

  // updating pods in reverse ordinal order, once pet 1 is healthy again
  await restoreProbe(env, name, pod1);
  await waitForPodReady(env, name, pod1);
  let done = await waitForRollingUpdate(env, name);
  expect(done.set.status?.currentVersion).toBe(second);
  for (const pod of done.pods) {
    expect(imageOf(pod)).toBe(NEW_WEBSERVER_IMAGE);
    expect(versionOf(pod)).toBe(second);
  }

  // rolling back to the previous template
  await breakProbe(env, name, pod1);
  await waitForPodReady(env, name, pod1, false);
  await setImage(name, WEBSERVER_IMAGE);
  set = await waitForStatus(env, name);
  const third = set.status?.updateVersion ?? 0;
  // upstream: updateRevision == priorRevision. Here: a new number whose content is the prior one's.
  expect(third).toBeGreaterThan(second);
  const versions = await listVersions(env, name);
  const v = (n: number) => versions.find((x) => x.spec.version === n);
  expect(v(third)?.spec.rollbackOf).toBe(first);
  expect(v(third)?.spec.hash).toBe(v(first)?.spec.hash);
  expect(set.status?.currentVersion).not.toBe(third);
  await waitForState(env, name, "unready pet 1 replaced at the rollback version", (_s, pods) =>
    pods.some((p) => p.metadata?.name === pod1 && versionOf(p) === third) ? true : undefined,
  );

  // rolling back in reverse ordinal order
  await restoreProbe(env, name, pod1);
  await waitForPodReady(env, name, pod1);
  done = await waitForRollingUpdate(env, name);
  expect(done.set.status?.currentVersion).toBe(third);
  for (const pod of done.pods) {
    expect(imageOf(pod)).toBe(WEBSERVER_IMAGE);
    expect(versionOf(pod)).toBe(third);
  }
}

/** deletingPodForRollingUpdatePartitionTest; `failing`: pet 0's container exits 1 on SIGTERM. */
async function deletingPodForRollingUpdatePartitionTest(name: string, failing: boolean) {
  const body = newPetSet(name, 3, {
    spec: { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 1 } } },
  });
  const created = await createdAndSettled(name, body);
  const current = created.status?.currentVersion ?? 0;
  const pod0 = `${name}-0`;
  const patchPod0 = (b: Record<string, unknown>) =>
    env.core.patchNamespacedPod({ name: pod0, namespace: env.namespace, body: b }, merge);

  // a finalizer on pet 0
  await patchPod0({ metadata: { finalizers: [TEST_FINALIZER] } });
  try {
    await setImage(name, NEW_WEBSERVER_IMAGE);
    let set = await waitForStatus(env, name);
    expect(set.status?.currentVersion).not.toBe(set.status?.updateVersion);
    const update = set.status?.updateVersion ?? 0;

    // all pets running, all updated but pet 0
    let pods = await waitForState(env, name, "all but pet 0 updated", (s, p) =>
      s.status?.updatedReplicas === s.spec.replicas - 1 &&
      s.status?.replicas === s.spec.replicas &&
      s.status?.readyReplicas === s.spec.replicas
        ? p
        : undefined,
    );
    expectPartitioned(pods, 1, current, update);

    // deleting pet 0: it stays (finalizer) while its containers stop
    await deletePodAtIndex(env, name, 0);
    if (failing) {
      // What the kubelet reports when that container exits 1 on SIGTERM (no real containers here).
      const live = await env.core.readNamespacedPod({ name: pod0, namespace: env.namespace });
      const now = new Date();
      const status = {
        phase: "Failed",
        conditions: (live.status?.conditions ?? []).map((c) =>
          c.type === "Ready" || c.type === "ContainersReady"
            ? { ...c, status: "False", reason: "PodFailed", lastTransitionTime: now }
            : c,
        ),
        containerStatuses: (live.status?.containerStatuses ?? []).map((c) => ({
          ...c,
          ready: false,
          started: false,
          state: { terminated: { exitCode: 1, reason: "Error", startedAt: now, finishedAt: now } },
        })),
      };
      await env.core.patchNamespacedPodStatus(
        { name: pod0, namespace: env.namespace, body: { status } },
        merge,
      );
    }
    await waitForState(env, name, "two pets ready while pet 0 terminates", (s) =>
      s.status?.readyReplicas === s.spec.replicas - 1 ? true : undefined,
    );

    // the finalizer removed: pet 0 comes back, below the partition, at the old version
    await patchPod0({ metadata: { finalizers: null } });
    set = await waitForState(env, name, "all pets ready again", (s, p) =>
      s.status?.readyReplicas === s.spec.replicas && p.length === 3 && p[0]?.metadata?.uid !== undefined
        ? s
        : undefined,
    );
    pods = await listPods(env, name);
    expectPartitioned(pods, 1, current, update);
  } finally {
    await patchPod0({ metadata: { finalizers: null } }).catch(() => {});
  }
}

describe.concurrent("[StatefulSetBasic] updates (PetSet)", () => {
  it(
    "should perform rolling updates and roll backs of template modifications with PVCs",
    { timeout: TEST_MS },
    () => rollbackTest("ss-rb-pvc", true),
  );

  it("should perform rolling updates and roll backs of template modifications", { timeout: TEST_MS }, () =>
    rollbackTest("ss2-rb", false),
  );

  it("should perform canary updates and phased rolling updates of template modifications", {
    timeout: TEST_MS,
  }, async () => {
    const name = "ss2-canary";
    const body = newPetSet(name, 3, {
      spec: { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 3 } } },
    });
    const created = await createdAndSettled(name, body);
    const current = created.status?.currentVersion ?? 0;

    await setImage(name, NEW_WEBSERVER_IMAGE);
    const set = await waitForStatus(env, name);
    const update = set.status?.updateVersion ?? 0;
    expect(current).not.toBe(update);

    // not applying an update when the partition is greater than the number of replicas
    expectPartitioned(await listPods(env, name), 3, current, update);

    // a canary update
    await setPartition(name, 2);
    let step = await waitForPartitionedRollingUpdate(env, name);
    expectPartitioned(step.pods, 2, current, update);

    // restoring pods to the correct version when they are deleted
    await deletePodAtIndex(env, name, 0);
    await deletePodAtIndex(env, name, 2);
    await waitForRunningAndReady(env, name, 3);
    expectPartitioned(await listPods(env, name), 2, current, update);

    // a phased rolling update
    for (let partition = 1; partition >= 0; partition--) {
      await setPartition(name, partition);
      step = await waitForPartitionedRollingUpdate(env, name);
      expectPartitioned(step.pods, partition, current, update);
    }
    expect(step.set.status?.currentVersion).toBe(update);
  });

  it(
    "should perform canary updates and phased rolling updates of template modifications for partiton1 and delete pod-0 without failing container",
    { timeout: TEST_MS },
    () => deletingPodForRollingUpdatePartitionTest("ss2-p1", false),
  );

  it(
    "should perform canary updates and phased rolling updates of template modifications for partiton1 and delete pod-0 with failing container",
    { timeout: TEST_MS },
    () => deletingPodForRollingUpdatePartitionTest("ss3-p1", true),
  );

  it("should implement legacy replacement when the update strategy is OnDelete", {
    timeout: TEST_MS,
  }, async () => {
    const name = "ss2-ondelete";
    const created = await createdAndSettled(
      name,
      newPetSet(name, 3, { spec: { updateStrategy: { type: "OnDelete" } } }),
    );
    const current = created.status?.currentVersion ?? 0;
    const deleteAll = async () => {
      for (const i of [0, 1, 2]) await deletePodAtIndex(env, name, i);
    };

    // restoring pods to the current version
    await deleteAll();
    await waitForRunningAndReady(env, name, 3);
    for (const pod of await listPods(env, name)) expect(versionOf(pod)).toBe(current);

    await setImage(name, NEW_WEBSERVER_IMAGE);
    const set = await waitForStatus(env, name);
    const update = set.status?.updateVersion ?? 0;
    expect(update).not.toBe(current);

    // recreating pods at the new version
    await deleteAll();
    await waitForRunningAndReady(env, name, 3);
    for (const pod of await listPods(env, name)) {
      expect(imageOf(pod)).toBe(NEW_WEBSERVER_IMAGE);
      expect(versionOf(pod)).toBe(update);
    }
    expect((await getPetSet(env, name)).status?.updateVersion).toBe(update);
  });
});
