/**
 * Kubernetes' controller-level StatefulSet tests (pkg/controller/statefulset/stateful_set_test.go)
 * that are about what a sync does, re-expressed on the same in-process world: termination,
 * a PetSet being deleted, adoption and release of pods and versions, claim ownership when
 * orphans are adopted, and a scale-up after a scale-down that deleted claims.
 */
import type { KubernetesObject, V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { scaleDown, scaleUp } from "./drive.js";
import { assertMonotonicInvariants } from "./invariants.js";
import { NS, newPetSet, ordinalOf, POLICIES, SET_UID, seededPick, TableWorld } from "./world.js";

async function upTo(replicas: number, seed: number, policy = POLICIES[0]?.policy): Promise<TableWorld> {
  const w = new TableWorld(newPetSet({ replicas, policy }));
  expect(await scaleUp(w, assertMonotonicInvariants, seededPick(seed))).toBeUndefined();
  return w;
}

/** A pod edited behind the controller's back (a new resourceVersion). */
function edit(w: TableWorld, ordinal: number, change: (pod: V1Pod) => void): void {
  const pod = structuredClone(w.pod(ordinal) as V1Pod);
  change(pod);
  pod.metadata = { ...pod.metadata, resourceVersion: w.fake.nextRv() };
  if (pod.metadata.name !== `foo-${ordinal}`) w.removePod(ordinal);
  w.fake.pods.put(pod);
}

const controlled = (pod: V1Pod | undefined) =>
  (pod?.metadata?.ownerReferences ?? []).some((r) => r.controller && r.uid === SET_UID);

describe("stateful_set_test.go", () => {
  it("TestStatefulSetControllerCreates", async () => {
    const w = await upTo(3, 1100);
    expect(w.status().replicas).toBe(3);
  });

  it("TestStatefulSetControllerDeletes", async () => {
    const w = await upTo(3, 1101);
    w.update((s) => {
      s.replicas = 0;
    });
    expect(await scaleDown(w, assertMonotonicInvariants)).toBeUndefined();
    expect(w.status().replicas).toBe(0);
  });

  it("TestStatefulSetControllerRespectsTermination", async () => {
    const w = await upTo(3, 1102);
    // Terminating pods of ordinals 3 and 4 (above the range): left to finish, never replaced.
    for (const o of [3, 4]) {
      const pod = structuredClone(w.pod(2) as V1Pod);
      pod.metadata = {
        ...pod.metadata,
        name: `foo-${o}`,
        uid: `uid-foo-${o}`,
        labels: { ...pod.metadata?.labels, "petset.dev/pod-index": String(o) },
        deletionTimestamp: new Date(w.fake.now),
        resourceVersion: w.fake.nextRv(),
      };
      w.fake.pods.put(pod);
    }
    expect((await w.sync()).error).toBeUndefined();
    expect(w.pods()).toHaveLength(5);
    w.finishTerminating();
    w.update((s) => {
      s.replicas = 0;
    });
    expect(await scaleDown(w, assertMonotonicInvariants)).toBeUndefined();
    expect(w.status().replicas).toBe(0);
  });

  it("TestStatefulSetControllerBlocksScaling", async () => {
    const w = await upTo(3, 1103);
    w.update((s) => {
      s.replicas = 5;
    });
    w.setPodTerminating(0);
    expect((await w.sync()).error).toBeUndefined();
    expect(w.pods()).toHaveLength(3);
    // The terminated pod leaves: the PetSet resumes and brings pet 0 back first.
    w.finishTerminating();
    expect((await w.sync()).error).toBeUndefined();
    expect(w.pods().map(ordinalOf)).toEqual([0, 1, 2]);
  });

  it("TestStatefulSetControllerDeletionTimestamp", async () => {
    const set = newPetSet({ replicas: 3 });
    set.metadata = { ...set.metadata, deletionTimestamp: new Date() };
    const w = new TableWorld(set);
    expect((await w.sync()).error).toBeUndefined();
    expect(w.pods()).toHaveLength(0);
  });

  it("TestStatefulSetControllerDeletionTimestampRace", async () => {
    const w = await upTo(2, 1104);
    // The cache says the PetSet lives; the API (an uncached read) says it is being deleted.
    edit(w, 1, (pod) => {
      pod.metadata = { ...pod.metadata, ownerReferences: [] };
    });
    w.fake.petSets.hold();
    const deleting = structuredClone(w.petSet());
    deleting.metadata = { ...deleting.metadata, deletionTimestamp: new Date(w.fake.now) };
    w.fake.petSets.put(deleting);
    expect((await w.sync()).error).toBeUndefined();
    expect(controlled(w.pod(1))).toBe(false);
    expect(w.pods()).toHaveLength(2);
  });

  it("TestGetPodsForStatefulSetAdopt", async () => {
    const w = await upTo(5, 1105);
    // foo-2: an orphan with matching labels and name; foo-3: wrong labels; xfoo-4: wrong name.
    edit(w, 2, (pod) => {
      pod.metadata = { ...pod.metadata, ownerReferences: [] };
    });
    edit(w, 3, (pod) => {
      pod.metadata = { ...pod.metadata, ownerReferences: [], labels: { "petset.dev/petset": "foo" } };
    });
    edit(w, 4, (pod) => {
      pod.metadata = { ...pod.metadata, name: "xfoo-4", ownerReferences: [] };
    });
    for (let i = 0; i < 3; i++) expect((await w.sync()).error).toBeUndefined();
    expect(controlled(w.pod(1))).toBe(true);
    expect(controlled(w.pod(2))).toBe(true);
    expect(controlled(w.pod(3))).toBe(false);
    expect(controlled(w.fake.pods.live("xfoo-4", NS))).toBe(false);
    expect(w.fake.calls.filter((c) => c.verb === "setPodOwners").map((c) => c.name)).toEqual(["foo-2"]);
  });

  it("TestGetPodsForStatefulSetRelease", async () => {
    const w = await upTo(3, 1106);
    // xfoo-2: owned, wrong name; foo-1: owned, wrong labels; foo-0 stays a pet.
    edit(w, 2, (pod) => {
      pod.metadata = { ...pod.metadata, name: "xfoo-2" };
    });
    edit(w, 1, (pod) => {
      pod.metadata = { ...pod.metadata, labels: { "petset.dev/petset": "foo" } };
    });
    expect((await w.sync()).error).toBeUndefined();
    expect(controlled(w.pod(0))).toBe(true);
    expect(controlled(w.fake.pods.live("xfoo-2", NS))).toBe(false);
    expect(controlled(w.pod(1))).toBe(false);
  });

  it("TestAdoptOrphanRevisions", async () => {
    const w = await upTo(1, 1107);
    w.setImage("nginx-2");
    expect((await w.sync()).error).toBeUndefined();
    const v2 = structuredClone(w.fake.versions.live("foo-v2", NS) as KubernetesObject);
    v2.metadata = { ...v2.metadata, ownerReferences: [], resourceVersion: w.fake.nextRv() };
    w.fake.versions.put(v2);
    expect((await w.sync()).error).toBeUndefined();
    const adopted = w.fake.versions.live("foo-v2", NS);
    expect(adopted?.metadata?.ownerReferences?.some((r) => r.controller && r.uid === SET_UID)).toBe(true);
  });

  /**
   * Upstream: claims of condemned pods get a pod ownerReference. Differs by design: petset
   * deletes them itself once the pod is gone (whenScaled=Delete) and never puts a pod
   * reference on a claim; the set reference follows whenDeleted, also for adopted orphans.
   */
  for (const { name, policy } of POLICIES.slice(0, 4)) {
    it(`TestOrphanedPodsWithPVCDeletePolicy/${name}`, async () => {
      const w = await upTo(2, 1108, policy);
      edit(w, 1, (pod) => {
        pod.metadata = { ...pod.metadata, ownerReferences: [] };
      });
      expect((await w.sync()).error).toBeUndefined();
      expect(controlled(w.pod(1))).toBe(true);
      w.update((s) => {
        s.replicas = 0;
      });
      expect(await scaleDown(w, assertMonotonicInvariants)).toBeUndefined();
      const claims = w.claims();
      if (policy?.whenScaled === "Delete") expect(claims).toHaveLength(0);
      else expect(claims.map((c) => c.metadata?.name)).toEqual(["datadir-foo-0", "datadir-foo-1"]);
      for (const claim of claims) {
        const refs = claim.metadata?.ownerReferences ?? [];
        expect(refs.some((r) => r.kind === "Pod")).toBe(false);
        expect(refs.some((r) => r.uid === SET_UID)).toBe(policy?.whenDeleted === "Delete");
      }
    });
  }

  for (const { name, policy } of POLICIES.filter((p) => p.policy?.whenScaled === "Delete")) {
    it(`TestStaleOwnerRefOnScaleup/${name}`, async () => {
      const w = await upTo(3, 1109, policy);
      w.update((s) => {
        s.replicas = 2;
      });
      expect(await scaleDown(w, assertMonotonicInvariants)).toBeUndefined();
      // Upstream: the condemned claim carries a pod reference that goes stale. Here it is gone.
      expect(w.claim("datadir-foo-2")).toBeUndefined();
      w.update((s) => {
        s.replicas = 3;
      });
      expect(await scaleUp(w, assertMonotonicInvariants, seededPick(1110))).toBeUndefined();
      expect(w.status().replicas).toBe(3);
      expect(w.claim("datadir-foo-2")).toBeDefined();
    });
  }
});
