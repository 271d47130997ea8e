import { describe, expect, it } from "vitest";
import { ConditionTypes, ProgressingReasons } from "../../../../src/api/index.js";
import type { Plan } from "../../../../src/controller/planner/index.js";
import { makePod } from "./fixtures.js";
import { at, NOW, plan, progressing, v1, v2 } from "./plan-helpers.js";

describe("status", () => {
  it("counts replicas and reports a complete rollout", () => {
    const pods = [...at(v2, [0, 1]), makePod(2, v2, { ready: false, targetVersion: 2 })];
    const p = plan({ versions: [v1, v2], status: { currentVersion: 1, updateVersion: 2 }, pods });
    expect(p.status).toMatchObject({
      replicas: 3,
      readyReplicas: 2,
      availableReplicas: 2,
      updatedReplicas: 3,
      currentVersion: 2,
      updateVersion: 2,
      selector: "app=web",
      observedGeneration: 1,
    });
    const done = plan({ versions: [v1, v2], status: p.status, pods: at(v2, [0, 1, 2]) });
    expect(progressing(done)).toMatchObject({ status: "True", reason: ProgressingReasons.rolloutComplete });
    expect(done.status.lastCompleteVersion).toBe(2);
    expect(done.events.map((e) => e.reason)).toContain("RolloutComplete");
  });

  it("keeps lastTransitionTime while a condition's status stays the same", () => {
    const first = plan({
      versions: [v1, v2],
      status: { currentVersion: 1, updateVersion: 1 },
      pods: at(v1, [0, 1, 2]),
    });
    const later = plan({ versions: [v1, v2], status: first.status, pods: at(v1, [0, 1]), now: NOW + 5000 });
    const ltt = (p: Plan) => progressing(p)?.lastTransitionTime;
    expect(progressing(first)?.reason).toBe(ProgressingReasons.newVersionObserved);
    expect(progressing(later)?.reason).toBe(ProgressingReasons.rollingOut);
    expect(ltt(later)).toBe(ltt(first));
  });

  it("Available needs replicas - maxUnavailable available pets (at least one)", () => {
    const available = (p: Plan) =>
      p.status.conditions.find((c) => c.type === ConditionTypes.available)?.status;
    expect(available(plan({ pods: at(v1, [0, 1]) }))).toBe("True");
    expect(available(plan({ pods: at(v1, [0]) }))).toBe("False");
    expect(available(plan({ spec: { replicas: 1 }, pods: [] }))).toBe("False");
    expect(available(plan({ spec: { replicas: 0 }, pods: [] }))).toBe("True");
  });
});
