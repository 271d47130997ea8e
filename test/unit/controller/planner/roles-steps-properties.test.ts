/**
 * Roles × steps × partition × External together (issue 24 item 11), in the pure world of
 * simulate.ts: an app labels its pods (every pod, only the leader, or only the pods it started
 * with; with or without failover), users change images, scale, move the partition, delete pods,
 * promote and (under External) request moves. After every step: at most two versions, the
 * maxUnavailable budget, the partition (simulate.ts), and the leader last: a Ready pod labelled
 * leader is never moved for an update while a Ready follower at or above the partition still
 * runs its content. At the end, with the partition at 0, promotions and requests, the rollout
 * converges (no stall: an unknown leader is bounded, a leader-only step is promoted).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Annotations, type RolloutStep } from "../../../../src/api/index.js";
import { planRollout, type Step } from "../../../../src/controller/planner/index.js";
import { makePetSet } from "./fixtures.js";
import { type App, type Labelling, labelRoles, ROLE } from "./role-labelling.js";
import {
  applyStep,
  converged,
  createWorld,
  deleteByUser,
  podsOf,
  progressingOf,
  setImage,
  tick,
  updateSpec,
  type World,
} from "./simulate.js";

type Action =
  | { kind: "image"; image: string }
  | { kind: "scale"; replicas: number }
  | { kind: "partition"; partition: number }
  | { kind: "wait"; ticks: number }
  | { kind: "promote"; full: boolean }
  | { kind: "userDelete"; ordinal: number }
  | { kind: "request"; ordinal: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .constantFrom("app:1", "app:2", "app:3", "bad/a:broken")
      .map((image) => ({ kind: "image" as const, image })),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1, max: 5 }).map((replicas) => ({ kind: "scale" as const, replicas })),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0, max: 3 }).map((partition) => ({ kind: "partition" as const, partition })),
  },
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 8 }).map((ticks) => ({ kind: "wait" as const, ticks })) },
  { weight: 2, arbitrary: fc.boolean().map((full) => ({ kind: "promote" as const, full })) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0, max: 4 }).map((ordinal) => ({ kind: "userDelete" as const, ordinal })),
  },
  {
    weight: 2,
    arbitrary: fc.integer({ min: 0, max: 4 }).map((ordinal) => ({ kind: "request" as const, ordinal })),
  },
);

const step: fc.Arbitrary<RolloutStep> = fc.oneof(
  fc.integer({ min: 0, max: 5 }).map((pets) => ({ pets })),
  fc.constantFrom("25%", "50%", "100%").map((pets) => ({ pets })),
  fc.constant({ pause: {} }),
  fc.constant({ pause: { duration: "3s" } }),
);

// External runs under both pod management policies with images changed mid-rollout (the
// outside actor requests moves at random). This test found two External bugs, fixed in
// external.ts with regression tests in external.test.ts (issue 24 item 11 (External)): under
// OrderedReady a requested pod moved in the pass that created a missing pet (seed 20261201, path
// 21:5:5:5:5:6:7:3:4:2:5), and after a rollback a new version mid-rollout never converged: the
// kept old version's requested pod was replaced and refilled at its own content, forever (path
// 49:1:4:4:4:4:4:6:8:10:2:11:17:16:16). Partition and steps do not apply under External (the
// order and pace are the requester's): the spec carries the steps anyway, the partition stays 0.
const setup = fc.record({
  policy: fc.constantFrom("OrderedReady" as const, "Parallel" as const),
  type: fc.constantFrom("RollingUpdate" as const, "External" as const),
  maxUnavailable: fc.constantFrom<number | string>(1, 2, "50%"),
  replicas: fc.integer({ min: 1, max: 5 }),
  partition: fc.integer({ min: 0, max: 3 }),
  steps: fc.array(step, { minLength: 0, maxLength: 5 }),
  labelling: fc.constantFrom<Labelling>("all", "leaderOnly", "initialOnly"),
  failover: fc.boolean(),
  leader: fc.integer({ min: 0, max: 4 }),
});

/** Leader last: a Ready leader moves for an update only when no Ready follower >= partition runs its content. */
function checkLeaderLast(world: World, s: Step): void {
  if (world.petSet.spec.updateStrategy.type !== "RollingUpdate" || world.petSet.spec.roles === undefined)
    return;
  const moves = (s.kind === "deletePod" && s.reason === "update") || s.kind === "patchPodImages";
  if (!moves) return;
  const pod = world.pods.get(s.podName)?.view;
  if (pod === undefined || !pod.ready || pod.labels[ROLE] !== "leader") return;
  const spec = world.petSet.spec;
  const from = spec.ordinals.start + (spec.updateStrategy.rollingUpdate?.partition ?? 0);
  const behind = podsOf(world).filter(
    (p) =>
      p.labels[ROLE] === "follower" &&
      p.ready &&
      p.deletionTimestamp === undefined &&
      p.ordinal >= from &&
      p.ordinal < spec.ordinals.start + spec.replicas &&
      p.hash === pod.hash,
  );
  if (behind.length > 0)
    world.violations.push(`t=${world.now}: leader ${pod.name} moved before follower ${behind[0]?.name}`);
}

