/**
 * Roles in the planner (src/controller/planner/roles.ts): the leader's pet goes last, after a
 * switchover; zero or two leaders make the leader's turn wait; scale-down never removes the
 * leader without a switchover. Pure world, invariants after every step.
 */
import { describe, expect, it } from "vitest";
import { makePetSet } from "./fixtures.js";
import { type HookWorld, hookSpec, hookSync, runHookWorld, withHooks } from "./hook-sim.js";
import {
  converged,
  createWorld,
  podsOf,
  progressingOf,
  runUntilConverged,
  setImage,
  tick,
  updateSpec,
  type World,
} from "./simulate.js";

const policies = ["OrderedReady", "Parallel"] as const;
const ROLE = "petset.dev/role";

function roleWorld(
  policy: (typeof policies)[number],
  leaders: number[],
  extra: Record<string, unknown> = {},
): World {
  const world = createWorld(makePetSet({ replicas: 3, podManagementPolicy: policy, roles: {}, ...extra }));
  expect(runUntilConverged(world)).toBeGreaterThanOrEqual(0);
  label(world, leaders);
  return world;
}

/** The app labels its pods: these ordinals lead, every other live pod follows. */
function label(world: World, leaders: number[]): void {
  for (const [name, pod] of world.pods) {
    const role = leaders.includes(pod.view.ordinal) ? "leader" : "follower";
    world.serial++;
    world.pods.set(name, {
      ...pod,
      view: {
        ...pod.view,
        labels: { ...pod.view.labels, [ROLE]: role },
        resourceVersion: String(world.serial),
      },
    });
  }
}

/** Pod deletions for updates, in order. */
const updates = (world: World) =>
  world.stepsApplied.flatMap((s) => (s.kind === "deletePod" && s.reason === "update" ? [s.podName] : []));
const progressing = progressingOf;
const settled = (hw: HookWorld) => converged(hw.world) && progressing(hw.world)?.reason === "RolloutComplete";

/** Run with the app relabelling after every sync: `leaders()` says who leads now. */
function runLabelled(
  hw: HookWorld,
  leaders: () => number[],
  until: (hw: HookWorld) => boolean,
  max = 300,
): number {
  for (let t = 0; t < max; t++) {
    label(hw.world, leaders());
    hookSync(hw);
    if (until(hw)) return t;
    tick(hw.world);
  }
  return -1;
}

