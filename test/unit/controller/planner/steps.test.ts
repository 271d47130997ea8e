/**
 * Step-wise rollouts (src/controller/planner/steps.ts) in the pure world of simulate.ts: the
 * rollout invariants are checked after every step; promotions are the PetSet annotation
 * `kubectl petset promote` writes.
 */
import { describe, expect, it } from "vitest";
import { Annotations, ConditionTypes, type RolloutStep } from "../../../../src/api/index.js";
import { expandSteps, resolvePets } from "../../../../src/controller/planner/steps.js";
import { makePetSet } from "./fixtures.js";
import {
  converged,
  createWorld,
  podsOf,
  progressingOf,
  runUntilConverged,
  setImage,
  sync,
  tick,
  updateSpec,
  type World,
} from "./simulate.js";
import { comparableStatus, preview, wipeStatus } from "./wipe.js";

const policies = ["OrderedReady", "Parallel"] as const;
const CANARY: RolloutStep[] = [{ pets: 1 }, { pause: {} }, { pets: "50%" }, { pause: {} }, { pets: "100%" }];

function worldWith(
  policy: (typeof policies)[number],
  rollingUpdate: Record<string, unknown>,
  replicas = 4,
): World {
  const world = createWorld(makePetSet({ replicas, podManagementPolicy: policy }));
  expect(runUntilConverged(world)).toBeGreaterThanOrEqual(0);
  updateSpec(world, (s) => {
    s.updateStrategy.rollingUpdate = {
      partition: 0,
      maxUnavailable: 1,
      podUpdatePolicy: "Recreate",
      inPlaceResizeTimeoutSeconds: 120,
      ...rollingUpdate,
    };
  });
  return world;
}

const progressing = progressingOf;
const stepPaused = (world: World) => progressing(world)?.reason === "StepPaused";
const complete = (world: World) => converged(world) && progressing(world)?.reason === "RolloutComplete";
/** Image per ordinal, e.g. ["app:1", "app:1", "app:2", "app:2"]. */
const images = (world: World) => podsOf(world).map((p) => p.containers[0]?.image);

function runUntil(world: World, until: (w: World) => boolean, maxTicks = 300): number {
  for (let t = 0; t < maxTicks; t++) {
    sync(world);
    if (until(world)) return t;
    tick(world);
  }
  return -1;
}

/** Sync and tick `n` times: nothing is expected to change. */
function idle(world: World, n: number): void {
  for (let t = 0; t < n; t++) {
    sync(world);
    tick(world);
  }
}

function promote(world: World, value: string): void {
  const annotations = { ...(world.petSet.metadata.annotations ?? {}), [Annotations.promote]: value };
  world.petSet = { ...world.petSet, metadata: { ...world.petSet.metadata, annotations } };
}

describe("steps expansion and counts", () => {
  it.each([
    [1, 4, 1],
    ["50%", 4, 2],
    ["50%", 3, 1],
    ["10%", 3, 1],
    ["0%", 3, 0],
    ["100%", 3, 3],
    [7, 3, 3],
  ] as const)(
    "pets %s of %i replicas is %i (percent rounds down, never below 1, as maxUnavailable)",
    (pets, replicas, want) => {
      expect(resolvePets(pets, replicas)).toBe(want);
    },
  );

  it("pauseOnSpecChange is a first pause; pauseAfterEachPet is one pet and a pause per pet above the partition", () => {
    const set = makePetSet({
      replicas: 4,
      updateStrategy: { rollingUpdate: { partition: 1, pauseOnSpecChange: true, pauseAfterEachPet: true } },
    });
    expect(expandSteps(set)).toEqual([{ pause: {} }, { pets: 1 }, { pause: {} }, { pets: 2 }, { pause: {} }]);
  });
});

