/**
 * Status is derived, not remembered (version-facts.ts): the facts a plan records on versions,
 * what the planner reads back from them when the PetSet status was wiped, and, through the
 * simulator, that a wipe at chosen points of a rollout changes nothing after one sync.
 */
import { describe, expect, it } from "vitest";
import { ProgressingReasons } from "../../../../src/api/index.js";
import type { Plan } from "../../../../src/controller/planner/index.js";
import { makePetSet, makePod, makeVersion } from "./fixtures.js";
import { at, facts, moves, NOW, plan, policies, progressing, v1, v2, withPolicy } from "./plan-helpers.js";
import { createWorld, runUntilConverged, setImage, sync, tick, updateSpec, type World } from "./simulate.js";
import { comparableStatus, preview, wipeStatus } from "./wipe.js";

const t = (ms: number) => new Date(ms).toISOString();
const WIPED = {};

describe.each(policies)("reading facts after a status wipe, podManagementPolicy %s", (policy) => {
  const base = withPolicy(policy);

  it("a partitioned canary keeps the lower pets at the current version (the issue's example)", () => {
    // partition 1: web-0 at v1, the canaries web-1 and web-2 at v2. web-0 is gone and the
    // status was wiped: "the version with the most pods" would recreate web-0 at v2.
    const cur = makeVersion(1, "app:1", { status: { becameCurrentAt: t(1000), fullyRolledOutAt: t(1000) } });
    const canary = makeVersion(2, "app:2", {
      createdAt: NOW - 5000,
      status: { observedAt: t(NOW - 5000), rolloutStartedAt: t(NOW - 5000), completedAt: t(NOW - 1000) },
    });
    const p = plan(
      base({
        spec: { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 1 } } },
        versions: [cur, canary],
        status: WIPED,
        pods: at(canary, [1, 2]),
      }),
    );
    expect(moves(p)).toEqual(["create web-0@v1"]);
    expect(p.status).toMatchObject({ currentVersion: 1, updateVersion: 2, lastCompleteVersion: 1 });
  });

  it("keeps autoRollback armed: lastCompleteVersion comes from fullyRolledOutAt", () => {
    const good = makeVersion(1, "app:1", { status: { becameCurrentAt: t(1000), fullyRolledOutAt: t(1000) } });
    const broken = makeVersion(2, "app:2", {
      createdAt: NOW - 700_000,
      status: { observedAt: t(NOW - 700_000), rolloutStartedAt: t(NOW - 700_000) },
    });
    const pods = [
      ...at(good, [0, 1], { targetVersion: 2 }),
      makePod(2, broken, {
        ready: false,
        failing: "CrashLoopBackOff",
        createdAt: NOW - 700_000,
        targetVersion: 2,
      }),
    ];
    const spec = { autoRollback: true };
    const first = plan(base({ spec, versions: [good, broken], status: WIPED, pods }));
    expect(first.status.lastCompleteVersion).toBe(1);
    expect(progressing(first)?.message).toMatch(/rolling back to version 1/);
    expect(facts(first)).toContain("v2 deadlineExceededAt");
    // The deadline fact was recorded: wiped again before the rollback, the next sync still rolls back.
    const recorded = makeVersion(2, "app:2", {
      createdAt: NOW - 700_000,
      status: { ...broken.status, deadlineExceededAt: t(NOW) },
    });
    const next = plan(base({ spec, versions: [good, recorded], status: WIPED, pods, now: NOW + 1 }));
    expect(moves(next)).toContain("rollbackTo v1");
    expect(progressing(next)).toMatchObject({ status: "False", reason: ProgressingReasons.rolledBack });
    expect(facts(next)).toContain("v2 rolledBackAt");
  });

  it("facts win over a stale status restored from a backup", () => {
    const cur = makeVersion(1, "app:1", { status: { becameCurrentAt: t(1000) } });
    const now2 = makeVersion(2, "app:2", { status: { becameCurrentAt: t(2000), fullyRolledOutAt: t(2000) } });
    const p = plan(
      base({
        versions: [cur, now2],
        status: { currentVersion: 1, updateVersion: 1, lastCompleteVersion: 1 },
        pods: at(now2, [0, 1, 2]),
      }),
    );
    expect(p.status).toMatchObject({ currentVersion: 2, lastCompleteVersion: 2, updateVersion: 2 });
    expect(moves(p)).toEqual([]);
  });

  it("without any fact (a set from before facts) the status is used and recorded", () => {
    const p = plan(
      base({
        versions: [v1, v2],
        status: { currentVersion: 1, updateVersion: 2, lastCompleteVersion: 1 },
        pods: [...at(v1, [0, 1], { targetVersion: 2 }), makePod(2, v2, { targetVersion: 2 })],
      }),
    );
    expect(facts(p)).toEqual(
      expect.arrayContaining([
        "v1 becameCurrentAt",
        "v1 fullyRolledOutAt",
        "v2 observedAt",
        "v2 rolloutStartedAt",
      ]),
    );
  });
});

