/**
 * Scale-down hooks (preScaleDown, the condemned leader's switchover) across occasions:
 * issue 24 items 9 and 14. Each scale-down of a pet is its own occasion with its own hook id;
 * a record never answers for another occasion (an update's switchover, an earlier scale-down).
 * Pure world (simulate.ts) with the scripted hook runner (hook-sim.ts).
 */
import { describe, expect, it } from "vitest";
import type { HookRecord } from "../../../../src/api/index.js";
import { makePetSet } from "./fixtures.js";
import { allRecords, type HookWorld, hookSpec, hookSync, withHooks } from "./hook-sim.js";
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

const ROLE = "petset.dev/role";

/** The app labels its pods: these ordinals lead, every other live pod follows. */
function label(world: World, leaders: number[]): void {
  for (const [name, pod] of world.pods) {
    const role = leaders.includes(pod.view.ordinal) ? "leader" : "follower";
    if (pod.view.labels[ROLE] === role) continue;
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

function run(hw: HookWorld, leaders: () => number[], until: (hw: HookWorld) => boolean, max = 200): number {
  for (let t = 0; t < max; t++) {
    label(hw.world, leaders());
    hookSync(hw);
    if (until(hw)) return t;
    tick(hw.world);
  }
  return -1;
}

const scaleTo = (world: World, replicas: number) =>
  updateSpec(world, (s) => {
    s.replicas = replicas;
  });
const scaleDownDeletes = (world: World) =>
  world.stepsApplied.flatMap((s) => (s.kind === "deletePod" && s.reason === "scale-down" ? [s.podName] : []));
const of = (world: World, hook: string, pod: string): HookRecord[] =>
  allRecords(world).filter((r) => r.hook === hook && r.pod === pod);

describe("issue 24 item 9: switchover ids are unique per occasion", () => {
  it("issue 24 item 9: after an in-place update, a scale-down of the pet that leads again runs a new switchover before the pod goes", () => {
    const world = createWorld(
      makePetSet({
        replicas: 3,
        podManagementPolicy: "OrderedReady",
        roles: { switchover: hookSpec("external") },
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { podUpdatePolicy: "InPlaceIfPossible" } },
      }),
    );
    expect(runUntilConverged(world)).toBeGreaterThanOrEqual(0);
    const hw = withHooks(world);
    setImage(world, "app:2");
    // web-2 leads; its switchover hands over to web-1, then web-2 is patched in place (same uid).
    let leader = 2;
    const leaders = () => {
      if (of(world, "switchover", "web-2").some((r) => r.phase === "Succeeded")) leader = 1;
      return [leader];
    };
    expect(
      run(hw, leaders, (h) => converged(h.world) && progressingOf(h.world)?.reason === "RolloutComplete"),
    ).toBeGreaterThanOrEqual(0);
    const uid = podsOf(world).find((p) => p.name === "web-2")?.uid;
    expect(world.stepsApplied.some((s) => s.kind === "patchPodImages" && s.podName === "web-2")).toBe(true);
    expect(of(world, "switchover", "web-2").map((r) => r.phase)).toEqual(["Succeeded"]);

    // The role moves back to web-2 (a failback); then the set is scaled down to 2.
    label(world, [2]);
    scaleTo(world, 2);
    const hang = withHooks(world, { result: () => "hang" });
    hookSync(hang);
    // web-2 (same pod, leader again) must not go without a switchover of its own.
    expect(podsOf(world).find((p) => p.name === "web-2")).toMatchObject({ uid });
    expect(scaleDownDeletes(world)).toEqual([]);
    const switchovers = of(world, "switchover", "web-2");
    expect(switchovers.map((r) => r.phase)).toEqual(["Succeeded", "Running"]);
    expect(new Set(switchovers.map((r) => r.id)).size).toBe(2);
  });
});

describe("issue 24 item 14: preScaleDown across occasions", () => {
  it("issue 24 item 14a: a preScaleDown that failed (Paused), then a scale back up and down again, runs again under a new id", () => {
    const world = createWorld(makePetSet({ replicas: 3, podManagementPolicy: "OrderedReady" }));
    expect(runUntilConverged(world)).toBeGreaterThanOrEqual(0);
    updateSpec(world, (s) => {
      s.lifecycle = { preScaleDown: hookSpec("external", { failurePolicy: "Pause" }) } as typeof s.lifecycle;
    });
    const failing = withHooks(world, { result: () => "fail" });
    scaleTo(world, 2);
    expect(
      run(
        failing,
        () => [],
        (h) => progressingOf(h.world)?.reason === "HookFailed",
      ),
    ).toBeGreaterThanOrEqual(0);
    expect(of(world, "preScaleDown", "web-2").map((r) => [r.phase, r.outcome])).toEqual([
      ["Failed", "Paused"],
    ]);

    // The user scales back up (web-2 stays), fixes the cause, and scales down again.
    scaleTo(world, 3);
    for (let i = 0; i < 3; i++) {
      hookSync(failing);
      tick(world);
    }
    scaleTo(world, 2);
    const ok = withHooks(world);
    expect(
      run(
        ok,
        () => [],
        (h) => podsOf(h.world).length === 2,
      ),
    ).toBeGreaterThanOrEqual(0);
    const runs = of(world, "preScaleDown", "web-2");
    expect(new Set(runs.map((r) => r.id)).size).toBe(2);
    expect(runs.at(-1)?.phase).toBe("Succeeded");
    expect(ok.started).toEqual(["preScaleDown web-2 v1"]);
  });

  it("issue 24 item 14b: relabelling a condemned pod keeps its running preScaleDown record the one that counts", () => {
    const world = createWorld(makePetSet({ replicas: 3, podManagementPolicy: "OrderedReady" }));
    expect(runUntilConverged(world)).toBeGreaterThanOrEqual(0);
    updateSpec(world, (s) => {
      s.lifecycle = { preScaleDown: hookSpec("external", { timeoutSeconds: 5 }) } as typeof s.lifecycle;
    });
    const hang = withHooks(world, { result: () => "hang" });
    scaleTo(world, 2);
    hookSync(hang);
    expect(of(world, "preScaleDown", "web-2").map((r) => r.phase)).toEqual(["Running"]);
    // A rollback to the same content (version 2, rollbackOf 1... here: a no-op content change
    // back and forth) relabels every pod, the condemned one too.
    setImage(world, "app:1b");
    setImage(world, "app:1");
    for (let i = 0; i < 12; i++) {
      hookSync(hang);
      tick(world);
    }
    // The run timed out once on its own record: one record per id, none left Running unseen.
    const byId = new Map<string, HookRecord[]>();
    for (const v of world.versions)
      for (const r of v.status?.hooks ?? []) byId.set(r.id, [...(byId.get(r.id) ?? []), r]);
    for (const [id, copies] of byId) expect({ id, copies: copies.length }).toEqual({ id, copies: 1 });
    expect(hang.violations).toEqual([]);
  });
});

/** Make a pod crash-loop (the kubelet of simulate.ts keeps it so while its image is unchanged). */
function crashLoop(world: World, name: string): void {
  const pod = world.pods.get(name);
  if (pod === undefined) throw new Error(`no ${name}`);
  world.serial++;
  const { readySince: _r, ...view } = pod.view;
  world.pods.set(name, {
    view: { ...view, ready: false, failing: "CrashLoopBackOff", resourceVersion: String(world.serial) },
  });
}

describe("issue 24 item 14d: hooks that need the condemned pod running", () => {
  it.each(["OrderedReady", "Parallel"] as const)(
    "issue 24 item 14d: an exec preScaleDown on a crash-looping condemned pod is skipped with an Event (%s)",
    (policy) => {
      const world = createWorld(makePetSet({ replicas: 3, podManagementPolicy: policy }));
      expect(runUntilConverged(world)).toBeGreaterThanOrEqual(0);
      updateSpec(world, (s) => {
        s.lifecycle = { preScaleDown: hookSpec("exec") } as typeof s.lifecycle;
      });
      crashLoop(world, "web-2");
      scaleTo(world, 2);
      const hw = withHooks(world, { result: () => "fail" });
      const plan = hookSync(hw);
      expect(scaleDownDeletes(world)).toEqual(["web-2"]);
      expect(allRecords(world)).toEqual([]);
      expect(plan.events.filter((e) => e.reason === "HookSkipped").map((e) => e.object)).toEqual(["web-2"]);
      expect(plan.events.find((e) => e.reason === "HookSkipped")?.message).toContain("CrashLoopBackOff");
    },
  );

  it("issue 24 item 14d: a job/external preScaleDown still runs on a crash-looping pod (it does not run in it)", () => {
    const world = createWorld(makePetSet({ replicas: 3, podManagementPolicy: "OrderedReady" }));
    expect(runUntilConverged(world)).toBeGreaterThanOrEqual(0);
    updateSpec(world, (s) => {
      s.lifecycle = { preScaleDown: hookSpec("external") } as typeof s.lifecycle;
    });
    crashLoop(world, "web-2");
    scaleTo(world, 2);
    const hw = withHooks(world, { result: () => "hang" });
    hookSync(hw);
    expect(scaleDownDeletes(world)).toEqual([]);
    expect(of(world, "preScaleDown", "web-2").map((r) => r.phase)).toEqual(["Running"]);
  });

  it("a running preScaleDown is not cancelled while another pet is briefly unavailable (OrderedReady)", () => {
    const world = createWorld(makePetSet({ replicas: 3, podManagementPolicy: "OrderedReady" }));
    expect(runUntilConverged(world)).toBeGreaterThanOrEqual(0);
    updateSpec(world, (s) => {
      s.lifecycle = { preScaleDown: hookSpec("external") } as typeof s.lifecycle;
    });
    scaleTo(world, 2);
    const hw = withHooks(world, { result: () => "hang" });
    hookSync(hw);
    crashLoop(world, "web-0");
    hookSync(hw);
    expect(of(world, "preScaleDown", "web-2").map((r) => [r.phase, r.attempts])).toEqual([["Running", 1]]);
  });

  it("a condemned leader that is not Ready goes without a switchover, as an update replaces it", () => {
    const world = createWorld(
      makePetSet({
        replicas: 3,
        podManagementPolicy: "OrderedReady",
        roles: { switchover: hookSpec("exec") },
      }),
    );
    expect(runUntilConverged(world)).toBeGreaterThanOrEqual(0);
    label(world, [2]);
    crashLoop(world, "web-2");
    scaleTo(world, 2);
    hookSync(withHooks(world, { result: () => "hang" }));
    expect(scaleDownDeletes(world)).toEqual(["web-2"]);
    expect(allRecords(world)).toEqual([]);
  });
});