describe.each(policies)("steps, podManagementPolicy %s", (policy) => {
  it("moves to each step's count, pauses, and continues one step per promotion", () => {
    const world = worldWith(policy, { steps: CANARY });
    setImage(world, "app:2");
    expect(runUntil(world, stepPaused)).toBeGreaterThanOrEqual(0);
    expect(images(world)).toEqual(["app:1", "app:1", "app:1", "app:2"]);
    expect(world.petSet.status?.rolloutStep).toMatchObject({
      version: 2,
      step: 2,
      total: 5,
      waitingFor: "promote",
    });
    expect(progressing(world)?.message).toContain("step 2 of 5 (pause) of version 2");
    idle(world, 20);
    expect(images(world)).toEqual(["app:1", "app:1", "app:1", "app:2"]);
    expect(stepPaused(world)).toBe(true);

    promote(world, "2#2");
    expect(runUntil(world, stepPaused)).toBeGreaterThanOrEqual(0);
    expect(images(world)).toEqual(["app:1", "app:1", "app:2", "app:2"]);
    expect(world.petSet.status?.rolloutStep).toMatchObject({ step: 4, waitingFor: "promote" });
    // The same annotation again (a GitOps re-apply of metadata, a double click) promotes nothing.
    idle(world, 10);
    expect(images(world)).toEqual(["app:1", "app:1", "app:2", "app:2"]);

    promote(world, "2#4");
    expect(runUntil(world, complete)).toBeGreaterThanOrEqual(0);
    expect(world.petSet.status?.rolloutStep).toBeUndefined();
    expect(world.petSet.status?.currentVersion).toBe(2);
    expect(world.versions[1]?.status?.steps).toMatchObject({ index: 4, promotion: "2#4" });
    expect(world.violations).toEqual([]);
  });

  it("promote --full skips the remaining steps", () => {
    const world = worldWith(policy, { steps: CANARY });
    setImage(world, "app:2");
    expect(runUntil(world, stepPaused)).toBeGreaterThanOrEqual(0);
    promote(world, "2#full");
    expect(runUntil(world, complete)).toBeGreaterThanOrEqual(0);
    expect(world.violations).toEqual([]);
  });

  it("the user's partition still applies: steps never move pets below it", () => {
    const world = worldWith(policy, { partition: 2, steps: [{ pets: 3 }, { pause: {} }] });
    setImage(world, "app:2");
    expect(runUntil(world, stepPaused)).toBeGreaterThanOrEqual(0);
    expect(images(world)).toEqual(["app:1", "app:1", "app:2", "app:2"]);
    promote(world, "2#2");
    expect(runUntil(world, (w) => progressing(w)?.reason === "RolloutComplete")).toBeGreaterThanOrEqual(0);
    idle(world, 5);
    expect(images(world)).toEqual(["app:1", "app:1", "app:2", "app:2"]);
    expect(progressing(world)?.message).toContain("partitioned rollout complete");
    expect(world.violations).toEqual([]);
  });

  it("a pause with a duration ends on the clock (requeued for it), without a promotion", () => {
    const world = worldWith(policy, { steps: [{ pets: 1 }, { pause: { duration: "30s" } }] });
    setImage(world, "app:2");
    expect(runUntil(world, stepPaused)).toBeGreaterThanOrEqual(0);
    const pausedAt = world.now;
    const plan = sync(world);
    expect(plan.requeueAfterMs).toBeLessThanOrEqual(30_000);
    expect(world.petSet.status?.rolloutStep).toMatchObject({ waitingFor: "time" });
    expect(progressing(world)?.message).toContain(
      `paused until ${new Date(pausedAt + 30_000).toISOString()}`,
    );
    idle(world, 25);
    expect(images(world)).toEqual(["app:1", "app:1", "app:1", "app:2"]);
    expect(runUntil(world, complete)).toBeGreaterThanOrEqual(0);
    const moved = world.stepsApplied.filter((s) => s.kind === "deletePod" && s.ordinal === 2);
    expect(moved.length).toBe(1);
    expect(world.now).toBeGreaterThanOrEqual(pausedAt + 30_000);
    expect(world.violations).toEqual([]);
  });

  it("a new version restarts the steps; a stale promotion does not promote it", () => {
    const world = worldWith(policy, { steps: CANARY });
    setImage(world, "app:2");
    expect(runUntil(world, stepPaused)).toBeGreaterThanOrEqual(0);
    promote(world, "2#full");
    expect(runUntil(world, complete)).toBeGreaterThanOrEqual(0);
    setImage(world, "app:3");
    expect(runUntil(world, stepPaused)).toBeGreaterThanOrEqual(0);
    expect(images(world)).toEqual(["app:2", "app:2", "app:2", "app:3"]);
    expect(world.petSet.status?.rolloutStep).toMatchObject({ version: 3, step: 2 });
    expect(world.violations).toEqual([]);
  });

  it("a newer version waits for a paused one (at most two versions), then starts its own steps", () => {
    const world = worldWith(policy, { steps: CANARY });
    setImage(world, "app:2");
    expect(runUntil(world, stepPaused)).toBeGreaterThanOrEqual(0);
    setImage(world, "app:3");
    idle(world, 10);
    expect(images(world)).toEqual(["app:1", "app:1", "app:1", "app:2"]);
    expect(progressing(world)?.message).toContain("version 3 waits until version 2 finishes");
    promote(world, "2#full");
    expect(
      runUntil(world, (w) => stepPaused(w) && w.petSet.status?.rolloutStep?.version === 3),
    ).toBeGreaterThanOrEqual(0);
    expect(images(world)).toEqual(["app:2", "app:2", "app:2", "app:3"]);
    expect(world.violations).toEqual([]);
  });

  it("a rollback skips the steps", () => {
    const world = worldWith(policy, { steps: CANARY });
    setImage(world, "app:2");
    expect(runUntil(world, stepPaused)).toBeGreaterThanOrEqual(0);
    setImage(world, "app:1");
    expect(world.versions.at(-1)?.spec.rollbackOf).toBe(1);
    expect(runUntil(world, complete)).toBeGreaterThanOrEqual(0);
    expect(images(world)).toEqual(["app:1", "app:1", "app:1", "app:1"]);
    expect(world.violations).toEqual([]);
  });

  it("pauseOnSpecChange holds every pet until promoted", () => {
    const world = worldWith(policy, { pauseOnSpecChange: true });
    setImage(world, "app:2");
    expect(runUntil(world, stepPaused)).toBeGreaterThanOrEqual(0);
    idle(world, 10);
    expect(images(world)).toEqual(["app:1", "app:1", "app:1", "app:1"]);
    expect(world.petSet.status?.rolloutStep).toMatchObject({ step: 1, total: 1, description: "pause" });
    promote(world, "2#1");
    expect(runUntil(world, complete)).toBeGreaterThanOrEqual(0);
    expect(world.violations).toEqual([]);
  });

  it("pauseAfterEachPet pauses after every pet", () => {
    const world = worldWith(policy, { pauseAfterEachPet: true }, 3);
    setImage(world, "app:2");
    for (const [step, want] of [
      [2, ["app:1", "app:1", "app:2"]],
      [4, ["app:1", "app:2", "app:2"]],
    ] as const) {
      expect(runUntil(world, stepPaused)).toBeGreaterThanOrEqual(0);
      expect(images(world)).toEqual(want);
      expect(world.petSet.status?.rolloutStep?.step).toBe(step);
      promote(world, `2#${step}`);
    }
    expect(runUntil(world, complete)).toBeGreaterThanOrEqual(0);
    expect(world.violations).toEqual([]);
  });

  it("a status wipe during a pause comes back identical after one sync", () => {
    const world = worldWith(policy, { steps: CANARY });
    setImage(world, "app:2");
    expect(runUntil(world, stepPaused)).toBeGreaterThanOrEqual(0);
    sync(world);
    const before = comparableStatus(world.petSet.status);
    wipeStatus(world);
    expect(preview(world)).toEqual({ status: before, steps: [] });
  });
});

describe("regressions found by the steps property test", () => {
  it.each(policies)(
    "a scale-down during a pause moves no lower pet (%s; seed -1229373358: steps [25%%, pause], 2 → 1 replicas)",
    (policy) => {
      const world = worldWith(policy, { steps: [{ pets: "25%" }, { pause: {} }] }, 2);
      setImage(world, "app:2");
      for (let i = 0; i < 20; i++) {
        sync(world);
        tick(world);
      }
      const reason = world.petSet.status?.conditions.find(
        (c) => c.type === ConditionTypes.progressing,
      )?.reason;
      expect(reason).toBe("StepPaused");
      expect(podsOf(world).map((p) => `${p.name}@v${p.version}`)).toEqual(["web-0@v1", "web-1@v2"]);
      updateSpec(world, (s) => {
        s.replicas = 1;
      });
      for (let i = 0; i < 10; i++) {
        sync(world);
        tick(world);
      }
      expect(podsOf(world).map((p) => `${p.name}@v${p.version}`)).toEqual(["web-0@v1"]);
      expect(world.violations).toEqual([]);
    },
  );
});
