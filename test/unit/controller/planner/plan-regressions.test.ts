/**
 * Planner bugs found by the rollout integration tests (test/integration/rollout-*.test.ts),
 * each pinned by a table case so it stays fixed.
 */
import { describe, expect, it } from "vitest";
import { ProgressingReasons } from "../../../../src/api/index.js";
import { makePod, makeVersion } from "./fixtures.js";
import { at, changes, moves, NOW, plan, policies, progressing, v1, withPolicy } from "./plan-helpers.js";

describe.each(policies)("planRollout regressions, podManagementPolicy %s", (policy) => {
  const base = withPolicy(policy);

  it("ignores the versions of other PetSets in the namespace", () => {
    // rollout-update.test.ts: a second PetSet "two" was driven to "web"'s newest version 2.
    const other = { ...makeVersion(2, "app:2"), spec: { ...makeVersion(2, "app:2").spec, petSet: "other" } };
    const p = plan(base({ versions: [v1, other], pods: at(v1, [0, 1, 2]) }));
    expect(moves(p)).toEqual([]);
    expect(p.status).toMatchObject({ currentVersion: 1, updateVersion: 1 });
  });
});

describe.each(policies)("autoRollback tells the user first, podManagementPolicy %s", (policy) => {
  const base = withPolicy(policy);
  // rollout-broken.test.ts: with autoRollback the set went straight to RolledBack; no
  // ProgressDeadlineExceeded condition or Event ever showed why.
  const v2old = makeVersion(2, "app:2", { createdAt: NOW - 700_000 });
  const brokenPods = [
    ...at(v1, [0, 1], { targetVersion: 2 }),
    makePod(2, v2old, {
      ready: false,
      failing: "CrashLoopBackOff",
      createdAt: NOW - 700_000,
      targetVersion: 2,
    }),
  ];
  const settled = { currentVersion: 1, updateVersion: 2, lastCompleteVersion: 1 };

  it("first sync past the deadline: ProgressDeadlineExceeded, no rollback yet, wake at once", () => {
    const p = plan(
      base({ spec: { autoRollback: true }, versions: [v1, v2old], status: settled, pods: brokenPods }),
    );
    expect(progressing(p)).toMatchObject({
      status: "False",
      reason: ProgressingReasons.progressDeadlineExceeded,
    });
    expect(progressing(p)?.message).toMatch(/rolling back to version 1 \(spec.autoRollback\)/);
    expect(p.events.map((e) => e.reason)).toContain("ProgressDeadlineExceeded");
    expect(p.steps.some((s) => s.kind === "rollbackTo")).toBe(false);
    expect(p.requeueAfterMs).toBe(1);
  });

  it("next sync, with the condition in status: rolls back", () => {
    const first = plan(
      base({ spec: { autoRollback: true }, versions: [v1, v2old], status: settled, pods: brokenPods }),
    );
    const p = plan(
      base({
        spec: { autoRollback: true },
        versions: [v1, v2old],
        status: { ...settled, conditions: first.status.conditions },
        pods: brokenPods,
      }),
    );
    expect(changes(p)[0]).toMatchObject({ kind: "rollbackTo", version: 1, fromVersion: 2 });
    expect(progressing(p)).toMatchObject({ status: "False", reason: ProgressingReasons.rolledBack });
    expect(p.events.map((e) => e.reason)).toEqual(["RolledBack"]);
  });
});
