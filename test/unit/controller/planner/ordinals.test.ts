/**
 * spec.reserveOrdinals and scaleStrategy.maxUnavailable (issue 28): which ordinals the pets have
 * (ordinals.ts), pets moved as a scale would (create first, then the reserved one goes, through
 * preScaleDown), and rate-limited Parallel scaling (scale-budget.ts). Table tests, under both
 * pod management policies where the behaviour is the same.
 */
import { describe, expect, it } from "vitest";
import { petOrdinals, reservedRanges } from "../../../../src/controller/planner/ordinals.js";
import { makePetSet } from "./fixtures.js";
import { allRecords, hookSpec, hookSync, withHooks } from "./hook-sim.js";
import { at, moves, NOW, plan, policies, v1, v2, withPolicy } from "./plan-helpers.js";
import { createWorld, podsOf, runUntilConverged, tick, updateSpec } from "./simulate.js";

describe("issue 28: reserveOrdinals, the pets' ordinals (ordinals.ts)", () => {
  it.each([
    { start: 0, replicas: 3, reserve: [1], want: [0, 2, 3] },
    { start: 0, replicas: 3, reserve: ["1"], want: [0, 2, 3] },
    { start: 0, replicas: 4, reserve: [1, "3-5"], want: [0, 2, 6, 7] },
    { start: 0, replicas: 2, reserve: ["0-1", "1-2"], want: [3, 4] },
    { start: 5, replicas: 2, reserve: [0, 5], want: [6, 7] },
    { start: 0, replicas: 0, reserve: [0], want: [] },
    { start: 0, replicas: 2, reserve: ["2-1"], want: [0, 1] },
    { start: 0, replicas: 2, reserve: ["0-2000000000"], want: [2000000001, 2000000002] },
    { start: 0, replicas: 3, reserve: undefined, want: [0, 1, 2] },
  ])("start $start, replicas $replicas, reserve $reserve: $want", ({ start, replicas, reserve, want }) => {
    expect(petOrdinals(start, replicas, reserve)).toEqual(want);
  });

  it("merges overlapping and touching ranges", () => {
    expect(reservedRanges(["3-5", 1, "4-9", 2, 11])).toEqual([
      { from: 1, to: 9 },
      { from: 11, to: 11 },
    ]);
  });
});

describe.each(policies)("issue 28: reserveOrdinals in the plan (%s)", (policy) => {
  const p = withPolicy(policy);

  it("replicas 3, reserveOrdinals [1]: creates web-0, web-2, web-3", () => {
    const steps = moves(plan(p({ spec: { replicas: 3, reserveOrdinals: [1] } })));
    const want =
      policy === "Parallel" ? ["create web-0@v1", "create web-2@v1", "create web-3@v1"] : ["create web-0@v1"];
    expect(steps).toEqual(want);
  });

  it("OrderedReady order skips the reserved ordinal: web-2 follows web-0", () => {
    const steps = moves(plan(p({ spec: { replicas: 3, reserveOrdinals: [1] }, pods: at(v1, [0]) })));
    expect(steps).toContain("create web-2@v1");
    expect(steps).not.toContain("create web-1@v1");
  });

  it("reserving a running pet's ordinal creates its successor first; the reserved pod waits for it", () => {
    const steps = moves(plan(p({ spec: { replicas: 3, reserveOrdinals: [1] }, pods: at(v1, [0, 1, 2]) })));
    expect(steps).toEqual(["create web-3@v1"]);
  });

  it("once the successor is available, the reserved pod goes (scale-down)", () => {
    const steps = moves(plan(p({ spec: { replicas: 3, reserveOrdinals: [1] }, pods: at(v1, [0, 1, 2, 3]) })));
    expect(steps).toEqual(["delete web-1 (scale-down)"]);
  });

  it("scale --remove (replicas 3 -> 2, reserve [1]): web-1 goes, not web-2 (the exception to highest-first)", () => {
    const steps = moves(plan(p({ spec: { replicas: 2, reserveOrdinals: [1] }, pods: at(v1, [0, 1, 2]) })));
    expect(steps).toEqual(["delete web-1 (scale-down)"]);
  });

  it("a partition stays an ordinal bound with reserved ordinals", () => {
    const pods = at(v1, [0, 2, 3], { targetVersion: 1 });
    const steps = moves(
      plan(
        p({
          spec: {
            replicas: 3,
            reserveOrdinals: [1],
            updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 3 } },
          },
          versions: [v1, v2],
          status: { currentVersion: 1 },
          pods,
        }),
      ),
    );
    expect(steps).toEqual(["delete web-3 (update)"]);
  });
});

describe("issue 28: changing reserveOrdinals creates no version and leaves the status counts", () => {
  it("a move converges with the same single version, the reserved pod runs its preScaleDown", () => {
    const world = createWorld(
      makePetSet({ replicas: 3, podManagementPolicy: "Parallel", lifecycle: { preScaleDown: hookSpec() } }),
    );
    const hw = withHooks(world);
    expect(runUntilConverged(world)).toBeGreaterThanOrEqual(0);
    updateSpec(world, (s) => {
      s.reserveOrdinals = [1];
    });
    for (let t = 0; t < 60; t++) {
      hookSync(hw);
      tick(world);
    }
    expect(world.versions).toHaveLength(1);
    expect(podsOf(world).map((x) => x.name)).toEqual(["web-0", "web-2", "web-3"]);
    expect(
      allRecords(world)
        .filter((r) => r.hook === "preScaleDown")
        .map((r) => r.pod),
    ).toEqual(["web-1"]);
    // web-3 was Ready before web-1 went.
    const created = world.stepsApplied.findIndex((s) => s.kind === "createPod" && s.ordinal === 3);
    const deleted = world.stepsApplied.findIndex((s) => s.kind === "deletePod" && s.podName === "web-1");
    expect(created).toBeGreaterThanOrEqual(0);
    expect(deleted).toBeGreaterThan(created);
    expect(world.petSet.status?.replicas).toBe(3);
    expect(world.petSet.status?.readyReplicas).toBe(3);
    expect(hw.violations).toEqual([]);
    expect(world.violations).toEqual([]);
  });
});

describe("issue 28: scaleStrategy.maxUnavailable (Parallel)", () => {
  const spec = { podManagementPolicy: "Parallel" as const, scaleStrategy: { maxUnavailable: 2 } };

  it("creates at most N pets at once", () => {
    expect(moves(plan({ spec: { ...spec, replicas: 5 } }))).toEqual(["create web-0@v1", "create web-1@v1"]);
  });

  it("counts pets created and not yet available", () => {
    const pods = [...at(v1, [0]), ...at(v1, [1], { ready: false })];
    expect(moves(plan({ spec: { ...spec, replicas: 5 }, pods }))).toEqual(["create web-2@v1"]);
  });

  it("deletes at most N at once, highest first, counting pods being deleted", () => {
    const pods = [...at(v1, [0, 1, 2, 3]), ...at(v1, [5], { terminating: true, createdAt: NOW })];
    expect(moves(plan({ spec: { ...spec, replicas: 1 }, pods }))).toEqual(["delete web-3 (scale-down)"]);
  });

  it("without it Parallel scales all at once", () => {
    expect(moves(plan({ spec: { podManagementPolicy: "Parallel", replicas: 4 } }))).toHaveLength(4);
  });

  it("is ignored under OrderedReady (one pet at a time anyway)", () => {
    const steps = moves(
      plan({
        spec: { podManagementPolicy: "OrderedReady", scaleStrategy: { maxUnavailable: 3 }, replicas: 3 },
      }),
    );
    expect(steps).toEqual(["create web-0@v1"]);
  });
});
