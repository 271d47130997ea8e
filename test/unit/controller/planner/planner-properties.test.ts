import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makePetSet } from "./fixtures.js";
import {
  converged,
  createWorld,
  deleteByUser,
  runUntilConverged,
  setImage,
  sync,
  tick,
  updateSpec,
  type World,
} from "./simulate.js";
import { preview, wipeStatus } from "./wipe.js";

type Action =
  | { kind: "image"; image: string }
  | { kind: "scale"; replicas: number }
  | { kind: "pause"; paused: boolean }
  | { kind: "partition"; partition: number }
  | { kind: "wait"; ticks: number }
  | { kind: "userDelete"; ordinal: number }
  | { kind: "wipeStatus" };

const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .constantFrom("app:1", "app:2", "app:3", "app:4", "bad/a:broken", "bad/b:broken")
      .map((image) => ({ kind: "image" as const, image })),
  },
  {
    weight: 2,
    arbitrary: fc.integer({ min: 0, max: 5 }).map((replicas) => ({ kind: "scale" as const, replicas })),
  },
  { weight: 1, arbitrary: fc.boolean().map((paused) => ({ kind: "pause" as const, paused })) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0, max: 3 }).map((partition) => ({ kind: "partition" as const, partition })),
  },
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 8 }).map((ticks) => ({ kind: "wait" as const, ticks })) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0, max: 7 }).map((ordinal) => ({ kind: "userDelete" as const, ordinal })),
  },
  { weight: 2, arbitrary: fc.constant({ kind: "wipeStatus" as const }) },
);

const setup = fc.record({
  policy: fc.constantFrom("OrderedReady" as const, "Parallel" as const),
  maxUnavailable: fc.constantFrom<number | string>(1, 2, "50%"),
  podUpdatePolicy: fc.constantFrom("Recreate" as const, "InPlaceIfPossible" as const),
  minReadySeconds: fc.constantFrom(0, 2),
  autoRollback: fc.boolean(),
  readyTicks: fc.integer({ min: 1, max: 3 }),
  replicas: fc.integer({ min: 1, max: 4 }),
  start: fc.constantFrom(0, 3),
});

function apply(world: World, a: Action): void {
  switch (a.kind) {
    case "image":
      setImage(world, a.image);
      break;
    case "scale":
      updateSpec(world, (s) => {
        s.replicas = a.replicas;
      });
      break;
    case "pause":
      updateSpec(world, (s) => {
        s.paused = a.paused;
      });
      break;
    case "partition":
      updateSpec(world, (s) => {
        s.updateStrategy.rollingUpdate = { ...s.updateStrategy.rollingUpdate!, partition: a.partition };
      });
      break;
    case "userDelete":
      deleteByUser(world, world.petSet.spec.ordinals.start + a.ordinal);
      break;
    case "wipeStatus": {
      // Status is derived: after a wipe the next sync writes and does what it would have.
      const expected = preview(world);
      wipeStatus(world);
      const actual = preview(world);
      if (JSON.stringify(actual) !== JSON.stringify(expected))
        world.violations.push(
          `t=${world.now} status wipe changed the next sync: ${JSON.stringify(actual)} != ${JSON.stringify(expected)}`,
        );
      break;
    }
    case "wait":
      for (let i = 0; i < a.ticks; i++) {
        sync(world);
        tick(world);
      }
      break;
  }
  sync(world);
}

describe("planner properties (random spec changes, scaling, pauses, broken images, status wipes)", () => {
  it("keeps every invariant after every step and converges once the spec is good", () => {
    fc.assert(
      fc.property(setup, fc.array(action, { maxLength: 25 }), (s, actions) => {
        const world = createWorld(
          makePetSet({
            replicas: s.replicas,
            podManagementPolicy: s.policy,
            ordinals: { start: s.start },
            minReadySeconds: s.minReadySeconds,
            autoRollback: s.autoRollback,
            progressDeadlineSeconds: 20,
            updateStrategy: {
              type: "RollingUpdate",
              rollingUpdate: {
                partition: 0,
                maxUnavailable: s.maxUnavailable,
                podUpdatePolicy: s.podUpdatePolicy,
              },
            },
          }),
          { readyTicks: s.readyTicks },
        );
        for (const a of actions) apply(world, a);
        expect(world.violations).toEqual([]);

        updateSpec(world, (spec) => {
          spec.paused = false;
          spec.updateStrategy.rollingUpdate = { ...spec.updateStrategy.rollingUpdate!, partition: 0 };
        });
        setImage(world, "app:final");
        const ticks = runUntilConverged(world, 400);
        expect(world.violations).toEqual([]);
        expect(ticks).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: Number(process.env.PLANNER_RUNS ?? 300) },
    );
  }, 600_000);

  it("OnDelete: invariants hold, nothing is deleted for an update, and deleting pods finishes the rollout", () => {
    fc.assert(
      fc.property(setup, fc.array(action, { maxLength: 20 }), (s, actions) => {
        const world = createWorld(
          makePetSet({
            replicas: s.replicas,
            podManagementPolicy: s.policy,
            ordinals: { start: s.start },
            progressDeadlineSeconds: 20,
            updateStrategy: { type: "OnDelete" },
          }),
          { readyTicks: s.readyTicks },
        );
        for (const a of actions) apply(world, a);
        updateSpec(world, (spec) => {
          spec.paused = false;
        });
        setImage(world, "app:final");
        for (let round = 0; round < 10 && !converged(world); round++) {
          for (const pod of [...world.pods.values()].map((p) => p.view)) {
            if (pod.hash !== world.versions[world.versions.length - 1]?.spec.hash)
              deleteByUser(world, pod.ordinal);
          }
          runUntilConverged(world, 30);
        }
        expect(world.violations).toEqual([]);
        expect(converged(world)).toBe(true);
      }),
      { numRuns: Number(process.env.PLANNER_RUNS ?? 200) },
    );
  }, 600_000);
});
