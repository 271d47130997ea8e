/**
 * Lifecycle hooks in the planner (src/controller/planner/hooks.ts), run in the pure world with
 * a scripted hook runner; the rollout invariants (simulate.ts) and the hook invariants
 * (hook-sim.ts) are checked after every step.
 */
import { describe, expect, it } from "vitest";
import { ConditionTypes, HookAnnotations } from "../../../../src/api/index.js";
import { makePetSet } from "./fixtures.js";
import { allRecords, type HookWorld, hookSpec, hookSync, runHookWorld, withHooks } from "./hook-sim.js";
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

function worldWith(
  policy: (typeof policies)[number],
  lifecycle: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): World {
  const world = createWorld(makePetSet({ replicas: 3, podManagementPolicy: policy, ...extra }));
  expect(runUntilConverged(world)).toBeGreaterThanOrEqual(0);
  updateSpec(world, (s) => {
    s.lifecycle = lifecycle as typeof s.lifecycle;
  });
  return world;
}

const records = allRecords;
const progressing = progressingOf;
const clean = (hw: HookWorld) => [...hw.world.violations, ...hw.violations];
const settled = (hw: HookWorld) => converged(hw.world) && progressing(hw.world)?.reason === "RolloutComplete";

describe.each(policies)("hooks, podManagementPolicy %s", (policy) => {
  it("preUpdate and postUpdate run for each pet in reverse ordinal order, each pet after the previous one is done", () => {
    const world = worldWith(policy, { preUpdate: hookSpec("exec"), postUpdate: hookSpec("external") });
    const hw = withHooks(world);
    setImage(world, "app:2");
    expect(runHookWorld(hw, settled)).toBeGreaterThanOrEqual(0);
    expect(hw.started).toEqual([
      "preUpdate web-2 v2",
      "postUpdate web-2 v2",
      "preUpdate web-1 v2",
      "postUpdate web-1 v2",
      "preUpdate web-0 v2",
      "postUpdate web-0 v2",
    ]);
    expect(clean(hw)).toEqual([]);
    expect(world.petSet.status?.hooks).toBeUndefined();
  });

  it("preUpdate failing with Pause stops the rollout at that pet; hook retry runs it again and the rollout finishes", () => {
    let fail = true;
    const world = worldWith(policy, { preUpdate: hookSpec("exec", { retries: 1 }) });
    const hw = withHooks(world, { result: () => (fail ? "fail" : "succeed") });
    setImage(world, "app:2");
    expect(runHookWorld(hw, (h) => progressing(h.world)?.reason === "HookFailed")).toBeGreaterThanOrEqual(0);
    expect(hw.finished).toEqual(["preUpdate web-2 v2 fail", "preUpdate web-2 v2 fail"]);
    expect(podsOf(world).every((p) => p.version === 1)).toBe(true);
    expect(progressing(world)?.status).toBe("False");
    expect(progressing(world)?.message).toContain("hook preUpdate on web-2 failed after 2 attempt(s)");
    expect(world.petSet.status?.hooks?.map((r) => [r.pod, r.phase, r.outcome])).toEqual([
      ["web-2", "Failed", "Paused"],
    ]);
    // Nothing moves while paused on the hook.
    for (let i = 0; i < 5; i++) {
      hookSync(hw);
      tick(world);
    }
    expect(podsOf(world).every((p) => p.version === 1)).toBe(true);
    // kubectl petset hook retry: the annotation names the record's id and attempts.
    fail = false;
    const failed = records(world).find((r) => r.pod === "web-2");
    world.petSet = {
      ...world.petSet,
      metadata: {
        ...world.petSet.metadata,
        annotations: { [HookAnnotations.retry]: `${failed?.id}#${failed?.attempts}` },
      },
    };
    expect(runHookWorld(hw, settled)).toBeGreaterThanOrEqual(0);
    expect(clean(hw)).toEqual([]);
  });

  it("preUpdate failing with Ignore goes on", () => {
    const world = worldWith(policy, { preUpdate: hookSpec("exec", { failurePolicy: "Ignore" }) });
    const hw = withHooks(world, { result: () => "fail" });
    setImage(world, "app:2");
    expect(runHookWorld(hw, settled)).toBeGreaterThanOrEqual(0);
    expect(records(world).map((r) => r.outcome)).toEqual(["Ignored", "Ignored", "Ignored"]);
    expect(clean(hw)).toEqual([]);
  });

  it("postUpdate failing with Rollback rolls back to the last complete version; nothing stays in a hook", () => {
    const world = worldWith(policy, { postUpdate: hookSpec("external", { failurePolicy: "Rollback" }) });
    const hw = withHooks(world, { result: (r) => (r.toVersion === 2 ? "fail" : "succeed") });
    setImage(world, "app:2");
    expect(runHookWorld(hw, (h) => settled(h) && h.world.versions.length === 3)).toBeGreaterThanOrEqual(0);
    const newest = world.versions.at(-1);
    expect(newest?.spec.rollbackOf).toBe(1);
    expect(podsOf(world).every((p) => p.hash === world.versions[0]?.spec.hash)).toBe(true);
    expect(records(world).filter((r) => r.phase === "Running")).toEqual([]);
    // The rollback replaces web-2 again; its postUpdate runs for the rollback version.
    expect(hw.finished).toEqual(["postUpdate web-2 v2 fail", "postUpdate web-2 v3 succeed"]);
    expect(clean(hw)).toEqual([]);
  });

  it("preRollout failing: no pet moves; a newer version cancels nothing stuck and starts its own", () => {
    const world = worldWith(policy, { preRollout: hookSpec("external") });
    const hw = withHooks(world, { result: (r) => (r.toVersion === 2 ? "fail" : "succeed") });
    setImage(world, "app:2");
    expect(runHookWorld(hw, (h) => progressing(h.world)?.reason === "HookFailed")).toBeGreaterThanOrEqual(0);
    expect(podsOf(world).every((p) => p.version === 1 && p.targetVersion !== 2)).toBe(true);
    expect(progressing(world)?.message).toContain("hook preRollout of version 2 failed");
    setImage(world, "app:3");
    expect(runHookWorld(hw, settled)).toBeGreaterThanOrEqual(0);
    expect(hw.started).toEqual(["preRollout v2", "preRollout v3"]);
    expect(clean(hw)).toEqual([]);
  });

  it("issue 24 (chaos slice, seed 15 on kube-apiserver): a set whose first pets were created while paused still runs the next version's preRollout", () => {
    // Paused before the first sync: the pets are created at version 1 while paused.
    const world = createWorld(
      makePetSet({
        replicas: 3,
        podManagementPolicy: policy,
        paused: true,
        lifecycle: { preRollout: hookSpec("external") },
      }),
    );
    expect(runUntilConverged(world)).toBeGreaterThanOrEqual(0);
    expect(podsOf(world).map((p) => p.version)).toEqual([1, 1, 1]);
    const hw = withHooks(world);
    setImage(world, "app:2");
    updateSpec(world, (s) => {
      s.paused = false;
    });
    expect(runHookWorld(hw, settled)).toBeGreaterThanOrEqual(0);
    // The migration ran before any pet moved to version 2 (checked after every step by hook-sim).
    expect(hw.started).toEqual(["preRollout v2"]);
    expect(podsOf(world).every((p) => p.version === 2)).toBe(true);
    expect(clean(hw)).toEqual([]);
  });

  it("postRollout runs once after every pet; the rollout is complete only after it", () => {
    const world = worldWith(policy, { postRollout: hookSpec("external") });
    const hw = withHooks(world, { ticks: 3 });
    setImage(world, "app:2");
    expect(runHookWorld(hw, (h) => converged(h.world))).toBeGreaterThanOrEqual(0);
    expect(progressing(world)?.reason).not.toBe("RolloutComplete");
    expect(runHookWorld(hw, settled)).toBeGreaterThanOrEqual(0);
    expect(hw.started).toEqual(["postRollout v2"]);
    expect(world.petSet.status?.lastCompleteVersion).toBe(2);
  });

  it("a hook that hangs times out after timeoutSeconds and its failure policy applies", () => {
    const world = worldWith(policy, { preUpdate: hookSpec("exec", { timeoutSeconds: 5 }) });
    const hw = withHooks(world, { result: () => "hang" });
    setImage(world, "app:2");
    expect(runHookWorld(hw, (h) => progressing(h.world)?.reason === "HookFailed")).toBeGreaterThanOrEqual(0);
    const r = records(world)[0];
    expect(r?.message).toBe("timed out after 5s (timeoutSeconds)");
    expect(Date.parse(r?.finishedAt ?? "") - Date.parse(r?.startedAt ?? "")).toBe(5000);
  });

  it("pausing cancels a running hook; resuming runs it again (same id, next attempt)", () => {
    const world = worldWith(policy, { preUpdate: hookSpec("exec") });
    const hw = withHooks(world, { result: () => "hang" });
    setImage(world, "app:2");
    hookSync(hw);
    expect(records(world).map((r) => r.phase)).toEqual(["Running"]);
    updateSpec(world, (s) => {
      s.paused = true;
    });
    hookSync(hw);
    expect(records(world).map((r) => [r.phase, r.message])).toEqual([["Cancelled", "the PetSet is paused"]]);
    updateSpec(world, (s) => {
      s.paused = false;
    });
    hw.script.result = () => "succeed";
    expect(runHookWorld(hw, settled)).toBeGreaterThanOrEqual(0);
    expect(records(world).find((r) => r.pod === "web-2")?.attempts).toBe(2);
    expect(clean(hw)).toEqual([]);
  });
});