describe("recording facts", () => {
  const recordsOn = (p: Plan, version: number) =>
    p.steps.find((s) => s.kind === "recordVersionStatus" && s.version === version);

  it("a new set: v1 observed, started and current, recorded before any pod step", () => {
    const p = plan({ versions: [v1], pods: [] });
    expect(facts(p)).toEqual(["v1 observedAt", "v1 rolloutStartedAt", "v1 becameCurrentAt"]);
    expect(p.steps[0]?.kind).toBe("recordVersionStatus");
    expect(recordsOn(p, 1)).toMatchObject({ versionName: "web-v1", resourceVersion: "1" });
  });

  it("nothing is recorded twice", () => {
    const done = makeVersion(1, "app:1", {
      status: {
        observedAt: t(0),
        rolloutStartedAt: t(0),
        becameCurrentAt: t(0),
        fullyRolledOutAt: t(0),
        completedAt: t(0),
      },
    });
    expect(facts(plan({ versions: [done], pods: at(done, [0, 1, 2]) }))).toEqual([]);
  });

  it("a version created by this very sync gets its facts on the next one", () => {
    const fresh = makeVersion(1, "app:1", { resourceVersion: undefined });
    expect(facts(plan({ versions: [fresh], pods: [] }))).toEqual([]);
  });

  it("a started rollout supersedes the started versions below it", () => {
    const old = makeVersion(1, "app:1", {
      status: { observedAt: t(0), rolloutStartedAt: t(0), becameCurrentAt: t(0), fullyRolledOutAt: t(0) },
    });
    const p = plan({
      versions: [old, v2],
      status: { currentVersion: 1, updateVersion: 1 },
      pods: at(old, [0, 1, 2]),
    });
    expect(facts(p)).toEqual(["v2 observedAt", "v2 rolloutStartedAt", "v1 supersededAt", "v1 supersededBy"]);
    expect(recordsOn(p, 1)).toMatchObject({ status: { supersededBy: 2, fullyRolledOutAt: t(0) } });
  });

  it("a complete rollout: completedAt, becameCurrentAt and fullyRolledOutAt on the new version", () => {
    const old = makeVersion(1, "app:1", { status: { becameCurrentAt: t(0), fullyRolledOutAt: t(0) } });
    const next = makeVersion(2, "app:2", { status: { observedAt: t(1), rolloutStartedAt: t(1) } });
    const p = plan({
      versions: [old, next],
      status: { currentVersion: 1, updateVersion: 2 },
      pods: at(next, [0, 1, 2]),
    });
    expect(facts(p)).toEqual(["v2 becameCurrentAt", "v2 fullyRolledOutAt", "v2 completedAt"]);
  });

  it("a partitioned rollout completes without becoming current or fully rolled out", () => {
    const old = makeVersion(1, "app:1", { status: { becameCurrentAt: t(0), fullyRolledOutAt: t(0) } });
    const next = makeVersion(2, "app:2", { status: { observedAt: t(1), rolloutStartedAt: t(1) } });
    const p = plan({
      spec: { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 2 } } },
      versions: [old, next],
      status: { currentVersion: 1, updateVersion: 2 },
      pods: [...at(old, [0, 1]), ...at(next, [2])],
    });
    expect(facts(p)).toEqual(["v2 completedAt"]);
    expect(p.status.currentVersion).toBe(1);
  });

  it("a recorded current later than the clock still loses to the one written now", () => {
    const old = makeVersion(1, "app:1", { status: { becameCurrentAt: t(NOW + 60_000) } });
    const next = makeVersion(2, "app:2", { status: { observedAt: t(1), rolloutStartedAt: t(1) } });
    const p = plan({ versions: [old, next], pods: at(next, [0, 1, 2]) });
    expect(recordsOn(p, 2)).toMatchObject({ status: { becameCurrentAt: t(NOW + 60_001) } });
  });

  it("a resume restarts the deadline clock, and a wipe keeps it restarted", () => {
    const old = makeVersion(1, "app:1", { status: { becameCurrentAt: t(0), fullyRolledOutAt: t(0) } });
    const stuck = makeVersion(2, "app:2", {
      createdAt: NOW - 900_000,
      status: { observedAt: t(NOW - 900_000), rolloutStartedAt: t(NOW - 900_000) },
    });
    const pods = [
      ...at(old, [0, 1], { targetVersion: 2 }),
      makePod(2, stuck, { createdAt: NOW - 900_000, targetVersion: 2 }),
    ];
    const paused = {
      type: "Progressing",
      status: "Unknown" as const,
      reason: ProgressingReasons.paused,
      message: "",
    };
    const resumed = plan({
      versions: [old, stuck],
      status: { currentVersion: 1, updateVersion: 2, conditions: [paused] },
      pods,
    });
    expect(facts(resumed)).toEqual(["v2 resumedAt"]);
    const recorded = makeVersion(2, "app:2", {
      createdAt: NOW - 900_000,
      status: { ...stuck.status, resumedAt: t(NOW) },
    });
    const afterWipe = plan({ versions: [old, recorded], status: WIPED, pods, now: NOW + 1000 });
    expect(progressing(afterWipe)).toMatchObject({ status: "True", reason: ProgressingReasons.rollingOut });
  });
});

