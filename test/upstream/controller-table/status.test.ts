/**
 * Upstream's status tests re-expressed: TestStatefulSetStatusUpdate (the status is written
 * even when the sync fails, and the sync's error is the one returned) and
 * TestStatefulSetAvailability (minReadySeconds decides availableReplicas).
 */
import { describe, expect, it } from "vitest";
import { scaleUp } from "./drive.js";
import { assertBurstInvariants } from "./invariants.js";
import { apiError, newPetSet, seededPick, TableWorld } from "./world.js";

describe("TestStatefulSetStatusUpdate", () => {
  const cases = [
    { desc: "no error", syncErr: false, statusErr: false, expected: undefined },
    { desc: "sync error", syncErr: true, statusErr: false, expected: "sync error" },
    { desc: "status error", syncErr: false, statusErr: true, expected: "status error" },
    { desc: "sync and status error", syncErr: true, statusErr: true, expected: "sync error" },
  ];
  for (const tc of cases) {
    it(`TestStatefulSetStatusUpdate/${tc.desc}`, async () => {
      const w = new TableWorld(newPetSet({ replicas: 3 }));
      if (tc.syncErr) w.fake.failOn("createPod", 1, apiError(500, "InternalError", "sync error"));
      if (tc.statusErr) w.fake.failOn("status", 1, apiError(500, "InternalError", "status error"));
      const out = await w.sync();
      expect(w.count("status")).toBe(1);
      if (tc.expected === undefined) expect(out.error).toBeUndefined();
      else expect(String(out.error)).toContain(tc.expected);
    });
  }
});

describe("TestStatefulSetAvailability", () => {
  const HOUR_MS = 3_600_000;
  const cases = [
    {
      name: "replicas running for required time, when minReadySeconds is enabled",
      readyFor: 120 * 60_000,
      expectedActiveReplicas: 1,
    },
    {
      name: "replicas not running for required time, when minReadySeconds is enabled",
      readyFor: 30 * 60_000,
      expectedActiveReplicas: 0,
    },
  ];
  for (const tc of cases) {
    it(`TestStatefulSetAvailability/${tc.name}`, async () => {
      const w = new TableWorld(newPetSet({ replicas: 1, minReadySeconds: HOUR_MS / 1000 }));
      expect(await scaleUp(w, assertBurstInvariants, seededPick(7))).toBeUndefined();
      w.setPodReady(0, w.fake.now - tc.readyFor);
      expect((await w.sync()).error).toBeUndefined();
      expect(w.status().availableReplicas).toBe(tc.expectedActiveReplicas);
    });
  }
});
