/**
 * Time without a controller is not judged (src/controller/planner/takeover.ts). Regression of
 * chaos seed 3007 on kube-apiserver: a healed version was rolled back by autoRollback just after
 * a takeover, its progress deadline having passed while controllers were killed and the leader
 * frozen; the rollout's preUpdate hook "timed out (0 ms)" the same way without having run.
 * Each case runs the world once as the new leader (drivingSince = its takeover) and once as a
 * controller that counts all time, so the test fails if the rule is lost. Since issue 24 a
 * running hook holds the progress clock (progress-deadline.ts), so the deadline cases stall the
 * rollout on a version whose pods never become Ready instead of on a hanging hook.
 */
import { describe, expect, it } from "vitest";
import { judgedFrom } from "../../../../src/controller/planner/takeover.js";
import { makePetSet } from "./fixtures.js";
import { allRecords, type HookWorld, hookSpec, hookSync, withHooks } from "./hook-sim.js";
import {
  createWorld,
  progressingOf,
  runUntilConverged,
  setImage,
  sync,
  tick,
  updateSpec,
  type World,
} from "./simulate.js";

const policies = ["OrderedReady", "Parallel"] as const;

const records = allRecords;
const progressing = progressingOf;
const newest = (world: World) => world.versions.at(-1);

/**
 * A set at v1 with autoRollback and a 10 s deadline; v2 applied and its first preUpdate hook
 * started (it hangs, as an exec whose controller died). Then no controller runs for `downMs`.
 */
function stuckAfterOutage(
  policy: (typeof policies)[number],
  hookTimeoutSeconds: number,
  downMs: number,
): HookWorld {
  const world = createWorld(
    makePetSet({ replicas: 3, podManagementPolicy: policy, autoRollback: true, progressDeadlineSeconds: 10 }),
  );
  expect(runUntilConverged(world)).toBeGreaterThanOrEqual(0);
  updateSpec(world, (s) => {
    s.lifecycle = {
      preUpdate: hookSpec("exec", { timeoutSeconds: hookTimeoutSeconds }),
    } as typeof s.lifecycle;
  });
  expect(runUntilConverged(world)).toBeGreaterThanOrEqual(0);
  const hw = withHooks(world, { result: () => "hang" });
  setImage(world, "app:healed");
  hookSync(hw);
  expect(records(world).map((r) => [r.hook, r.phase])).toEqual([["preUpdate", "Running"]]);
  world.now += downMs;
  return hw;
}

/**
 * A set at v1 with autoRollback and a 10 s deadline; v2 applied and its first pod crash-loops
 * (the rollout stalls, within the deadline). Then no controller runs for `downMs`.
 */
function brokenAfterOutage(policy: (typeof policies)[number], downMs: number): World {
  const world = createWorld(
    makePetSet({ replicas: 3, podManagementPolicy: policy, autoRollback: true, progressDeadlineSeconds: 10 }),
  );
  expect(runUntilConverged(world)).toBeGreaterThanOrEqual(0);
  setImage(world, "app:broken");
  for (let i = 0; i < 3; i++) {
    sync(world);
    tick(world);
  }
  expect(progressing(world)?.reason).toBe("RollingOut");
  world.now += downMs;
  return world;
}

describe.each(policies)("seed 3007: a takeover is not judged on time nobody drove, %s", (policy) => {
  it("a version whose deadline passed while no controller ran is not rolled back by the new leader", () => {
    const counted = brokenAfterOutage(policy, 30_000);
    sync(counted);
    sync(counted);
    expect(progressing(counted)?.reason).toBe("RolledBack");

    const world = brokenAfterOutage(policy, 30_000);
    world.drivingSince = world.now;
    sync(world);
    sync(world);
    expect(progressing(world)?.reason).not.toBe("ProgressDeadlineExceeded");
    expect(progressing(world)?.reason).not.toBe("RolledBack");
    expect(newest(world)?.spec.template.spec.containers[0]?.image).toBe("app:broken");
  });

  it("the new leader's own deadline still applies: no progress for progressDeadlineSeconds after it took over", () => {
    const world = brokenAfterOutage(policy, 30_000);
    world.drivingSince = world.now;
    sync(world);
    world.now += 10_000;
    sync(world);
    expect(progressing(world)?.reason).toBe("ProgressDeadlineExceeded");
    sync(world);
    expect(progressing(world)?.reason).toBe("RolledBack");
    expect(newest(world)?.spec.rollbackOf).toBe(1);
  });

  it("a hook that hangs across the outage holds the deadline: it is judged by its timeout, counted from the takeover", () => {
    const hw = stuckAfterOutage(policy, 120, 30_000);
    hw.world.drivingSince = hw.world.now;
    hookSync(hw);
    hw.world.now += 60_000;
    hookSync(hw);
    expect(progressing(hw.world)?.reason).toBe("RollingOut");
    hw.world.now = (hw.world.drivingSince ?? 0) + 120_000;
    hookSync(hw);
    expect(records(hw.world)[0]?.message).toBe("timed out after 120s (timeoutSeconds)");
    expect(newest(hw.world)?.spec.template.spec.containers[0]?.image).toBe("app:healed");
  });

  it("a hook run whose timeout passed while no controller ran gets a full timeout from the takeover", () => {
    const counted = stuckAfterOutage(policy, 5, 60_000);
    hookSync(counted);
    expect(records(counted.world)[0]?.message).toBe("timed out after 5s (timeoutSeconds)");

    const hw = stuckAfterOutage(policy, 5, 60_000);
    const takeover = hw.world.now;
    hw.world.drivingSince = takeover;
    hookSync(hw);
    expect(records(hw.world).map((r) => r.phase)).toEqual(["Running"]);
    hw.world.now = takeover + 4_999;
    hookSync(hw);
    expect(records(hw.world).map((r) => r.phase)).toEqual(["Running"]);
    hw.world.now = takeover + 5_000;
    hookSync(hw);
    expect(records(hw.world)[0]?.message).toBe("timed out after 5s (timeoutSeconds)");
  });
});

describe("judgedFrom", () => {
  it.each([
    [1_000, undefined, 1_000],
    [1_000, 500, 1_000],
    [1_000, 2_000, 2_000],
  ])("started %d, driving since %s: judged from %d", (started, since, expected) => {
    expect(judgedFrom(started, since)).toBe(expected);
  });
});
