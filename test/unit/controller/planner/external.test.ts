/**
 * Hand-off (updateStrategy External, src/controller/planner/external.ts) and the promotion of
 * currentVersion under External and OnDelete (kubernetes#73492: a StatefulSet under OnDelete
 * never promotes it). Pure world, invariants after every step.
 */
import { describe, expect, it } from "vitest";
import { Annotations } from "../../../../src/api/index.js";
import { makePetSet } from "./fixtures.js";
import { hookSpec, hookSync, withHooks } from "./hook-sim.js";
import {
  converged,
  createWorld,
  deleteByUser,
  podsOf,
  progressingOf,
  runUntilConverged,
  setImage,
  sync,
  tick,
  type World,
} from "./simulate.js";

function request(world: World, ordinal: number, version: number): void {
  const pod = world.pods.get(`web-${ordinal}`);
  if (pod === undefined) return;
  world.serial++;
  pod.view = {
    ...pod.view,
    annotations: { ...pod.view.annotations, [Annotations.updateRequested]: String(version) },
    resourceVersion: String(world.serial),
  };
}

const progressing = progressingOf;
const moved = (world: World) =>
  world.stepsApplied.flatMap((s) => (s.kind === "deletePod" && s.reason === "update" ? [s.podName] : []));

function externalWorld(policy: "OrderedReady" | "Parallel", extra: Record<string, unknown> = {}): World {
  const world = createWorld(
    makePetSet({ replicas: 3, podManagementPolicy: policy, updateStrategy: { type: "External" }, ...extra }),
  );
  expect(runUntilConverged(world)).toBeGreaterThanOrEqual(0);
  return world;
}

describe.each(["OrderedReady", "Parallel"] as const)("External, podManagementPolicy %s", (policy) => {
  it("nothing moves until asked; pods move in the requester's order; currentVersion is promoted at the end", () => {
    const world = externalWorld(policy);
    setImage(world, "app:2");
    for (let i = 0; i < 10; i++) {
      sync(world);
      tick(world);
    }
    expect(podsOf(world).every((p) => p.version === 1 && p.targetVersion === 2)).toBe(true);
    for (const ordinal of [0, 2, 1]) {
      request(world, ordinal, 2);
      for (let i = 0; i < 10 && podsOf(world).find((p) => p.ordinal === ordinal)?.version !== 2; i++) {
        sync(world);
        tick(world);
      }
      for (let i = 0; i < 5; i++) {
        sync(world);
        tick(world);
      }
    }
    sync(world);
    expect(moved(world)).toEqual(["web-0", "web-2", "web-1"]);
    expect(converged(world)).toBe(true);
    expect(world.petSet.status?.currentVersion).toBe(2);
    expect(world.violations).toEqual([]);
  });

  it("a request for another version than the target is refused with an Event and said in Progressing", () => {
    const world = externalWorld(policy);
    setImage(world, "app:2");
    sync(world);
    request(world, 1, 1);
    request(world, 2, 7);
    const plan = sync(world);
    expect(plan.steps.filter((s) => s.kind === "deletePod")).toEqual([]);
    expect(plan.events.filter((e) => e.reason === "UpdateRequestRefused").map((e) => e.object)).toEqual([
      "web-1",
      "web-2",
    ]);
    expect(progressing(world)?.message).toContain(
      "web-2 asks for version 7 (petset.dev/update-requested), but the target is version 2: refused",
    );
  });

  it("requests honour maxUnavailable and the preUpdate hook", () => {
    const world = externalWorld(policy, { lifecycle: { preUpdate: hookSpec("exec") } });
    const hw = withHooks(world, { ticks: 2 });
    setImage(world, "app:2");
    hookSync(hw);
    request(world, 0, 2);
    request(world, 1, 2);
    hookSync(hw);
    const running = world.versions.flatMap((v) => v.status?.hooks ?? []).filter((r) => r.phase === "Running");
    expect(running.map((r) => r.pod)).toEqual(["web-0"]);
    expect(hw.violations).toEqual([]);
  });
});

describe("OnDelete promotes currentVersion once every pet runs the target (kubernetes#73492)", () => {
  it.each(["OrderedReady", "Parallel"] as const)("%s", (policy) => {
    const world = createWorld(
      makePetSet({ replicas: 3, podManagementPolicy: policy, updateStrategy: { type: "OnDelete" } }),
    );
    expect(runUntilConverged(world)).toBeGreaterThanOrEqual(0);
    setImage(world, "app:2");
    for (const ordinal of [2, 1, 0]) {
      deleteByUser(world, ordinal);
      for (let i = 0; i < 8; i++) {
        sync(world);
        tick(world);
      }
    }
    sync(world);
    expect(podsOf(world).every((p) => p.version === 2)).toBe(true);
    expect(world.petSet.status?.currentVersion).toBe(2);
    expect(world.petSet.status?.lastCompleteVersion).toBe(2);
    expect(world.violations).toEqual([]);
  });
});
