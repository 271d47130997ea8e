/**
 * Upstream's scaling cases: TestParallelScale (re-expressed: upstream asserts how many pod
 * creates run in parallel in its slow-start batches; petset's executor sends a plan's steps one
 * after another, so what is asserted is how many pets each sync creates or deletes, and
 * upstream's bound of two controller passes), TestStatefulSetControlWithStartOrdinal and
 * TestStatefulSetControlScaleDownDeleteError.
 */
import { describe, expect, it } from "vitest";
import { parallelScaleDown, parallelScaleUp, scaleDown, scaleUp } from "./drive.js";
import { assertBurstInvariants, assertMonotonicInvariants } from "./invariants.js";
import {
  internalError,
  isInternalError,
  newPetSet,
  ordinalOf,
  POLICIES,
  seededPick,
  TableWorld,
} from "./world.js";

describe("TestParallelScale", () => {
  const cases = [
    { desc: "scale up from 3 to 30", replicas: 3, desired: 30 },
    { desc: "scale down from 10 to 1", replicas: 10, desired: 1 },
    { desc: "scale down to 0", replicas: 501, desired: 0 },
    { desc: "scale up from 0", replicas: 0, desired: 1000 },
  ];
  for (const tc of cases) {
    it(`TestParallelScale/${tc.desc}`, async () => {
      const set = newPetSet({ replicas: tc.replicas, burst: true }) as {
        spec: { volumeClaimTemplates: { metadata: { labels?: Record<string, string> } }[] };
      };
      const template = set.spec.volumeClaimTemplates[0];
      if (template) template.metadata.labels = { test: "test" };
      const w = new TableWorld(set as never);
      // The first pass records version 1 (and creates every pet): its creates are counted too.
      await parallelScaleUp(w, assertBurstInvariants);
      if (tc.replicas === 0) expect((await w.sync()).error).toBeUndefined();
      expect(w.status().replicas).toBe(tc.replicas);
      w.update((s) => {
        s.replicas = tc.desired;
      });
      const diff = tc.desired - tc.replicas;
      const perSync =
        diff > 0
          ? await parallelScaleUp(w, assertBurstInvariants)
          : await parallelScaleDown(w, assertBurstInvariants);
      expect(w.status().replicas).toBe(tc.desired);
      expect(w.pods()).toHaveLength(tc.desired);
      // Parallel: one sync sends every create (or delete) the scale needs, none left for later.
      expect(perSync[0]).toBe(Math.abs(diff));
      expect(perSync.slice(1).every((n) => n === 0)).toBe(true);
      expect(w.claims().every((c) => c.metadata?.labels?.test === "test")).toBe(true);
    }, 60_000);
  }
});

describe("TestStatefulSetControlWithStartOrdinal", () => {
  it("TestStatefulSetControlWithStartOrdinal/CreatesPodsWithStartOrdinal", async () => {
    const w = new TableWorld(newPetSet({ replicas: 3, startOrdinal: 2 }));
    expect(await scaleUp(w, assertMonotonicInvariants, seededPick(900))).toBeUndefined();
    const st = w.status();
    expect([st.replicas, st.readyReplicas, st.updatedReplicas]).toEqual([3, 3, 3]);
    expect(w.pods().map(ordinalOf)).toEqual([2, 3, 4]);
  });
});

describe("TestStatefulSetControlScaleDownDeleteError", () => {
  POLICIES.forEach(({ name, policy }, p) => {
    it(`TestStatefulSetControlScaleDownDeleteError/${name}`, async () => {
      const w = new TableWorld(newPetSet({ replicas: 3, policy }));
      expect(await scaleUp(w, assertMonotonicInvariants, seededPick(910 + p))).toBeUndefined();
      w.update((s) => {
        s.replicas = 0;
      });
      w.fake.failOn("deletePod", w.count("deletePod") + 2, internalError());
      expect(isInternalError(await scaleDown(w, assertMonotonicInvariants))).toBe(true);
      expect(await scaleDown(w, assertMonotonicInvariants)).toBeUndefined();
      const st = w.status();
      expect([st.replicas, st.readyReplicas, st.updatedReplicas]).toEqual([0, 0, 0]);
    });
  });
});
