/**
 * Upstream "Non-retain StatefulSetPersistentVolumeClaimPolicy" (k8s.io/kubernetes v1.33.5
 * test/e2e/apps/statefulset.go) with PetSets: claims deleted with the set or on scale-down,
 * never a claim another controller owns, after re-adopting a pod, and stale owner references
 * left alone. The cases run at once in one namespace, one PetSet each.
 */
import { PatchStrategy, setHeaderOptions, type V1OwnerReference } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GROUP, PETSET_PLURAL, type PetSet, VERSION } from "../../src/api/index.js";
import { eventually } from "../support/cluster.js";
import {
  createPetSet,
  newPetSet,
  scale,
  startUpstreamEnv,
  TEST_MS,
  type UpstreamEnv,
  updatePetSet,
  verifyClaimsExist,
  WAIT_MS,
  waitForRunning,
} from "./upstream-support.js";

const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

let env: UpstreamEnv;
beforeAll(async () => {
  env = await startUpstreamEnv("upstream-pvc");
});
afterAll(async () => {
  await env?.stop();
});

const policy = (p: { whenDeleted?: string; whenScaled?: string }) => ({
  spec: { persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain", ...p } },
});
const claim = (name: string, i: number) => `datadir-${name}-${i}`;

/** Create, then WaitForRunningAndReady, as upstream does before each case's first check. */
async function create(name: string, replicas: number, p: { whenDeleted?: string; whenScaled?: string } = {}) {
  const set = await createPetSet(env, newPetSet(name, replicas, { claims: true, ...policy(p) }));
  await waitForRunning(env, name, replicas, replicas);
  return set;
}

const deletePetSet = (name: string) =>
  env.custom.deleteNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    plural: PETSET_PLURAL,
    namespace: env.namespace,
    name,
  });

const patchClaim = (name: string, body: Record<string, unknown>) =>
  env.core.patchNamespacedPersistentVolumeClaim({ name, namespace: env.namespace, body }, merge);

const ownerRefs = async (name: string) =>
  (await env.core.readNamespacedPersistentVolumeClaim({ name, namespace: env.namespace })).metadata
    ?.ownerReferences ?? [];

/** The parts of an ownerReference upstream compares (blockOwnerDeletion aside). */
const refKey = (r: V1OwnerReference) => `${r.kind}/${r.name}/${r.uid}/controller=${r.controller === true}`;

/** verifyStatefulSetPVCsExistWithOwnerRefs with wantSetRef=true, wantPodRef=false. */
async function claimsOwnedBySet(set: PetSet, ids: number[]) {
  await verifyClaimsExist(env, set.metadata.name ?? "", ids);
  await eventually(
    "claims owned by the PetSet",
    async () => {
      for (const i of ids) {
        const refs = await ownerRefs(claim(set.metadata.name ?? "", i));
        if (!refs.some((r) => r.kind === "PetSet" && r.uid === set.metadata.uid)) return undefined;
        if (refs.some((r) => r.kind === "Pod")) return undefined;
      }
      return true;
    },
    WAIT_MS,
  );
}

async function configMapOwner(prefix: string) {
  const cm = await env.core.createNamespacedConfigMap({
    namespace: env.namespace,
    body: { metadata: { generateName: prefix } },
  });
  return { apiVersion: "v1", kind: "ConfigMap", name: cm.metadata?.name ?? "", uid: cm.metadata?.uid ?? "" };
}

const orphanPod = (name: string) =>
  env.core.patchNamespacedPod(
    { name, namespace: env.namespace, body: { metadata: { ownerReferences: [] } } },
    setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch),
  );