describe.each(policies)("roles, podManagementPolicy %s", (policy) => {
  it.each([
    [0, ["web-2", "web-1", "web-0"]],
    [1, ["web-2", "web-0", "web-1"]],
    [2, ["web-1", "web-0", "web-2"]],
  ])("the leader at ordinal %i is updated last", (leader, order) => {
    const world = roleWorld(policy, [leader]);
    const hw = withHooks(world);
    setImage(world, "app:2");
    expect(runLabelled(hw, () => [leader], settled)).toBeGreaterThanOrEqual(0);
    expect(updates(world)).toEqual(order);
    expect([...world.violations, ...hw.violations]).toEqual([]);
  });

  it("maxUnavailable 2 with 5 pets and a partition: followers two at a time, the leader last", () => {
    const world = roleWorld(policy, [3], {
      replicas: 5,
      updateStrategy: { rollingUpdate: { maxUnavailable: 2, partition: 1 } },
    });
    const hw = withHooks(world);
    setImage(world, "app:2");
    expect(
      runLabelled(
        hw,
        () => [3],
        (h) => progressing(h.world)?.reason === "RolloutComplete",
      ),
    ).toBeGreaterThanOrEqual(0);
    const order = updates(world);
    expect(order.at(-1)).toBe("web-3");
    expect(order.slice(0, 3).sort()).toEqual(["web-1", "web-2", "web-4"]);
    expect(podsOf(world).find((p) => p.ordinal === 0)?.version).toBe(1);
    expect([...world.violations, ...hw.violations]).toEqual([]);
  });

  it("the switchover hook runs in the leader with a follower at the target as candidate, before it moves", () => {
    const world = roleWorld(policy, [0], { roles: { switchover: hookSpec("external") } });
    const hw = withHooks(world);
    setImage(world, "app:2");
    // After the switchover, the app moves the leader role to the candidate (web-2).
    let leader = 0;
    expect(
      runLabelled(
        hw,
        () => {
          const done = hw.finished.some((f) => f.startsWith("switchover web-0"));
          if (done) leader = 2;
          return [leader];
        },
        settled,
      ),
    ).toBeGreaterThanOrEqual(0);
    const records = world.versions.flatMap((v) => v.status?.hooks ?? []);
    expect(records.map((r) => [r.hook, r.pod, r.candidate, r.phase])).toEqual([
      ["switchover", "web-0", "web-2", "Succeeded"],
    ]);
    expect(updates(world)).toEqual(["web-2", "web-1", "web-0"]);
  });

  it("regression (integration): two leaders for a moment while a switchover runs do not cancel it", () => {
    const world = roleWorld(policy, [0], { roles: { switchover: hookSpec("external") } });
    const hw = withHooks(world, { ticks: 3 });
    setImage(world, "app:2");
    // The switchover script labels the candidate leader first, then the old leader follower.
    const leaders = () => {
      const running = world.versions
        .flatMap((v) => v.status?.hooks ?? [])
        .find((r) => r.hook === "switchover");
      if (running === undefined) return [0];
      return running.phase === "Running" ? [0, 2] : [2];
    };
    expect(runLabelled(hw, leaders, settled)).toBeGreaterThanOrEqual(0);
    const records = world.versions.flatMap((v) => v.status?.hooks ?? []);
    expect(records.map((r) => [r.hook, r.pod, r.phase])).toEqual([["switchover", "web-0", "Succeeded"]]);
    expect(updates(world)).toEqual(["web-2", "web-1", "web-0"]);
  });

  it("the leader moving mid-rollout: the new leader is the one left for last", () => {
    const world = roleWorld(policy, [1]);
    const hw = withHooks(world);
    setImage(world, "app:2");
    let leaders = [1];
    expect(
      runLabelled(
        hw,
        () => {
          if (updates(world).length === 1) leaders = [0];
          return leaders;
        },
        settled,
      ),
    ).toBeGreaterThanOrEqual(0);
    expect(updates(world)).toEqual(["web-2", "web-1", "web-0"]);
  });

  it("zero leaders at the leader's turn: followers move, then the rollout waits and says why", () => {
    const world = roleWorld(policy, []);
    // web-0 has no role label at all: its role is unknown.
    const web0 = world.pods.get("web-0");
    if (web0 !== undefined) {
      const { [ROLE]: _gone, ...labels } = web0.view.labels;
      web0.view = { ...web0.view, labels };
    }
    const hw = withHooks(world);
    setImage(world, "app:2");
    for (let i = 0; i < 40; i++) {
      hookSync(hw);
      tick(world);
    }
    expect(updates(world)).toEqual(["web-2", "web-1"]);
    expect(progressing(world)?.message).toContain(
      "no pod is labelled petset.dev/role=leader: the leader's pet is not known, web-0 wait",
    );
  });

  it("two leaders: followers move, the leaders wait and the message names them", () => {
    const world = roleWorld(policy, [0, 1]);
    const hw = withHooks(world);
    setImage(world, "app:2");
    for (let i = 0; i < 40; i++) {
      label(world, [0, 1]);
      hookSync(hw);
      tick(world);
    }
    expect(updates(world)).toEqual(["web-2"]);
    expect(progressing(world)?.message).toContain(
      "2 pods are labelled petset.dev/role=leader (web-0, web-1)",
    );
  });

  it.each(["Pause", "Ignore"] as const)("a failing switchover with failurePolicy %s", (failurePolicy) => {
    const world = roleWorld(policy, [0], { roles: { switchover: hookSpec("external", { failurePolicy }) } });
    const hw = withHooks(world, { result: (r) => (r.hook === "switchover" ? "fail" : "succeed") });
    setImage(world, "app:2");
    if (failurePolicy === "Pause") {
      expect(
        runLabelled(
          hw,
          () => [0],
          (h) => progressing(h.world)?.reason === "HookFailed",
        ),
      ).toBeGreaterThanOrEqual(0);
      for (let i = 0; i < 5; i++) {
        hookSync(hw);
        tick(world);
      }
      expect(updates(world)).toEqual(["web-2", "web-1"]);
    } else {
      expect(runLabelled(hw, () => [0], settled)).toBeGreaterThanOrEqual(0);
      expect(updates(world)).toEqual(["web-2", "web-1", "web-0"]);
    }
  });
});

describe("scale-down and the leader", () => {
  it("without a switchover hook the condemned leader stays and the message says why", () => {
    const world = roleWorld("OrderedReady", [2]);
    const hw = withHooks(world);
    updateSpec(world, (s) => {
      s.replicas = 2;
    });
    for (let i = 0; i < 10; i++) {
      hookSync(hw);
      tick(world);
    }
    expect(podsOf(world).map((p) => p.name)).toEqual(["web-0", "web-1", "web-2"]);
    expect(progressing(world)?.message).toContain(
      "the leader web-2 is to be removed by scale-down and spec.roles.switchover is not set",
    );
  });

  it("with a switchover hook the leader hands over to a pet that stays, then goes", () => {
    const world = roleWorld("OrderedReady", [2], { roles: { switchover: hookSpec("external") } });
    const hw = withHooks(world);
    updateSpec(world, (s) => {
      s.replicas = 2;
    });
    expect(runHookWorld(hw, (h) => podsOf(h.world).length === 2)).toBeGreaterThanOrEqual(0);
    const records = world.versions.flatMap((v) => v.status?.hooks ?? []);
    expect(records.map((r) => [r.hook, r.pod, r.candidate])).toEqual([["switchover", "web-2", "web-1"]]);
    expect([...world.violations, ...hw.violations]).toEqual([]);
  });
});