describe("preScaleDown", () => {
  it("OrderedReady: pets leave highest first, one at a time, each after its hook; claims only after", () => {
    const world = worldWith("OrderedReady", { preScaleDown: hookSpec("external") }, { replicas: 5 });
    const hw = withHooks(world, { ticks: 2 });
    updateSpec(world, (s) => {
      s.replicas = 3;
    });
    expect(runHookWorld(hw, (h) => podsOf(h.world).length === 3)).toBeGreaterThanOrEqual(0);
    expect(hw.started).toEqual(["preScaleDown web-4 v1", "preScaleDown web-3 v1"]);
    expect(records(world).map((r) => r.replicas)).toEqual(["5→3", "4→3"]);
    expect(clean(hw)).toEqual([]);
  });

  it("Parallel: every condemned pet runs its hook at once", () => {
    const world = worldWith("Parallel", { preScaleDown: hookSpec("external") }, { replicas: 5 });
    const hw = withHooks(world, { ticks: 2 });
    updateSpec(world, (s) => {
      s.replicas = 3;
    });
    hookSync(hw);
    expect(hw.started.sort()).toEqual(["preScaleDown web-3 v1", "preScaleDown web-4 v1"]);
    expect(runHookWorld(hw, (h) => podsOf(h.world).length === 3)).toBeGreaterThanOrEqual(0);
    expect(clean(hw)).toEqual([]);
  });

  it("scaling back up while the hook runs cancels it and the pet stays", () => {
    const world = worldWith("OrderedReady", { preScaleDown: hookSpec("external") }, { replicas: 4 });
    const hw = withHooks(world, { result: () => "hang" });
    updateSpec(world, (s) => {
      s.replicas = 3;
    });
    hookSync(hw);
    expect(records(world).map((r) => r.phase)).toEqual(["Running"]);
    updateSpec(world, (s) => {
      s.replicas = 4;
    });
    hookSync(hw);
    expect(records(world).map((r) => r.phase)).toEqual(["Cancelled"]);
    expect(podsOf(world).map((p) => p.name)).toEqual(["web-0", "web-1", "web-2", "web-3"]);
    expect(clean(hw)).toEqual([]);
  });
});

