/**
 * The progress clock (src/controller/planner/progress-deadline.ts): when a rollout counts as
 * having made no progress. Issue 24 items 4 and 12, each as a user met it, in the pure world
 * with the scripted hook runner (hook-sim.ts): no wall clock, the world's clock is injected.
 */
import { describe, expect, it } from "vitest";
import { HookAnnotations, type PetSetVersion } from "../../../../src/api/index.js";
import type { Plan } from "../../../../src/controller/planner/index.js";
import { makePetSet, makePod, makeVersion } from "./fixtures.js";
import { allRecords, type HookWorld, hookSpec, hookSync, runHookWorld, withHooks } from "./hook-sim.js";
import { at, NOW, plan, progressing, v1, withPolicy } from "./plan-helpers.js";
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

const policies = ["OrderedReady", "Parallel"] as const;
const reasons = (plans: Plan[]) => plans.flatMap((p) => p.events.map((e) => e.reason));
const settled = (hw: HookWorld) =>
  converged(hw.world) && progressingOf(hw.world)?.reason === "RolloutComplete";

/** A set at v1 with a 20 s deadline, converged, then `lifecycle` added (no new version). */
function idleSet(
  policy: (typeof policies)[number],
  lifecycle: Record<string, unknown> | undefined,
  extra = {},
) {
  const world = createWorld(
    makePetSet({ replicas: 3, podManagementPolicy: policy, progressDeadlineSeconds: 20, ...extra }),
  );
  expect(runUntilConverged(world)).toBeGreaterThanOrEqual(0);
  if (lifecycle !== undefined)
    updateSpec(world, (s) => {
      s.lifecycle = lifecycle as typeof s.lifecycle;
    });
  for (let i = 0; i < 3; i++) {
    sync(world);
    tick(world);
  }
  expect(progressingOf(world)?.reason).toBe("RolloutComplete");
  return world;
}

/**
 * `kubectl petset set image` as the controller meets it: the sync that records the version plans
 * with the object it built, which has no creationTimestamp yet (sync.ts); the cache shows the
 * stored one from the next sync on.
 */
function setImageAsSynced(world: World, image: string): { first: PetSetVersion; stored: PetSetVersion } {
  setImage(world, image);
  const stored = world.versions.at(-1);
  if (stored === undefined) throw new Error("no version");
  const { creationTimestamp: _, resourceVersion: __, ...metadata } = stored.metadata;
  const first = { ...stored, metadata };
  world.versions[world.versions.length - 1] = first;
  return { first, stored };
}

/** Put the stored version back (keeping the facts and hook records the first sync wrote). */
function cacheShows(world: World, stored: PetSetVersion): void {
  const i = world.versions.length - 1;
  const now = world.versions[i];
  world.versions[i] = { ...stored, ...(now?.status !== undefined ? { status: now.status } : {}) };
}

