/**
 * Upstream's update families re-expressed: TestStatefulSetControlRollingUpdate,
 * TestStatefulSetControlOnDeleteUpdate, TestStatefulSetControlRollingUpdateWithPartition and
 * TestStatefulSetControlRollback. Each drives the update with random pod state changes and
 * checks assertUpdateInvariants after every sync (drive.ts). A rollback is a new version with
 * rollbackOf (SPEC rule 1), where upstream renumbers the old ControllerRevision.
 */
import { describe, expect, it } from "vitest";
import { scaleDown, scaleUp, updateControl } from "./drive.js";
import {
  assertBurstInvariants,
  assertMonotonicInvariants,
  assertUpdateInvariants,
  type Invariant,
} from "./invariants.js";
import {
  newPetSet,
  ORIGINAL_IMAGE,
  POLICIES,
  podImage,
  type RetentionPolicy,
  type SetOptions,
  seededPick,
  TableWorld,
} from "./world.js";

interface UpdateCase {
  name: string;
  burst: boolean;
  initial: number;
  replicas: number;
}

/** The six cases every update family runs: monotonic/burst × image, +scale up, +scale down. */
const UPDATE_CASES: readonly UpdateCase[] = [
  { name: "monotonic image update", burst: false, initial: 3, replicas: 3 },
  { name: "monotonic image update and scale up", burst: false, initial: 3, replicas: 5 },
  { name: "monotonic image update and scale down", burst: false, initial: 5, replicas: 3 },
  { name: "burst image update", burst: true, initial: 3, replicas: 3 },
  { name: "burst image update and scale up", burst: true, initial: 3, replicas: 5 },
  { name: "burst image update and scale down", burst: true, initial: 5, replicas: 3 },
];

const invariantOf = (burst: boolean): Invariant =>
  burst ? assertBurstInvariants : assertMonotonicInvariants;

async function upThenUpdate(tc: UpdateCase, options: Partial<SetOptions>, seed: number): Promise<TableWorld> {
  const w = new TableWorld(newPetSet({ replicas: tc.initial, burst: tc.burst, ...options }));
  const pick = seededPick(seed);
  expect(await scaleUp(w, invariantOf(tc.burst), pick)).toBeUndefined();
  w.update((s) => {
    s.replicas = tc.replicas;
    const c = s.template.spec.containers[0];
    if (c) c.image = "foo";
  });
  expect(await updateControl(w, assertUpdateInvariants, pick)).toBeUndefined();
  return w;
}

const images = (w: TableWorld) => w.pods().map(podImage);

describe("TestStatefulSetControlRollingUpdate", () => {
  UPDATE_CASES.forEach((tc, i) => {
    it(`TestStatefulSetControlRollingUpdate/${tc.name}`, async () => {
      const w = await upThenUpdate(tc, {}, 100 + i);
      expect(images(w)).toEqual(Array(tc.replicas).fill("foo"));
    });
  });
});

describe("TestStatefulSetControlOnDeleteUpdate", () => {
  const forPolicies = (run: (policy: RetentionPolicy | null, name: string) => void) => {
    for (const { name, policy } of POLICIES) run(policy, name);
  };
  forPolicies((policy, policyName) => {
    UPDATE_CASES.forEach((tc, i) => {
      it(`TestStatefulSetControlOnDeleteUpdate/${policyName}/${tc.name}`, async () => {
        const w = await upThenUpdate(tc, { onDelete: true, policy }, 200 + i);
        // OnDelete: running pets keep the old image; pets created by the scale-up get the new.
        expect(images(w)).toEqual(
          Array.from({ length: tc.replicas }, (_, o) => (o < tc.initial ? ORIGINAL_IMAGE : "foo")),
        );
        for (const claim of w.claims())
          expect(claim.metadata?.ownerReferences?.some((r) => r.kind === "Pod") ?? false).toBe(false);
        // Down to zero and back: every pet comes back at the new version.
        w.update((s) => {
          s.replicas = 0;
        });
        expect(await scaleDown(w, invariantOf(tc.burst))).toBeUndefined();
        w.update((s) => {
          s.replicas = tc.replicas;
        });
        expect(await scaleUp(w, invariantOf(tc.burst), seededPick(300 + i))).toBeUndefined();
        expect(images(w)).toEqual(Array(tc.replicas).fill("foo"));
      });
    });
  });
});

describe("TestStatefulSetControlRollingUpdateWithPartition", () => {
  const cases = UPDATE_CASES.filter((tc) => !tc.name.endsWith("scale down"));
  for (const { name: policyName, policy } of POLICIES) {
    cases.forEach((tc, i) => {
      it(`TestStatefulSetControlRollingUpdateWithPartition/${policyName}/${tc.name}`, async () => {
        const w = await upThenUpdate(tc, { partition: 2, policy }, 400 + i);
        expect(images(w)).toEqual(
          Array.from({ length: tc.replicas }, (_, o) => (o < 2 ? ORIGINAL_IMAGE : "foo")),
        );
      });
    });
  }
});

describe("TestStatefulSetControlRollback", () => {
  UPDATE_CASES.forEach((tc, i) => {
    it(`TestStatefulSetControlRollback/${tc.name}`, async () => {
      const w = await upThenUpdate(tc, {}, 500 + i);
      expect(images(w)).toEqual(Array(tc.replicas).fill("foo"));
      // Upstream applies its oldest ControllerRevision back onto the set; here the user writes
      // the old template again.
      w.setImage(ORIGINAL_IMAGE);
      expect(await updateControl(w, assertUpdateInvariants, seededPick(600 + i))).toBeUndefined();
      expect(images(w)).toEqual(Array(tc.replicas).fill(ORIGINAL_IMAGE));
      // Differs by design (SPEC rule 1): the revert is version 3 with rollbackOf 1, not
      // revision 1 renumbered.
      const newest = w.fake.versions.live("foo-v3", "default") as
        | { spec?: { rollbackOf?: number } }
        | undefined;
      expect(newest?.spec?.rollbackOf).toBe(1);
      expect(w.status().updateVersion).toBe(3);
      expect(w.status().currentVersion).toBe(3);
    });
  });
});