describe("regressions of known hook deadlocks (OpenKruise)", () => {
  it("a pet waiting in preUpdate is still counted available and Available stays True", () => {
    const world = worldWith("Parallel", { preUpdate: hookSpec("exec") });
    const hw = withHooks(world, { result: () => "hang" });
    setImage(world, "app:2");
    hookSync(hw);
    expect(world.petSet.status?.availableReplicas).toBe(3);
    const available = world.petSet.status?.conditions.find((c) => c.type === ConditionTypes.available);
    expect(available?.status).toBe("True");
  });

  it("never more pets in preUpdate than maxUnavailable (2 of 5)", () => {
    const world = worldWith(
      "Parallel",
      { preUpdate: hookSpec("exec") },
      {
        replicas: 5,
        updateStrategy: { rollingUpdate: { maxUnavailable: 2 } },
      },
    );
    const hw = withHooks(world, { ticks: 2 });
    setImage(world, "app:2");
    hookSync(hw);
    expect(hw.started).toEqual(["preUpdate web-4 v2", "preUpdate web-3 v2"]);
    expect(runHookWorld(hw, settled)).toBeGreaterThanOrEqual(0);
    expect(clean(hw)).toEqual([]);
  });

  it("after a rollback mid-hook no pet stays waiting in the superseded version's hook", () => {
    const world = worldWith("OrderedReady", { preUpdate: hookSpec("exec") });
    const hw = withHooks(world, { result: (r) => (r.toVersion === 2 ? "hang" : "succeed") });
    setImage(world, "app:2");
    hookSync(hw);
    setImage(world, "app:1");
    expect(runHookWorld(hw, settled)).toBeGreaterThanOrEqual(0);
    expect(records(world).filter((r) => r.phase === "Running")).toEqual([]);
    expect(records(world).find((r) => r.toVersion === 2)?.phase).toBe("Cancelled");
  });

  it("a hook declared is never skipped: no pod moves before its record exists", () => {
    const world = worldWith("Parallel", { preUpdate: hookSpec("exec") });
    const hw = withHooks(world);
    setImage(world, "app:2");
    const plan = hookSync(hw);
    expect(plan.steps.filter((s) => s.kind === "deletePod")).toEqual([]);
    expect(records(world).map((r) => r.pod)).toEqual(["web-2"]);
  });
});

