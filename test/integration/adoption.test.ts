/**
 * Adoption and release on both backends (SPEC rule 9, docs/rollouts.md "Adoption and
 * release"): `kubectl delete petset --cascade=orphan` and re-creating the PetSet restarts no
 * pod and continues a rollout in flight; a pod another controller holds is never touched and
 * shows as a condition and an Event; a pod whose labels stop matching is released.
 */
import { PatchStrategy, setHeaderOptions, type V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Annotations, ConditionTypes, Labels } from "../../src/api/index.js";
import { eventually } from "../support/cluster.js";
import {
  condition,
  createPetSet,
  expectEvent,
  expectNoViolations,
  getPetSet,
  listClaims,
  listPods,
  listVersions,
  monitor,
  patchPetSet,
  petSetManifest,
  type RolloutEnv,
  startRolloutEnv,
  TEST_MS,
  versionOf,
  WAIT_MS,
  waitRolledOut,
  withDiagnostics,
} from "./rollout-support.js";

let env: RolloutEnv;

beforeAll(async () => {
  env = await startRolloutEnv("adoption");
});

afterAll(async () => {
  await env?.stop();
});

const controllerUid = (pod: V1Pod) => pod.metadata?.ownerReferences?.find((r) => r.controller)?.uid;
const restarts = (pod: V1Pod) =>
  (pod.status?.containerStatuses ?? []).reduce((sum, s) => sum + s.restartCount, 0);
const identity = (pods: V1Pod[]) =>
  pods.map((p) => `${p.metadata?.name} ${p.metadata?.uid} restarts=${restarts(p)}`);

/** The real kubectl, as a user would orphan the pods; waits until the PetSet is gone. */
async function deleteOrphaning(name: string): Promise<void> {
  await env.cluster.kubectl([
    "delete",
    "-n",
    env.namespace,
    "petset",
    name,
    "--cascade=orphan",
    "--wait=true",
  ]);
  await eventually(
    `petset ${name} gone`,
    async () => ((await getPetSet(env, name).catch(() => undefined)) === undefined ? true : undefined),
    WAIT_MS,
  );
}

async function petConflict(name: string) {
  return condition(await getPetSet(env, name), ConditionTypes.petConflict);
}

