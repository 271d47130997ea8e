/**
 * Upstream's TestStatefulSetControlRollingUpdateWithMaxUnavailable (6 pets, partition 3,
 * maxUnavailable 2, step by step in OrderedReady and Parallel) and
 * TestStatefulSetControlRollingUpdateWithMaxUnavailableInOrderedModeVerifyInvariant (pets
 * already unavailable count against maxUnavailable, also those below the partition).
 */
import { describe, expect, it } from "vitest";
import { scaleUp } from "./drive.js";
import { assertBurstInvariants } from "./invariants.js";
import { newPetSet, ordinalOf, seededPick, TableWorld } from "./world.js";

const names = (w: TableWorld) => w.pods().map((p) => ordinalOf(p));

async function syncOk(w: TableWorld): Promise<void> {
  expect((await w.sync()).error).toBeUndefined();
}

async function setup(burst: boolean): Promise<TableWorld> {
  const w = new TableWorld(newPetSet({ replicas: 6, burst, partition: 3, maxUnavailable: 2 }));
  expect(await scaleUp(w, assertBurstInvariants, seededPick(burst ? 11 : 12))).toBeUndefined();
  return w;
}

describe("TestStatefulSetControlRollingUpdateWithMaxUnavailable", () => {
  for (const burst of [false, true]) {
    it(`TestStatefulSetControlRollingUpdateWithMaxUnavailable/${burst ? "Parallel" : "OrderedReady"}`, async () => {
      const w = await setup(burst);
      w.setImage("foo");
      // maxUnavailable 2: pets 5 and 4 go at once.
      await syncOk(w);
      expect(names(w)).toEqual([0, 1, 2, 3]);
      await syncOk(w);
      if (burst) {
        // Both come back at once; once 4 is Ready, 3 goes although 5 is not Ready yet.
        expect(names(w)).toEqual([0, 1, 2, 3, 4, 5]);
        w.setPodRunning(4);
        w.setPodRunning(5);
        w.setPodReady(4);
        await syncOk(w);
        expect(names(w)).toEqual([0, 1, 2, 4, 5]);
      } else {
        // OrderedReady: one pet created at a time.
        expect(names(w)).toEqual([0, 1, 2, 3, 4]);
        w.setPodRunning(4);
        w.setPodReady(4);
        await syncOk(w);
        expect(names(w)).toEqual([0, 1, 2, 3, 4, 5]);
        w.setPodRunning(5);
        w.setPodReady(5);
        await syncOk(w);
        expect(names(w)).toEqual([0, 1, 2, 4, 5]);
      }
      await syncOk(w);
      expect(names(w)).toEqual([0, 1, 2, 3, 4, 5]);
      // 3, 4 and 5 Ready at the new version: the pets below the partition stay.
      w.setPodRunning(3);
      w.setPodReady(3);
      w.setPodReady(5);
      const before = w.pods().map((p) => p.metadata?.uid);
      await syncOk(w);
      expect(w.pods().map((p) => p.metadata?.uid)).toEqual(before);
      expect(w.pods().map((p) => p.spec?.containers[0]?.image)).toEqual([
        "nginx",
        "nginx",
        "nginx",
        "foo",
        "foo",
        "foo",
      ]);
    });
  }
});

describe("TestStatefulSetControlRollingUpdateWithMaxUnavailableInOrderedModeVerifyInvariant", () => {
  const cases = [[], [5], [3], [4], [5, 4], [5, 3], [4, 3], [5, 4, 3], [2], [1]];
  for (const terminating of cases) {
    it(`TestStatefulSetControlRollingUpdateWithMaxUnavailableInOrderedModeVerifyInvariant/terminating pod at ordinal [${terminating.join(" ")}]`, async () => {
      const w = await setup(false);
      for (const o of terminating) w.setPodTerminating(o);
      w.setImage("foo");
      const deletes = w.count("deletePod");
      await syncOk(w);
      // Upstream's bound: unavailable pets (terminating ones, below the partition too) use up
      // maxUnavailable. Upstream calls the update step alone and sees exactly that many
      // deletes; petset's whole sync waits in OrderedReady until a terminating pet is gone
      // before moving another, as upstream's UpdateStatefulSet does (processReplica).
      const bound = Math.max(0, 2 - terminating.length);
      const expectedDeletes = terminating.length > 0 ? 0 : bound;
      expect(w.count("deletePod") - deletes).toBe(expectedDeletes);
      expect(w.pods()).toHaveLength(6 - expectedDeletes);
    });
  }
});