/** Every hook point × failure policy × pod-management policy, with a hook that always fails. */
const points = [
  { hook: "preRollout", change: "image" },
  { hook: "preUpdate", change: "image" },
  { hook: "postUpdate", change: "image" },
  { hook: "postRollout", change: "image" },
  { hook: "preScaleDown", change: "scale" },
] as const;
const rollbackAllowed = new Set(["preUpdate", "postUpdate"]);

describe.each(policies)("every hook point failing for good, podManagementPolicy %s", (policy) => {
  describe.each(points)("$hook", ({ hook, change }) => {
    it.each(["Pause", "Ignore", "Rollback"] as const)("failurePolicy %s", (failurePolicy) => {
      const world = worldWith(policy, { [hook]: hookSpec("external", { failurePolicy }) }, { replicas: 3 });
      // Version 2 and scale-down fail; a rollback version's hooks succeed.
      const hw = withHooks(world, {
        result: (r) => (r.toVersion === 2 || r.hook === "preScaleDown" ? "fail" : "succeed"),
      });
      if (change === "image") setImage(world, "app:2");
      else
        updateSpec(world, (s) => {
          s.replicas = 2;
        });
      const effective = failurePolicy === "Rollback" && !rollbackAllowed.has(hook) ? "Pause" : failurePolicy;
      if (effective === "Pause") {
        expect(runHookWorld(hw, (h) => progressing(h.world)?.reason === "HookFailed")).toBeGreaterThanOrEqual(
          0,
        );
        // Nothing more moves while it waits.
        const before = JSON.stringify(podsOf(world).map((p) => [p.name, p.version, p.uid]));
        for (let i = 0; i < 5; i++) {
          hookSync(hw);
          tick(world);
        }
        expect(JSON.stringify(podsOf(world).map((p) => [p.name, p.version, p.uid]))).toBe(before);
      } else if (effective === "Ignore") {
        const done = change === "image" ? settled : (h: HookWorld) => podsOf(h.world).length === 2;
        expect(runHookWorld(hw, done)).toBeGreaterThanOrEqual(0);
        expect(records(world).every((r) => r.phase !== "Running")).toBe(true);
      } else {
        expect(runHookWorld(hw, (h) => settled(h) && h.world.versions.length === 3)).toBeGreaterThanOrEqual(
          0,
        );
        expect(world.versions.at(-1)?.spec.rollbackOf).toBe(1);
      }
      expect(records(world).filter((r) => r.phase === "Running" && r.toVersion === 2)).toEqual([]);
      expect(clean(hw)).toEqual([]);
    });
  });
});