describe.each(policies)("progress deadline, podManagementPolicy %s", (policy) => {
  describe.each([false, true])("autoRollback %s", (autoRollback) => {
    it.each([
      ["a preUpdate hook that succeeds", { preUpdate: hookSpec("exec") }],
      ["a preUpdate hook that fails (failurePolicy Pause)", { preUpdate: hookSpec("exec") }],
      ["a preRollout hook", { preRollout: hookSpec("external") }],
      ["no hooks", undefined],
    ])(
      "issue 24 item 12: a rollout after an idle spell longer than the deadline is not reported stalled (%s)",
      (what, lifecycle) => {
        const world = idleSet(policy, lifecycle, { autoRollback });
        const failing = what.includes("fails");
        const hw = withHooks(world, { result: () => (failing ? "fail" : "succeed"), ticks: 3 });
        world.now += 35_000; // idle longer than progressDeadlineSeconds
        const { stored } = setImageAsSynced(world, "app:2");
        const plans = [hookSync(hw)];
        // preRollout holds the announcement until it is done.
        expect(reasons(plans)).toContain(what.includes("preRollout") ? "HookStarted" : "RolloutStarted");
        cacheShows(world, stored);
        for (let i = 0; i < 6; i++) {
          plans.push(hookSync(hw));
          tick(world);
        }
        expect(reasons(plans)).not.toContain("ProgressDeadlineExceeded");
        expect(reasons(plans)).not.toContain("RolledBack");
        expect(world.versions.map((v) => v.spec.version)).toEqual([1, 2]);
        if (failing) expect(progressingOf(world)?.reason).toBe("HookFailed");
        else expect(runHookWorld(hw, settled)).toBeGreaterThanOrEqual(0);
        expect([...world.violations, ...hw.violations]).toEqual([]);
      },
    );
  });

  it("issue 24 item 12: a hook that runs longer than the deadline is judged by its own timeout, not the deadline", () => {
    const world = idleSet(
      policy,
      { preUpdate: hookSpec("exec", { timeoutSeconds: 300 }) },
      { autoRollback: true },
    );
    const hw = withHooks(world, { ticks: 60 }); // each run takes 60 s, the deadline is 20 s
    setImage(world, "app:2");
    const plans: Plan[] = [];
    for (let i = 0; i < 400 && !settled(hw); i++) {
      plans.push(hookSync(hw));
      tick(world);
    }
    expect(settled(hw)).toBe(true);
    expect(reasons(plans)).not.toContain("ProgressDeadlineExceeded");
    expect(hw.finished).toEqual([
      "preUpdate web-2 v2 succeed",
      "preUpdate web-1 v2 succeed",
      "preUpdate web-0 v2 succeed",
    ]);
  });

  it("the deadline still catches a version whose pods never become Ready after its hook succeeded", () => {
    const world = idleSet(policy, { preUpdate: hookSpec("exec") }, { autoRollback: true });
    const hw = withHooks(world);
    setImage(world, "app:broken");
    expect(
      runHookWorld(hw, (h) => progressingOf(h.world)?.reason === "RolledBack", 200),
    ).toBeGreaterThanOrEqual(0);
    expect(world.versions.at(-1)?.spec.rollbackOf).toBe(1);
  });

  it("issue 24 item 4: hook retry after a long HookFailed pause retries instead of rolling back", () => {
    let fail = true;
    const world = idleSet(policy, { preUpdate: hookSpec("exec") }, { autoRollback: true });
    const hw = withHooks(world, { result: () => (fail ? "fail" : "succeed"), ticks: 3 });
    setImage(world, "app:2");
    expect(runHookWorld(hw, (h) => progressingOf(h.world)?.reason === "HookFailed")).toBeGreaterThanOrEqual(
      0,
    );
    // 15 minutes paused on the failed hook, the controller syncing now and then.
    for (let i = 0; i < 15; i++) {
      world.now += 60_000;
      hookSync(hw);
    }
    expect(progressingOf(world)?.reason).toBe("HookFailed");
    // kubectl petset hook retry.
    fail = false;
    const failed = allRecords(world).find((r) => r.phase === "Failed");
    world.petSet = {
      ...world.petSet,
      metadata: {
        ...world.petSet.metadata,
        annotations: { [HookAnnotations.retry]: `${failed?.id}#${failed?.attempts}` },
      },
    };
    const plans: Plan[] = [];
    for (let i = 0; i < 200 && !settled(hw); i++) {
      plans.push(hookSync(hw));
      tick(world);
    }
    expect(reasons(plans)).toContain("HookRetried");
    expect(reasons(plans)).not.toContain("ProgressDeadlineExceeded");
    expect(reasons(plans)).not.toContain("RolledBack");
    expect(reasons(plans)).not.toContain("HookCancelled");
    expect(settled(hw)).toBe(true);
    expect(podsOf(world).every((p) => p.version === 2)).toBe(true);
    expect([...world.violations, ...hw.violations]).toEqual([]);
  });
});

describe.each(policies)("the deadline's Events say only what happens, podManagementPolicy %s", (policy) => {
  const base = withPolicy(policy);
  const v2old = makeVersion(2, "app:2", { createdAt: NOW - 700_000 });
  const settledV1 = { currentVersion: 1, updateVersion: 2, lastCompleteVersion: 1 };
  const stalled = [
    ...at(v1, [0, 1], { targetVersion: 2 }),
    makePod(2, v2old, { ready: false, createdAt: NOW - 700_000, targetVersion: 2 }),
  ];

  it("issue 24 item 12: ProgressDeadlineExceeded with autoRollback announces the rollback only as what follows if no progress comes first", () => {
    const first = plan(
      base({ spec: { autoRollback: true }, versions: [v1, v2old], status: settledV1, pods: stalled }),
    );
    const warning = first.events.find((e) => e.reason === "ProgressDeadlineExceeded");
    expect(warning?.message).toContain(
      "rolling back to version 1 (spec.autoRollback) unless the rollout progresses first",
    );
    // The pet becomes Ready before the next sync: no rollback, and none was promised.
    const recovered = [
      ...at(v1, [0, 1], { targetVersion: 2 }),
      makePod(2, v2old, { createdAt: NOW - 700_000, readySince: NOW + 500, targetVersion: 2 }),
    ];
    const next = plan(
      base({
        spec: { autoRollback: true },
        versions: [v1, v2old],
        status: { ...settledV1, conditions: first.status.conditions },
        pods: recovered,
        now: NOW + 1000,
      }),
    );
    expect(next.steps.some((s) => s.kind === "rollbackTo")).toBe(false);
    expect(next.events.map((e) => e.reason)).not.toContain("RolledBack");
    expect(progressing(next)?.status).toBe("True");
  });
});
