/**
 * Hand-off (updateStrategy External, src/controller/planner/external.ts) and the promotion of
 * currentVersion under External and OnDelete (kubernetes#73492: a StatefulSet under OnDelete
 * never promotes it). Pure world, invariants after every step.
 */
import { describe, expect, it } from "vitest";
import { Annotations } from "../../../../src/api/index.js";
import type { Plan } from "../../../../src/controller/planner/index.js";
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

describe.each(["OrderedReady", "Parallel"] as const)(
  "External: complete means every pet moved, %s",
  (policy) => {
    const events = (plans: Plan[]) => plans.flatMap((p) => p.events.map((e) => e.reason));
    const v2 = (world: World) => world.versions.find((v) => v.spec.version === 2);

    it("issue 24 item 10: Progressing says RolloutComplete, and completedAt is recorded, only once every pet runs the target", () => {
      const world = externalWorld(policy, { progressDeadlineSeconds: 20, autoRollback: true });
      setImage(world, "app:2");
      const plans: Plan[] = [];
      // A minute with nobody asking: longer than the deadline, which does not judge the requester.
      for (let i = 0; i < 60; i++) {
        plans.push(sync(world));
        tick(world);
      }
      expect(progressing(world)).toMatchObject({ status: "True", reason: "RollingOut" });
      expect(progressing(world)?.message).toContain(
        "0 of 3 pets at version 2; waiting for update requests (petset.dev/update-requested=2, updateStrategy External)",
      );
      expect(v2(world)?.status?.completedAt).toBeUndefined();
      expect(world.petSet.status?.lastCompleteVersion).toBe(1);
      for (const ordinal of [0, 2]) {
        request(world, ordinal, 2);
        for (let i = 0; i < 8; i++) {
          plans.push(sync(world));
          tick(world);
        }
      }
      expect(podsOf(world).map((p) => p.version)).toEqual([2, 1, 2]);
      expect(progressing(world)?.reason).toBe("RollingOut");
      expect(v2(world)?.status?.completedAt).toBeUndefined();
      expect(events(plans)).not.toContain("RolloutComplete");
      expect(events(plans)).not.toContain("ProgressDeadlineExceeded");
      request(world, 1, 2);
      for (let i = 0; i < 8; i++) {
        plans.push(sync(world));
        tick(world);
      }
      expect(podsOf(world).map((p) => p.version)).toEqual([2, 2, 2]);
      expect(progressing(world)?.reason).toBe("RolloutComplete");
      expect(events(plans).filter((r) => r === "RolloutComplete")).toHaveLength(1);
      expect(v2(world)?.status?.completedAt).toBeDefined();
      expect(world.petSet.status).toMatchObject({ currentVersion: 2, lastCompleteVersion: 2 });
      expect(world.violations).toEqual([]);
    });

    it("issue 24 item 10: with a postRollout hook, complete only once it is done after every pet moved", () => {
      const world = externalWorld(policy, { lifecycle: { postRollout: hookSpec("external") } });
      const hw = withHooks(world, { ticks: 3 });
      setImage(world, "app:2");
      for (let i = 0; i < 5; i++) {
        hookSync(hw);
        tick(world);
      }
      expect(hw.started).toEqual([]);
      expect(progressing(world)?.reason).toBe("RollingOut");
      for (const ordinal of [0, 1, 2]) request(world, ordinal, 2);
      let seenRunning = false;
      for (let i = 0; i < 40 && progressing(world)?.reason !== "RolloutComplete"; i++) {
        hookSync(hw);
        if (world.petSet.status?.hooks?.some((r) => r.hook === "postRollout" && r.phase === "Running"))
          seenRunning = true;
        tick(world);
      }
      expect(seenRunning).toBe(true);
      expect(hw.finished).toEqual(["postRollout v2 succeed"]);
      expect(progressing(world)?.reason).toBe("RolloutComplete");
      expect(podsOf(world).every((p) => p.version === 2)).toBe(true);
      expect([...world.violations, ...hw.violations]).toEqual([]);
    });

    it("a requested pet whose new pod never becomes Ready is still judged by the deadline", () => {
      const world = externalWorld(policy, { progressDeadlineSeconds: 20 });
      setImage(world, "app:broken");
      sync(world);
      request(world, 2, 2);
      const plans: Plan[] = [];
      for (let i = 0; i < 40; i++) {
        plans.push(sync(world));
        tick(world);
      }
      expect(events(plans)).toContain("ProgressDeadlineExceeded");
      expect(progressing(world)?.reason).toBe("ProgressDeadlineExceeded");
    });
  },
);

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