describe.concurrent("Non-retain StatefulSetPersistentVolumeClaimPolicy (PetSet)", () => {
  it("should delete PVCs with a WhenDeleted policy", { timeout: TEST_MS }, async () => {
    const name = "ss-wd";
    const set = await create(name, 3, { whenDeleted: "Delete" });
    await claimsOwnedBySet(set, [0, 1, 2]);
    await deletePetSet(name);
    await verifyClaimsExist(env, name, []);
  });

  it("should delete PVCs with a OnScaledown policy", { timeout: TEST_MS }, async () => {
    const name = "ss-ws";
    await create(name, 3, { whenScaled: "Delete" });
    await verifyClaimsExist(env, name, [0, 1, 2]);
    await scale(env, name, 1);
    await verifyClaimsExist(env, name, [0]);
  });

  it("should not delete PVC with OnScaledown policy if another controller owns the PVC", {
    timeout: TEST_MS,
  }, async () => {
    const name = "ss-other";
    await create(name, 3);
    await verifyClaimsExist(env, name, [0, 1, 2]);
    const dummy = await configMapOwner("dummy-controller");
    await patchClaim(claim(name, 1), { metadata: { ownerReferences: [{ ...dummy, controller: true }] } });
    await updatePetSet(env, name, policy({ whenScaled: "Delete" }));
    await scale(env, name, 0);
    await verifyClaimsExist(env, name, [1]);

    await patchClaim(claim(name, 1), { metadata: { ownerReferences: null } });
    await scale(env, name, 2);
    await verifyClaimsExist(env, name, [0, 1]);
    await scale(env, name, 1);
    await verifyClaimsExist(env, name, [0]);
  });

  it("should delete PVCs after adopting pod (WhenDeleted)", { timeout: TEST_MS }, async () => {
    const name = "ss-adopt-wd";
    const set = await create(name, 3, { whenDeleted: "Delete" });
    await claimsOwnedBySet(set, [0, 1, 2]);
    await orphanPod(`${name}-2`);
    await deletePetSet(name);
    await verifyClaimsExist(env, name, []);
  });

  it("should delete PVCs after adopting pod (WhenScaled)", { timeout: TEST_MS }, async () => {
    const name = "ss-adopt-ws";
    await create(name, 3, { whenScaled: "Delete" });
    await verifyClaimsExist(env, name, [0, 1, 2]);
    await orphanPod(`${name}-2`);
    await scale(env, name, 1);
    await verifyClaimsExist(env, name, [0]);
  });

  it("should not delete PVCs when there is another controller", { timeout: TEST_MS }, async () => {
    const name = "ss-stale";
    const set = await create(name, 4);
    await verifyClaimsExist(env, name, [0, 1, 2, 3]);
    const external = await configMapOwner("random-owner");
    // claim 1: one more (non-controller) owner; claim 3: a stale PetSet controller reference,
    // with a finalizer so that the garbage collector cannot remove the claim
    const stale = {
      apiVersion: "petset.dev/v1alpha1",
      kind: "PetSet",
      name: "unknown",
      uid: "9d86d6ae-4e06-4ff1-bc55-f77f52e272e9",
      controller: true,
      blockOwnerDeletion: true,
    };
    await patchClaim(claim(name, 1), { metadata: { ownerReferences: [external] } });
    await patchClaim(claim(name, 3), {
      metadata: { ownerReferences: [stale], finalizers: ["keep-with/stale-ref"] },
    });
    try {
      const ours = { kind: "PetSet", name, uid: set.metadata.uid ?? "", controller: true };
      const expectRefs = (i: number, want: Omit<V1OwnerReference, "apiVersion">[]) =>
        eventually(
          `ownerReferences of ${claim(name, i)}`,
          async () => {
            const got = (await ownerRefs(claim(name, i))).map(refKey);
            return JSON.stringify(got) === JSON.stringify(want.map((r) => refKey(r as V1OwnerReference)))
              ? true
              : undefined;
          },
          WAIT_MS,
        );
      await expectRefs(1, [external]);
      await expectRefs(3, [stale]);

      // a retention policy that deletes: the claims resync
      await updatePetSet(env, name, policy({ whenDeleted: "Delete" }));
      await expectRefs(0, [ours]);
      await expectRefs(2, [ours]);
      await expectRefs(1, [external, ours]);
      await expectRefs(3, [stale]);

      // the controller flag removed from claim 0 comes back on the next sync
      await patchClaim(claim(name, 0), {
        metadata: {
          ownerReferences: [
            { apiVersion: "petset.dev/v1alpha1", ...ours, controller: false, blockOwnerDeletion: true },
          ],
        },
      });
      await updatePetSet(env, name, policy({ whenDeleted: "Delete", whenScaled: "Delete" }));
      await expectRefs(0, [ours]);

      // deleting the PetSet deletes claims 0 and 2, not 1 (another owner) nor 3 (stale controller)
      await deletePetSet(name);
      await verifyClaimsExist(env, name, [1, 3]);
      expect((await ownerRefs(claim(name, 3))).map(refKey)).toEqual([refKey(stale)]);
    } finally {
      await patchClaim(claim(name, 3), { metadata: { finalizers: null } }).catch(() => {});
    }
  });
});
