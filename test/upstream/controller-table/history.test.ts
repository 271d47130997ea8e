/**
 * Upstream's history cases re-expressed for versions as resources: TestStatefulSetHonorRevisionHistoryLimit,
 * TestStatefulSetControlLimitsHistory and TestStatefulSetControl_getSetRevisions. Petset keeps
 * the live versions (current, update, last complete, newest, those pods run: at most two
 * contents under SPEC rule 2) plus revisionHistoryLimit more (SPEC rule 6, src/gc/select.ts),
 * so upstream's bound "limit + 2" holds as it is.
 */
import { describe, expect, it } from "vitest";
import type { PetSetVersion } from "../../../src/api/index.js";
import { scaleUp, updateControl } from "./drive.js";
import { assertBurstInvariants, assertMonotonicInvariants, assertUpdateInvariants } from "./invariants.js";
import { internalError, newPetSet, POLICIES, type SetOptions, seededPick, TableWorld } from "./world.js";

const versions = (w: TableWorld) =>
  (w.fake.versions.liveList() as unknown as PetSetVersion[]).sort((a, b) => a.spec.version - b.spec.version);

describe("TestStatefulSetHonorRevisionHistoryLimit", () => {
  POLICIES.forEach(({ name, policy }, p) => {
    it(`TestStatefulSetHonorRevisionHistoryLimit/${name}`, async () => {
      const w = new TableWorld(newPetSet({ replicas: 3, policy }));
      const pick = seededPick(700 + p);
      expect(await scaleUp(w, assertMonotonicInvariants, pick)).toBeUndefined();
      const limit = w.spec().revisionHistoryLimit ?? 10;
      for (let i = 0; i < limit + 5; i++) {
        w.setImage(`foo-${i}`);
        // Every update's next status write fails; history is collected all the same.
        w.fake.failOn("status", w.count("status") + 1, internalError());
        await updateControl(w, assertUpdateInvariants, pick);
        expect(versions(w).length).toBeLessThanOrEqual(limit + 2);
      }
    });
  });
});

describe("TestStatefulSetControlLimitsHistory", () => {
  const cases: { name: string; options: Partial<SetOptions> }[] = [
    { name: "monotonic update", options: {} },
    { name: "burst update", options: { burst: true } },
    { name: "zero revisionHistoryLimit", options: { revisionHistoryLimit: 0 } },
    { name: "positive revisionHistoryLimit", options: { revisionHistoryLimit: 5 } },
  ];
  cases.forEach((tc, c) => {
    it(`TestStatefulSetControlLimitsHistory/${tc.name}`, async () => {
      const w = new TableWorld(newPetSet({ replicas: 3, ...tc.options }));
      const pick = seededPick(800 + c);
      const invariant = tc.options.burst ? assertBurstInvariants : assertMonotonicInvariants;
      expect(await scaleUp(w, invariant, pick)).toBeUndefined();
      const limit = w.spec().revisionHistoryLimit ?? 10;
      for (let i = 0; i < 10; i++) {
        w.setImage(`foo-${i}`);
        expect(await updateControl(w, assertUpdateInvariants, pick)).toBeUndefined();
        expect((await w.sync()).error).toBeUndefined();
        expect(versions(w).length).toBeLessThanOrEqual(limit + 2);
      }
      // Numbers only grow (SPEC rule 1): the newest is version 11 whatever was collected.
      expect(versions(w).at(-1)?.spec.version).toBe(11);
    });
  });

  // Differs by design: upstream keeps every revision when the limit is negative; petset's
  // schema requires revisionHistoryLimit >= 0, so the sync refuses the spec, naming the field.
  it("TestStatefulSetControlLimitsHistory/negative revisionHistoryLimit", async () => {
    const w = new TableWorld(newPetSet({ replicas: 3, revisionHistoryLimit: -2 }));
    expect((await w.sync()).error).toBeUndefined();
    expect(w.pods()).toHaveLength(0);
    const progressing = w.status().conditions?.find((c) => c.type === "Progressing");
    expect(progressing).toMatchObject({ status: "False", reason: "InvalidSpec" });
    expect(progressing?.message).toContain("revisionHistoryLimit");
  });
});

describe("TestStatefulSetControl_getSetRevisions", () => {
  async function world(): Promise<TableWorld> {
    const w = new TableWorld(newPetSet({ replicas: 3 }));
    expect((await w.sync()).error).toBeUndefined();
    return w;
  }
  const summary = (w: TableWorld) => versions(w).map((v) => [v.spec.version, v.spec.rollbackOf ?? null]);

  it("TestStatefulSetControl_getSetRevisions/creates initial revision", async () => {
    const w = await world();
    expect(summary(w)).toEqual([[1, null]]);
    expect([w.status().currentVersion, w.status().updateVersion]).toEqual([1, 1]);
  });

  it("TestStatefulSetControl_getSetRevisions/creates revision on update", async () => {
    const w = await world();
    w.setImage("foo");
    expect((await w.sync()).error).toBeUndefined();
    expect(summary(w)).toEqual([
      [1, null],
      [2, null],
    ]);
    expect([w.status().currentVersion, w.status().updateVersion]).toEqual([1, 2]);
  });

  it("TestStatefulSetControl_getSetRevisions/must not recreate a new revision of same set", async () => {
    const w = await world();
    // The same content written again (a new generation, e.g. a replicas change).
    w.update((s) => {
      s.replicas = 3;
    });
    expect((await w.sync()).error).toBeUndefined();
    expect(summary(w)).toEqual([[1, null]]);
  });

  // Differs by design (SPEC rule 1): upstream renumbers revision 1 to 3; petset records
  // version 3 with rollbackOf 1 and keeps version 1 as it was.
  it("TestStatefulSetControl_getSetRevisions/must rollback to a previous revision", async () => {
    const w = await world();
    w.setImage("foo");
    expect((await w.sync()).error).toBeUndefined();
    w.setImage("nginx");
    expect((await w.sync()).error).toBeUndefined();
    expect(summary(w)).toEqual([
      [1, null],
      [2, null],
      [3, 1],
    ]);
    expect(w.status().updateVersion).toBe(3);
  });
});