describe.each(policies)("a status wipe changes nothing after one sync, podManagementPolicy %s", (policy) => {
  const world = (spec: Parameters<typeof makePetSet>[0] = {}) =>
    createWorld(
      makePetSet({ replicas: 4, podManagementPolicy: policy, progressDeadlineSeconds: 20, ...spec }),
      { readyTicks: 2 },
    );

  /** Syncs and ticks, wiping the status before every sync: each must equal the unwiped one. */
  function runWiping(w: World, ticks: number): void {
    for (let i = 0; i < ticks; i++) {
      const expected = preview(w);
      wipeStatus(w);
      const actual = preview(w);
      expect(actual, `t=${w.now}`).toEqual(expected);
      sync(w);
      tick(w);
    }
  }

  it("plain rollout", () => {
    const w = world();
    runUntilConverged(w);
    setImage(w, "app:2");
    runWiping(w, 20);
    expect(comparableStatus(w.petSet.status)).toMatchObject({ currentVersion: 2, lastCompleteVersion: 2 });
    expect(w.violations).toEqual([]);
  });

  it("partitioned canary", () => {
    const w = world({ updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 2 } } });
    runUntilConverged(w);
    setImage(w, "app:2");
    runWiping(w, 12);
    expect(w.petSet.status).toMatchObject({ currentVersion: 1, updateVersion: 2, lastCompleteVersion: 1 });
    setImage(w, "app:3");
    runWiping(w, 12);
    updateSpec(w, (s) => {
      s.updateStrategy.rollingUpdate = { ...s.updateStrategy.rollingUpdate!, partition: 0 };
    });
    runWiping(w, 16);
    expect(w.petSet.status).toMatchObject({ currentVersion: 3, lastCompleteVersion: 3 });
    expect(w.violations).toEqual([]);
  });

  it("autoRollback in progress", () => {
    const w = world({ autoRollback: true });
    runUntilConverged(w);
    setImage(w, "bad/app:broken");
    runWiping(w, 40);
    expect(w.versions.at(-1)?.spec.rollbackOf).toBe(1);
    expect(w.versions[1]?.status?.rolledBackAt).toBeDefined();
    expect(w.petSet.status).toMatchObject({ currentVersion: 3, lastCompleteVersion: 3 });
    expect(w.violations).toEqual([]);
  });
});