describe("adoption and release", () => {
  it(
    "orphan delete + re-create from the same manifest adopts every pod and restarts none",
    async () => {
      // whenDeleted: Delete, so the claims are owned by the PetSet too (and orphaned with it).
      const manifest = petSetManifest("web", {
        claims: ["data"],
        spec: { persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Retain" } },
      });
      await createPetSet(env, manifest);
      await waitRolledOut(env, "web", 1);
      const before = await listPods(env, "web");
      const m = await monitor(env, "web");

      await deleteOrphaning("web");
      const orphans = await listPods(env, "web");
      expect(orphans.map(controllerUid)).toEqual([undefined, undefined, undefined]);
      expect((await listVersions(env, "web")).map((v) => v.metadata.ownerReferences ?? [])).toEqual([[]]);
      const claimOwners = async () =>
        (await listClaims(env))
          .filter((c) => c.metadata?.name?.startsWith("data-web-"))
          .map((c) => c.metadata?.ownerReferences?.find((r) => r.controller)?.uid);
      expect(await claimOwners()).toEqual([undefined, undefined, undefined]);

      await createPetSet(env, manifest);
      const uid = (await getPetSet(env, "web")).metadata.uid;
      await withDiagnostics(env, "web", () =>
        eventually(
          "every pod adopted by the new PetSet",
          async () => {
            const pods = await listPods(env, "web");
            return pods.length === 3 && pods.every((p) => controllerUid(p) === uid) ? pods : undefined;
          },
          WAIT_MS,
        ),
      );
      const p = await waitRolledOut(env, "web", 1);
      expect(condition(p, ConditionTypes.available)?.status).toBe("True");
      expect(identity(await listPods(env, "web"))).toEqual(identity(before));
      const versions = await listVersions(env, "web");
      expect(versions.map((v) => v.metadata.ownerReferences?.[0]?.uid)).toEqual([uid]);
      await expectEvent(env, "web", "Adopted", /pod web-0/);
      await eventually(
        "claims adopted",
        async () => ((await claimOwners()).every((u) => u === uid) ? true : undefined),
        WAIT_MS,
      );
      expect(m.moves().filter((x) => x.kind === "delete" || x.kind === "create")).toEqual([]);
      await expectNoViolations(m);
    },
    TEST_MS,
  );

  it(
    "orphan delete mid-rollout + re-create with the new spec continues the rollout, no third version",
    async () => {
      const manifest = (image: string) => petSetManifest("mid", { image, spec: { minReadySeconds: 1 } });
      await createPetSet(env, manifest("nginx:1.26"));
      await waitRolledOut(env, "mid", 1);
      const m = await monitor(env, "mid");
      // minReadySeconds holds the rollout after its first pet, long enough to orphan it there.
      await patchPetSet(env, "mid", {
        spec: {
          minReadySeconds: 20,
          template: { spec: { containers: [{ name: "app", image: "nginx:1.27" }] } },
        },
      });
      const midway = await withDiagnostics(env, "mid", () =>
        eventually(
          "mid-2 at version 2",
          async () => {
            const pods = await listPods(env, "mid");
            const v2 = pods.filter(
              (pod) => versionOf(pod) === 2 && pod.metadata?.deletionTimestamp === undefined,
            );
            return v2.length === 1 && pods.length === 3 ? pods : undefined;
          },
          WAIT_MS,
        ),
      );
      await deleteOrphaning("mid");
      const atOrphaning = await listPods(env, "mid");
      expect(atOrphaning.map(versionOf)).toEqual(midway.map(versionOf));
      // What the re-created PetSet has to go on: the pods' labels and announced target.
      expect(atOrphaning.map((pod) => pod.metadata?.annotations?.[Annotations.targetVersion])).toEqual([
        "2",
        "2",
        "2",
      ]);

      await createPetSet(env, manifest("nginx:1.27"));
      await waitRolledOut(env, "mid", 2, WAIT_MS * 2);
      const versions = await listVersions(env, "mid");
      expect(versions.map((v) => v.spec.version)).toEqual([1, 2]);
      // The pet updated before the orphaning was adopted as it was, not replaced again.
      const kept = atOrphaning.find((pod) => versionOf(pod) === 2);
      expect((await listPods(env, "mid")).map((pod) => pod.metadata?.uid)).toContain(kept?.metadata?.uid);
      await expectNoViolations(m);
    },
    TEST_MS * 2,
  );

  it(
    "a pod named as a pet but controlled by something else is never touched; PetConflict and a Warning say so",
    async () => {
      const owner = await env.core.createNamespacedConfigMap({
        namespace: env.namespace,
        body: { metadata: { name: "other-owner" }, data: {} },
      });
      const foreign = await env.core.createNamespacedPod({
        namespace: env.namespace,
        body: {
          metadata: {
            name: "held-1",
            labels: { app: "held", [Labels.petSet]: "held" },
            ownerReferences: [
              {
                apiVersion: "v1",
                kind: "ConfigMap",
                name: "other-owner",
                uid: owner.metadata?.uid ?? "",
                controller: true,
              },
            ],
          },
          spec: { terminationGracePeriodSeconds: 1, containers: [{ name: "app", image: "busybox:1.36" }] },
        },
      });
      await createPetSet(env, petSetManifest("held", { podManagementPolicy: "Parallel" }));
      const c = await withDiagnostics(env, "held", () =>
        eventually("PetConflict on held", () => petConflict("held"), WAIT_MS),
      );
      expect(c).toMatchObject({ status: "True", reason: "PodOwnedByOther" });
      expect(c?.message).toContain("pod held-1 is controlled by ConfigMap/other-owner");
      await expectEvent(env, "held", "PodOwnedByOther", /pod held-1 is controlled by ConfigMap\/other-owner/);
      await eventually(
        "held-0 and held-2 Ready",
        async () => {
          const pods = await listPods(env, "held");
          return pods.filter((p) => controllerUid(p) !== owner.metadata?.uid).length === 2 ? true : undefined;
        },
        WAIT_MS,
      );
      const still = await env.core.readNamespacedPod({ namespace: env.namespace, name: "held-1" });
      expect(still.metadata?.uid).toBe(foreign.metadata?.uid);
      expect(still.metadata?.ownerReferences).toEqual(foreign.metadata?.ownerReferences);
      expect(still.metadata?.labels).toEqual(foreign.metadata?.labels);
      expect(still.metadata?.deletionTimestamp).toBeUndefined();

      // Once its owner's pod is gone, the pet is created and the condition goes away.
      await env.core.deleteNamespacedPod({ namespace: env.namespace, name: "held-1", gracePeriodSeconds: 0 });
      const psUid = (await getPetSet(env, "held")).metadata.uid;
      await waitRolledOut(env, "held", 1);
      expect((await listPods(env, "held")).map(controllerUid)).toEqual([psUid, psUid, psUid]);
      await eventually(
        "PetConflict gone",
        async () => ((await petConflict("held")) ? undefined : true),
        WAIT_MS,
      );
    },
    TEST_MS,
  );

  it(
    "a pod named as a pet without petset's label (invisible to its caches) is reported, then replaced once gone",
    async () => {
      // As a StatefulSet's pod would be: the selector's labels, not petset.dev/petset.
      const bare = await env.core.createNamespacedPod({
        namespace: env.namespace,
        body: {
          metadata: { name: "bare-0", labels: { app: "bare" } },
          spec: { terminationGracePeriodSeconds: 1, containers: [{ name: "app", image: "busybox:1.36" }] },
        },
      });
      await createPetSet(env, petSetManifest("bare", { replicas: 1 }));
      const c = await withDiagnostics(env, "bare", () =>
        eventually("PetConflict on bare", () => petConflict("bare"), WAIT_MS),
      );
      expect(c).toMatchObject({ status: "True", reason: "PodNotLabelled" });
      expect(c?.message).toContain("pod bare-0 has no label petset.dev/petset=bare");
      await expectEvent(env, "bare", "PodNotLabelled", /pod bare-0/);
      const still = await env.core.readNamespacedPod({ namespace: env.namespace, name: "bare-0" });
      expect(still.metadata?.uid).toBe(bare.metadata?.uid);
      expect(still.metadata?.ownerReferences).toBeUndefined();

      await env.core.deleteNamespacedPod({ namespace: env.namespace, name: "bare-0", gracePeriodSeconds: 0 });
      const p = await waitRolledOut(env, "bare", 1);
      expect(condition(p, ConditionTypes.petConflict)).toBeUndefined();
    },
    TEST_MS,
  );

  it(
    "a pod whose labels stop matching is released; a replacement comes once the released pod is gone",
    async () => {
      await createPetSet(env, petSetManifest("rel"));
      await waitRolledOut(env, "rel", 1);
      const before = await env.core.readNamespacedPod({ namespace: env.namespace, name: "rel-2" });
      await env.core.patchNamespacedPod(
        { namespace: env.namespace, name: "rel-2", body: { metadata: { labels: { app: "debug" } } } },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      );
      const released = await withDiagnostics(env, "rel", () =>
        eventually(
          "rel-2 released",
          async () => {
            const pod = await env.core.readNamespacedPod({ namespace: env.namespace, name: "rel-2" });
            return (pod.metadata?.ownerReferences ?? []).length === 0 ? pod : undefined;
          },
          WAIT_MS,
        ),
      );
      expect(released.metadata?.uid).toBe(before.metadata?.uid);
      expect(released.metadata?.deletionTimestamp).toBeUndefined();
      await expectEvent(env, "rel", "Released", /pod rel-2/);
      const c = await eventually("PetConflict on rel", () => petConflict("rel"), WAIT_MS);
      expect(c?.reason).toBe("PodNotSelected");

      // The name is the pet's identity: the replacement waits until the user removes the pod.
      await env.core.deleteNamespacedPod({ namespace: env.namespace, name: "rel-2", gracePeriodSeconds: 0 });
      const p = await waitRolledOut(env, "rel", 1);
      const replacement = (await listPods(env, "rel")).find((pod) => pod.metadata?.name === "rel-2");
      expect(replacement?.metadata?.uid).not.toBe(before.metadata?.uid);
      expect(controllerUid(replacement ?? {})).toBe(p.metadata.uid);
      expect(condition(p, ConditionTypes.petConflict)).toBeUndefined();
    },
    TEST_MS,
  );
});
