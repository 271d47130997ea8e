import { describe, expect, it } from "vitest";
import { ProgressingReasons } from "../../../../src/api/index.js";
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

const progressing = progressingOf;
const createdVersions = (w: World) =>
  w.stepsApplied.flatMap((s) =>
    s.kind === "createPod" ? [s.version] : s.kind === "patchPodImages" ? [s.toVersion] : [],
  );

function run(w: World, ticks: number) {
  for (let i = 0; i < ticks; i++) {
    sync(w);
    tick(w);
  }
  sync(w);
}

describe.each(["OrderedReady", "Parallel"] as const)("scenarios, podManagementPolicy %s", (policy) => {
  const world = (spec: Parameters<typeof makePetSet>[0] = {}, readyTicks = 2) =>
    createWorld(
      makePetSet({ replicas: 3, podManagementPolicy: policy, progressDeadlineSeconds: 30, ...spec }),
      {
        readyTicks,
      },
    );

  it("creates, updates and reports completion", () => {
    const w = world();
    expect(runUntilConverged(w)).toBeGreaterThan(0);
    setImage(w, "app:2");
    expect(runUntilConverged(w)).toBeGreaterThan(0);
    sync(w);
    expect(progressing(w)?.reason).toBe(ProgressingReasons.rolloutComplete);
    expect(w.petSet.status).toMatchObject({
      currentVersion: 2,
      updateVersion: 2,
      lastCompleteVersion: 2,
      updatedReplicas: 3,
    });
    const updates = w.stepsApplied
      .filter((s) => s.kind === "deletePod" && s.reason === "update")
      .map((s) => ("podName" in s ? s.podName : ""));
    expect(updates).toEqual(["web-2", "web-1", "web-0"]);
    expect(w.violations).toEqual([]);
  });

  it("a fix replaces a broken rollout's pods without a human, and reports the deadline meanwhile", () => {
    const w = world();
    runUntilConverged(w);
    setImage(w, "bad/app:broken");
    run(w, 40);
    expect(progressing(w)).toMatchObject({
      status: "False",
      reason: ProgressingReasons.progressDeadlineExceeded,
    });
    expect(podsOf(w).filter((p) => p.version === 2)).toHaveLength(1);
    setImage(w, "app:3");
    expect(runUntilConverged(w)).toBeGreaterThan(0);
    expect(podsOf(w).every((p) => p.version === 3)).toBe(true);
    expect(w.violations).toEqual([]);
  });

  it("a version that arrives mid-rollout waits; one skipped that way never runs", () => {
    const w = world({}, 4);
    runUntilConverged(w);
    setImage(w, "app:2");
    run(w, 6);
    setImage(w, "app:3");
    sync(w);
    setImage(w, "app:4");
    expect(runUntilConverged(w)).toBeGreaterThan(0);
    expect(createdVersions(w)).not.toContain(3);
    expect(w.versions.map((v) => v.spec.version)).toEqual([1, 2, 3, 4]);
    expect(w.violations).toEqual([]);
  });

  it("autoRollback goes back to the last complete version by itself", () => {
    const w = world({ autoRollback: true });
    runUntilConverged(w);
    setImage(w, "bad/app:broken");
    expect(runUntilConverged(w, 200)).toBeGreaterThan(0);
    const newest = w.versions[w.versions.length - 1];
    expect(newest?.spec).toMatchObject({ version: 3, rollbackOf: 1 });
    expect(w.violations).toEqual([]);
  });

  it("paused: nothing moves; resuming finishes the rollout", () => {
    const w = world();
    runUntilConverged(w);
    updateSpec(w, (s) => {
      s.paused = true;
    });
    setImage(w, "app:2");
    run(w, 20);
    expect(podsOf(w).every((p) => p.version === 1)).toBe(true);
    expect(progressing(w)?.reason).toBe(ProgressingReasons.paused);
    updateSpec(w, (s) => {
      s.paused = false;
    });
    expect(runUntilConverged(w)).toBeGreaterThan(0);
    expect(w.violations).toEqual([]);
  });

  it("partition: a canary, then the rest when the partition is lowered", () => {
    const w = world({ updateStrategy: { rollingUpdate: { partition: 2 } } });
    runUntilConverged(w);
    setImage(w, "app:2");
    run(w, 20);
    expect(podsOf(w).map((p) => p.version)).toEqual([1, 1, 2]);
    expect(progressing(w)?.reason).toBe(ProgressingReasons.rolloutComplete);
    expect(w.petSet.status?.currentVersion).toBe(1);
    updateSpec(w, (s) => {
      s.updateStrategy.rollingUpdate = {
        partition: 0,
        maxUnavailable: 1,
        podUpdatePolicy: "Recreate",
        inPlaceResizeTimeoutSeconds: 120,
      };
    });
    expect(runUntilConverged(w)).toBeGreaterThan(0);
    expect(w.violations).toEqual([]);
  });

  it("InPlaceIfPossible: image changes patch pods, which keep their uid", () => {
    const w = world({ updateStrategy: { rollingUpdate: { podUpdatePolicy: "InPlaceIfPossible" } } });
    runUntilConverged(w);
    const uids = podsOf(w).map((p) => p.uid);
    setImage(w, "app:2");
    expect(runUntilConverged(w)).toBeGreaterThan(0);
    expect(podsOf(w).map((p) => p.uid)).toEqual(uids);
    expect(w.stepsApplied.filter((s) => s.kind === "patchPodImages")).toHaveLength(3);
    expect(w.violations).toEqual([]);
  });

  it("scale-down removes the highest pets and, with whenScaled=Delete, their claims", () => {
    const w = world({ replicas: 4, persistentVolumeClaimRetentionPolicy: { whenScaled: "Delete" } });
    updateSpec(w, (s) => {
      s.volumeClaimTemplates = [{ metadata: { name: "data" }, spec: {} }];
    });
    runUntilConverged(w);
    expect([...w.claims.keys()].sort()).toEqual(["data-web-0", "data-web-1", "data-web-2", "data-web-3"]);
    updateSpec(w, (s) => {
      s.replicas = 2;
    });
    expect(runUntilConverged(w)).toBeGreaterThan(0);
    run(w, 3);
    expect([...w.claims.keys()].sort()).toEqual(["data-web-0", "data-web-1"]);
    expect(converged(w)).toBe(true);
    expect(w.violations).toEqual([]);
  });
});
