/**
 * Time without a controller is not judged (src/controller/planner/takeover.ts). Regression of
 * chaos seed 3007 on kube-apiserver: a healed version was rolled back by autoRollback just after
 * a takeover, its progress deadline having passed while controllers were killed and the leader
 * frozen; the rollout's preUpdate hook "timed out (0 ms)" the same way without having run.
 * Each case runs the world once as the new leader (drivingSince = its takeover) and once as a
 * controller that counts all time, so the test fails if the rule is lost.
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

describe.each(policies)("seed 3007: a takeover is not judged on time nobody drove, %s", (policy) => {
  it("a version whose deadline passed while no controller ran is not rolled back by the new leader", () => {
    const counted = stuckAfterOutage(policy, 120, 30_000);
    hookSync(counted);
    hookSync(counted);
    expect(progressing(counted.world)?.reason).toBe("RolledBack");

    const hw = stuckAfterOutage(policy, 120, 30_000);
    hw.world.drivingSince = hw.world.now;
    hookSync(hw);
    hookSync(hw);
    expect(progressing(hw.world)?.reason).not.toBe("ProgressDeadlineExceeded");
    expect(progressing(hw.world)?.reason).not.toBe("RolledBack");
    expect(newest(hw.world)?.spec.template.spec.containers[0]?.image).toBe("app:healed");
  });

  it("the new leader's own deadline still applies: no progress for progressDeadlineSeconds after it took over", () => {
    const hw = stuckAfterOutage(policy, 120, 30_000);
    hw.world.drivingSince = hw.world.now;
    hookSync(hw);
    hw.world.now += 10_000;
    hookSync(hw);
    expect(progressing(hw.world)?.reason).toBe("ProgressDeadlineExceeded");
    hookSync(hw);
    expect(progressing(hw.world)?.reason).toBe("RolledBack");
    expect(newest(hw.world)?.spec.rollbackOf).toBe(1);
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