describe("External under OrderedReady and after a rollback (issue 24 item 11)", () => {
  it("External: a given-up version's pod is refilled at the kept version while others of it remain, the last goes to the target", () => {
    const world = externalWorld("Parallel");
    setImage(world, "app:3"); // v2
    request(world, 0, 2);
    request(world, 2, 2);
    for (let i = 0; i < 10; i++) {
      sync(world);
      tick(world);
    }
    setImage(world, "app:1"); // v3, a rollback of v1: web-1 is relabelled
    sync(world);
    setImage(world, "app:2"); // v4
    sync(world);
    const settle = () => {
      for (let i = 0; i < 8; i++) {
        sync(world);
        tick(world);
      }
    };
    request(world, 0, 4);
    settle();
    const images = () => podsOf(world).map((p) => p.containers[0]?.image);
    // web-2 still runs version 2: web-0 comes back at the kept old content (app:1), without the request.
    expect(images()).toEqual(["app:1", "app:1", "app:3"]);
    expect(podsOf(world)[0]?.annotations[Annotations.updateRequested]).toBeUndefined();
    request(world, 2, 4);
    settle();
    expect(images()).toEqual(["app:1", "app:1", "app:2"]);
    expect(podsOf(world)[2]?.version).toBe(4);
    expect(world.violations).toEqual([]);
  });

  it("issue 24 item 11 (External): under OrderedReady a requested Ready pod waits while another pet is missing", () => {
    const world = createWorld(
      makePetSet({
        replicas: 2,
        podManagementPolicy: "OrderedReady",
        updateStrategy: { type: "External", rollingUpdate: { maxUnavailable: 2 } },
      }),
    );
    expect(runUntilConverged(world)).toBeGreaterThanOrEqual(0);
    deleteByUser(world, 1);
    tick(world);
    setImage(world, "app:2");
    request(world, 0, 2);
    // web-1 is gone: this pass creates it (web-0 is available); web-0 must not go down with it.
    const plan = sync(world);
    expect(plan.steps.flatMap((s) => (s.kind === "createPod" ? [s.ordinal] : []))).toEqual([1]);
    expect(plan.steps.filter((s) => s.kind === "deletePod")).toEqual([]);
    for (let i = 0; i < 20; i++) {
      sync(world);
      tick(world);
    }
    // web-1 came back at the target (missing pets are); once it is available web-0's request is served.
    expect(podsOf(world).map((p) => p.version)).toEqual([2, 2]);
    expect(moved(world)).toEqual(["web-0"]);
    expect(world.violations).toEqual([]);
  });

  it.each(["OrderedReady", "Parallel"] as const)(
    "issue 24 item 11 (External): after a rollback, a new version mid-rollout converges; a request of the kept old version waits for the given-up version's pods (%s)",
    (policy) => {
      const world = externalWorld(policy, { progressDeadlineSeconds: 20 });
      setImage(world, "app:3"); // v2
      request(world, 0, 2);
      for (let i = 0; i < 4; i++) {
        sync(world);
        tick(world);
      }
      setImage(world, "app:1"); // v3: a rollback of v1, which web-1 and web-2 still run
      sync(world);
      expect(podsOf(world).map((p) => p.version)).toEqual([2, 3, 3]);
      setImage(world, "app:2"); // v4: web-0 still runs v2's content (app:3)
      sync(world);
      // Moving web-1 now would make a third content live: it would come back at app:1, forever.
      request(world, 1, 4);
      const plans: Plan[] = [];
      // Longer than the deadline: a request that waits on the requester is not a stall.
      for (let i = 0; i < 40; i++) {
        plans.push(sync(world));
        tick(world);
      }
      expect(plans.flatMap((p) => p.steps.filter((s) => s.kind === "deletePod"))).toEqual([]);
      expect(progressing(world)?.reason).toBe("RollingOut");
      expect(progressing(world)?.message).toContain(
        "web-1 asks for version 4, but web-0 runs version 2, given up: it moves first (at most two versions live); the request waits",
      );
      request(world, 0, 4);
      for (let i = 0; i < 6; i++) {
        sync(world);
        tick(world);
      }
      // web-0 was the given-up version's last pod: it comes back at the target, then web-1 moves.
      expect(podsOf(world).find((p) => p.ordinal === 0)?.version).toBe(4);
      for (let i = 0; i < 30 && !converged(world); i++) {
        sync(world);
        for (const pod of podsOf(world)) request(world, pod.ordinal, 4);
        tick(world);
      }
      expect(converged(world)).toBe(true);
      expect(podsOf(world).map((p) => p.version)).toEqual([4, 4, 4]);
      // web-0 to version 2 first, then to 4; web-1's waiting request is served next.
      expect(moved(world).slice(0, 3)).toEqual(["web-0", "web-0", "web-1"]);
      expect(world.violations).toEqual([]);
    },
  );
});