/**
 * A condemned leader without a switchover hook stays until another pet leads (roles.ts): the
 * human does what the message says and moves the role to a pet that stays, a Ready one when
 * there is one (failover would hand the role back to the condemned pod while the kept pet is
 * not Ready).
 */
function moveCondemnedLeader(world: World, app: App): void {
  const { start } = world.petSet.spec.ordinals;
  const end = start + world.petSet.spec.replicas;
  if (app.leader < end) return;
  const staying = podsOf(world).filter(
    (p) => p.ordinal >= start && p.ordinal < end && p.deletionTimestamp === undefined,
  );
  app.leader = (staying.find((p) => p.ready) ?? staying[0])?.ordinal ?? start;
}

function sync(world: World, app: App): void {
  labelRoles(world, app);
  const plan = planRollout({
    petSet: world.petSet,
    versions: world.versions,
    pods: podsOf(world),
    claims: [...world.claims.values()],
    now: world.now,
  });
  for (const s of plan.steps) {
    checkLeaderLast(world, s);
    applyStep(world, s);
  }
  world.petSet = { ...world.petSet, status: plan.status };
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

/** The outside actor of External: asks the pod to move to the target it was told. */
function request(world: World, ordinal: number): void {
  const sim = world.pods.get(`${world.petSet.metadata.name}-${ordinal}`);
  if (sim === undefined || sim.view.targetVersion === undefined) return;
  world.serial++;
  sim.view = {
    ...sim.view,
    annotations: { ...sim.view.annotations, [Annotations.updateRequested]: String(sim.view.targetVersion) },
    resourceVersion: String(world.serial),
  };
}

function apply(world: World, app: App, a: Action): void {
  switch (a.kind) {
    case "image":
      setImage(world, a.image);
      break;
    case "scale":
      updateSpec(world, (s) => {
        s.replicas = a.replicas;
      });
      break;
    case "partition":
      // A partition is a RollingUpdate rule; External's order is the requester's.
      if (world.petSet.spec.updateStrategy.type !== "RollingUpdate") break;
      updateSpec(world, (s) => {
        s.updateStrategy.rollingUpdate = { ...s.updateStrategy.rollingUpdate!, partition: a.partition };
      });
      break;
    case "promote":
      promote(world, a.full);
      break;
    case "userDelete":
      deleteByUser(world, a.ordinal);
      break;
    case "request":
      request(world, a.ordinal);
      break;
    case "wait":
      for (let i = 0; i < a.ticks; i++) {
        sync(world, app);
        tick(world);
      }
      break;
  }
  sync(world, app);
}

type Setup = typeof setup extends fc.Arbitrary<infer T> ? T : never;

/**
 * One case: settle, play the actions (no violation), then the partition at 0, a final image,
 * promotions and requests until it converges. Returns the violations and whether it converged.
 */
function play(s: Setup, actions: readonly Action[]): { violations: string[]; done: boolean } {
  const world = createWorld(
    makePetSet({
      replicas: s.replicas,
      podManagementPolicy: s.policy,
      progressDeadlineSeconds: 30,
      roles: {},
      updateStrategy: {
        type: s.type,
        rollingUpdate: {
          partition: s.type === "RollingUpdate" ? s.partition : 0,
          maxUnavailable: s.maxUnavailable,
          podUpdatePolicy: "Recreate",
          ...(s.steps.length > 0 ? { steps: s.steps } : {}),
        },
      },
    }),
  );
  const app: App = { labelling: s.labelling, failover: s.failover, leader: s.leader, initial: new Set() };
  for (let t = 0; t < 20 && !converged(world); t++) {
    sync(world, app);
    tick(world);
  }
  for (const pod of podsOf(world)) app.initial.add(pod.uid);
  for (const a of actions) apply(world, app, a);
  if (world.violations.length > 0) return { violations: world.violations, done: false };

  updateSpec(world, (spec) => {
    spec.updateStrategy.rollingUpdate = { ...spec.updateStrategy.rollingUpdate!, partition: 0 };
  });
  setImage(world, "app:final");
  let done = false;
  for (let t = 0; t < 400 && !done; t++) {
    moveCondemnedLeader(world, app);
    sync(world, app);
    promote(world, true);
    if (s.type === "External") for (const pod of podsOf(world)) request(world, pod.ordinal);
    done = converged(world) && progressingOf(world)?.reason === "RolloutComplete";
    tick(world);
  }
  return { violations: world.violations, done };
}

describe("roles × steps × partition × External properties", () => {
  it("issue 24 item 11: at most two versions, the budget, the leader last when known, and no stall", () => {
    fc.assert(
      fc.property(setup, fc.array(action, { maxLength: 25 }), (s, actions) => {
        expect(play(s, actions)).toEqual({ violations: [], done: true });
      }),
      {
        numRuns: Number(process.env.PLANNER_RUNS ?? 150),
        // make test runs a fixed-seed slice; FC_SEED (test/support/fast-check-seed.ts) or
        // PLANNER_SEED, PLANNER_RUNS and PLANNER_PATH explore and replay.
        seed: Number(process.env.PLANNER_SEED ?? process.env.FC_SEED ?? 20261201),
        ...(process.env.PLANNER_PATH !== undefined ? { path: process.env.PLANNER_PATH } : {}),
      },
    );
  }, 600_000);

  // Found at FC_SEED=1234 and 3 with PLANNER_RUNS=600 (roles.ts orderByRole): after a rollback
  // (or a broken newer version) two old versions are live; the given-up one's pods are the only
  // update candidates, and the leader's turn waited for the kept version's pets to reach the
  // target, which they do only after those: nothing moved, forever.
  const base: Setup = {
    policy: "OrderedReady",
    type: "RollingUpdate",
    maxUnavailable: 1,
    replicas: 3,
    partition: 0,
    steps: [],
    labelling: "all",
    failover: false,
    leader: 0,
  };
  it.each([
    {
      name: "a rollback leaves a pet of unknown role at the given-up version",
      setup: { ...base, labelling: "leaderOnly" as const },
      actions: [
        { kind: "image", image: "app:2" },
        { kind: "wait", ticks: 3 },
        { kind: "image", image: "app:1" },
      ] satisfies Action[],
    },
    {
      name: "a broken version leaves the leader at the given-up version",
      setup: { ...base, leader: 1 },
      actions: [
        { kind: "image", image: "app:3" },
        { kind: "wait", ticks: 3 },
        { kind: "image", image: "bad/a:broken" },
        { kind: "partition", partition: 1 },
        { kind: "wait", ticks: 1 },
        { kind: "wait", ticks: 5 },
      ] satisfies Action[],
    },
  ])(
    "issue 24 item 11: with roles and two old versions live, the given-up version's pets move (the leader's turn does not wait for the kept version's pets): $name",
    ({ setup: s, actions }) => {
      expect(play(s, actions)).toEqual({ violations: [], done: true });
    },
  );
});
