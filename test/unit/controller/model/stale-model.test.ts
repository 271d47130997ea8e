/**
 * The model checker: random schedules of user actions, lagging per-object watches, syncs that
 * interleave with everything step by step, frozen and crashing replicas and lease handovers
 * (stale-model.ts), requests refused (429/503) or applied with their answer lost on any step,
 * with SPEC rules 1–3 and 7 checked after every change; and autoRollback
 * of a broken version under the same faults (each takeover judged from its own start). `make
 * test` runs a fixed-seed slice; `make model-check` runs it long (MODEL_RUNS, MODEL_SEED). The
 * schedules are schedule.ts's; roles, steps, partition and External: roles-steps-model.test.ts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { converged, setImage, updateSpec } from "../planner/simulate.js";
import { frozenLeaderResumes } from "./frozen-leader.js";
import {
  apply,
  FIXED_SEED,
  faultOnly,
  faultySchedule,
  newModel,
  RUNS,
  run,
  SEED,
  schedule,
  settle,
  setup,
} from "./schedule.js";
import {
  codeBeforeSafetyIssue,
  deliver,
  deliverAll,
  executeNext,
  feedKeys,
  fixedCode,
  leader,
  type Model,
  type ModelOptions,
  record,
  startSync,
  tick,
  userDelete,
} from "./stale-model.js";

describe("model checker: stale views, restarts, overlapping leaders", () => {
  it("autoRollback under stale views and takeovers: the rules hold, and once faults stop the broken version is rolled back", () => {
    fc.assert(
      fc.property(setup, fc.array(faultOnly, { minLength: 40, maxLength: 120 }), (s, actions) => {
        const m = newModel({ ...s, autoRollback: true }, fixedCode);
        expect(settle(m)).toBe(true); // a complete version to roll back to
        setImage(m.world, "bad:broken");
        record(m);
        for (const a of actions) apply(m, a);
        expect(m.violations).toEqual([]);
        // The broken version's pets never become Ready: converging means it was rolled back.
        expect(settle(m)).toBe(true);
        expect(m.violations).toEqual([]);
        const newest = m.world.versions.at(-1);
        expect(newest?.spec.rollbackOf).toBeDefined();
        expect(newest?.spec.template.spec.containers[0]?.image).not.toBe("bad:broken");
      }),
      { numRuns: RUNS, seed: SEED },
    );
  }, 900_000);

  it("the fixed controller keeps SPEC rules 1-3 and 7 after every step and converges once faults stop", () => {
    fc.assert(
      fc.property(setup, faultySchedule, (s, actions) => {
        const m = run(s, actions, fixedCode);
        expect(m.violations).toEqual([]);
        updateSpec(m.world, (spec) => {
          spec.paused = false;
          spec.updateStrategy.rollingUpdate = { ...spec.updateStrategy.rollingUpdate!, partition: 0 };
        });
        setImage(m.world, "app:final");
        record(m);
        const ok = settle(m);
        expect(m.violations).toEqual([]);
        expect(ok).toBe(true);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  }, 900_000);

  it("finds a violation in the code before the safety issue (two replicas: one writer)", () => {
    const result = fc.check(
      fc.property(setup, schedule, (s, actions) => {
        return run(s, actions, codeBeforeSafetyIssue).violations.length === 0;
      }),
      // A search with a known outcome: always the fixed seed, whatever MODEL_SEED says.
      { numRuns: 2000, seed: FIXED_SEED },
    );
    expect(result.failed).toBe(true);
  }, 900_000);
});

describe("model checker: one replica, stale views only", () => {
  // This search asked for a rule-2 or maxUnavailable violation and found one only through the
  // budget judge's own mistake (user-delete-mid-sync below: a disruption the watch delivered
  // after the plan was charged to it). With that fixed, 4 × 5000 runs of the old code find
  // none; rule 2 on stale views is parallel-create-not-yet-seen, the budget judge's planted
  // fault is in planted-faults.test.ts. Without expectations a sync plans on a view that lacks
  // its own writes: it records one change twice (SPEC rules 1 and 9).
  it("finds a change recorded twice in the code before the safety issue", () => {
    const result = fc.check(
      fc.property(
        setup,
        schedule,
        (s, actions) => run(s, actions, codeBeforeSafetyIssue, 1).violations.length === 0,
      ),
      { numRuns: 5000, seed: FIXED_SEED },
    );
    expect(result.failed).toBe(true);
    const [s, actions] = result.counterexample ?? [];
    const found =
      s === undefined || actions === undefined ? [] : run(s, actions, codeBeforeSafetyIssue, 1).violations;
    expect(found.join("\n")).toMatch(/record the same content/);
  }, 900_000);
});

describe("model checker regressions (counterexamples kept by name)", () => {
  /**
   * The issue's example (Parallel): a sync creates web-2 at v2; before that pod reaches the
   * cache, v3 is applied and web-1 is evicted; the next sync sees no Ready v2 pod, supersedes
   * v2 and creates web-1 at v3, so v1, v2 and v3 are live.
   */
  function parallelCreateNotYetSeen(opts: ModelOptions): Model {
    const m = newModel(
      { policy: "Parallel", maxUnavailable: 1, podUpdatePolicy: "Recreate", replicas: 3, readyTicks: 1 },
      opts,
    );
    const r = m.replicas[0]!;
    expect(leader(m)).toBe(r);
    const syncFully = () => {
      deliverAll(m, r);
      startSync(m, r);
      while (r.inflight !== undefined) executeNext(m, r);
    };
    for (let t = 0; t < 20 && !converged(m.world); t++) {
      syncFully();
      tick(m);
    }
    expect(converged(m.world)).toBe(true);
    setImage(m.world, "app:2");
    record(m);
    const web2AtV2 = () => m.world.pods.get("web-2")?.view.version === 2;
    for (let t = 0; t < 20 && !web2AtV2(); t++) {
      syncFully();
      if (!web2AtV2()) tick(m);
    }
    expect(web2AtV2()).toBe(true);
    // The watch of web-2 stalls; v3 arrives and web-1 is evicted, and those are seen.
    setImage(m.world, "app:3");
    userDelete(m, "web-1");
    tick(m);
    for (const key of feedKeys(m)) if (key !== "pod/web-2") for (let i = 0; i < 10; i++) deliver(m, r, key);
    startSync(m, r);
    while (r.inflight !== undefined) executeNext(m, r);
    return m;
  }

  it("parallel-create-not-yet-seen: the code before the fix runs three versions", () => {
    const m = parallelCreateNotYetSeen(codeBeforeSafetyIssue);
    expect(m.violations.join("\n")).toMatch(/3 versions live/);
  });

  it("parallel-create-not-yet-seen: with expectations the sync waits and the rollout converges", () => {
    const m = parallelCreateNotYetSeen(fixedCode);
    expect(m.violations).toEqual([]);
    expect(settle(m)).toBe(true);
    expect(m.violations).toEqual([]);
  });

  /**
   * Found by the roles × steps model check (MODEL_SEED=777): a sync plans an update of web-1
   * on a view where every pet is Ready; a user deletes web-0 and the replica's watch shows it
   * before the sync's delete of web-1 runs. The plan could not count that disruption: the
   * budget is judged on the view the plan read, not on what the watch delivered since.
   */
  it("user-delete-mid-sync: a disruption after the plan was made is not charged to it", () => {
    const m = newModel(
      { policy: "OrderedReady", maxUnavailable: 1, podUpdatePolicy: "Recreate", replicas: 2, readyTicks: 1 },
      fixedCode,
      1,
    );
    expect(settle(m)).toBe(true);
    const r = m.replicas[0]!;
    setImage(m.world, "app:2");
    record(m);
    deliverAll(m, r);
    startSync(m, r);
    while (r.inflight !== undefined && r.inflight.steps[0]?.kind !== "deletePod") executeNext(m, r);
    expect(r.inflight?.steps[0]).toMatchObject({ kind: "deletePod", podName: "web-1" });
    userDelete(m, "web-0");
    deliverAll(m, r);
    executeNext(m, r);
    expect(m.world.pods.get("web-1")?.view.deletionTimestamp).toBeDefined();
    expect(m.violations).toEqual([]);
  });

  it("frozen-leader-resumes: before the fix it keeps writing after the standby took over", () => {
    const { writesAfterResume } = frozenLeaderResumes(codeBeforeSafetyIssue);
    expect(writesAfterResume).toBeGreaterThan(0);
  });

  it("frozen-leader-resumes: with fencing it writes nothing", () => {
    const { m, writesAfterResume } = frozenLeaderResumes(fixedCode);
    expect(writesAfterResume).toBe(0);
    expect(m.violations).toEqual([]);
    expect(settle(m)).toBe(true);
    expect(m.violations).toEqual([]);
  });
});
