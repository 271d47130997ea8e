/**
 * Roles × steps (issue 24 item 11; docs/rollouts.md "Steps" and "Roles"): a step counts pets,
 * followers first, so a canary never risks the leader while a follower could go; a step whose
 * only pet would be the leader holds and says so; and "no pod is labelled leader" ends: after a
 * grace of half the progress deadline the pets left go in ordinal order, with a Warning Event.
 * Pure world (simulate.ts), invariants after every step.
 */
import { describe, expect, it } from "vitest";
import { Annotations, type RolloutStep } from "../../../../src/api/index.js";
import type { Plan } from "../../../../src/controller/planner/index.js";
import { makePetSet } from "./fixtures.js";
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
  updateSpec,
  type World,
} from "./simulate.js";

const policies = ["OrderedReady", "Parallel"] as const;
const ROLE = "petset.dev/role";
const CANARY: RolloutStep[] = [{ pets: 1 }, { pause: {} }, { pets: "100%" }];

/** The app labels pods: `leaders` lead, `followers` follow, the rest stay unlabelled. */
function label(world: World, leaders: number[], followers: number[]): void {
  for (const [name, pod] of world.pods) {
    const o = pod.view.ordinal;
    const role = leaders.includes(o) ? "leader" : followers.includes(o) ? "follower" : undefined;
    if (role === undefined || pod.view.labels[ROLE] === role) continue;
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

function roleWorld(
  policy: (typeof policies)[number],
  replicas: number,
  rollingUpdate: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): World {
  const world = createWorld(makePetSet({ replicas, podManagementPolicy: policy, roles: {}, ...extra }));
  expect(runUntilConverged(world)).toBeGreaterThanOrEqual(0);
  updateSpec(world, (s) => {
    s.updateStrategy.rollingUpdate = {
      partition: 0,
      maxUnavailable: 1,
      podUpdatePolicy: "Recreate",
      inPlaceResizeTimeoutSeconds: 120,
      ...rollingUpdate,
    };
  });
  return world;
}

function promote(world: World, full: boolean): void {
  const at = world.petSet.status?.rolloutStep;
  if (at === undefined) return;
  const annotations = {
    ...(world.petSet.metadata.annotations ?? {}),
    [Annotations.promote]: `${at.version}#${full ? "full" : at.step}`,
  };
  world.petSet = { ...world.petSet, metadata: { ...world.petSet.metadata, annotations } };
}

function runUntil(
  world: World,
  relabel: () => void,
  until: (w: World) => boolean,
  plans: Plan[] = [],
  max = 400,
): number {
  for (let t = 0; t < max; t++) {
    relabel();
    plans.push(sync(world));
    if (until(world)) return t;
    tick(world);
  }
  return -1;
}

const updates = (world: World) =>
  world.stepsApplied.flatMap((s) => (s.kind === "deletePod" && s.reason === "update" ? [s.podName] : []));
const stepPaused = (world: World) => progressingOf(world)?.reason === "StepPaused";
const complete = (world: World) => converged(world) && progressingOf(world)?.reason === "RolloutComplete";

describe.each(policies)("issue 24 item 11: roles × steps, podManagementPolicy %s", (policy) => {
  it("issue 24 item 11: the one-pet canary is the highest follower, not the leader at the top ordinal", () => {
    const world = roleWorld(policy, 4, { steps: CANARY });
    const relabel = () => label(world, [3], [0, 1, 2]);
    setImage(world, "app:2");
    expect(runUntil(world, relabel, stepPaused)).toBeGreaterThanOrEqual(0);
    expect(updates(world)).toEqual(["web-2"]);
    expect(podsOf(world).map((p) => p.version)).toEqual([1, 1, 2, 1]);
    promote(world, true);
    expect(runUntil(world, relabel, complete)).toBeGreaterThanOrEqual(0);
    expect(updates(world)).toEqual(["web-2", "web-1", "web-0", "web-3"]);
    expect(world.violations).toEqual([]);
  });

  it("issue 24 item 11: a step whose only pet is the leader holds and says so; promote --full moves it", () => {
    const world = roleWorld(policy, 3, { steps: CANARY, partition: 2 });
    const relabel = () => label(world, [2], [0, 1]);
    setImage(world, "app:2");
    expect(runUntil(world, relabel, stepPaused)).toBeGreaterThanOrEqual(0);
    expect(updates(world)).toEqual([]);
    expect(progressingOf(world)?.message).toContain("step 1 of 3 (pets 1) of version 2");
    expect(progressingOf(world)?.message).toContain("the only pet this step may move is the leader web-2");
    promote(world, true);
    expect(
      runUntil(
        world,
        relabel,
        (w) => progressingOf(w)?.reason === "RolloutComplete" && podsOf(w)[2]?.version === 2,
      ),
    ).toBeGreaterThanOrEqual(0);
    expect(updates(world)).toEqual(["web-2"]);
    expect(world.violations).toEqual([]);
  });

  it("issue 24 item 11: no pod labelled leader (the leader's pod was replaced) does not stall: after half the deadline the pets left go in ordinal order", () => {
    const world = roleWorld(policy, 3, {}, { progressDeadlineSeconds: 60 });
    // Only the leader is labelled; the app does not label the pods it restarts.
    label(world, [2], []);
    setImage(world, "app:2");
    const plans: Plan[] = [];
    sync(world);
    // The leader's pod is lost; its replacement (at the target) carries no role label.
    deleteByUser(world, 2);
    expect(runUntil(world, () => {}, complete, plans)).toBeGreaterThanOrEqual(0);
    const reasons = plans.flatMap((p) => p.events.map((e) => e.reason));
    // web-1 went while web-2 led; web-0 goes without a known leader: one Warning, not one per sync.
    expect(reasons.filter((r) => r === "LeaderUnknown")).toHaveLength(1);
    expect(reasons).not.toContain("ProgressDeadlineExceeded");
    expect(updates(world)).toEqual(["web-1", "web-0"]);
    expect(world.violations).toEqual([]);
  });
});
