/**
 * reserveOrdinals × partition × steps × roles, with targeted replacements (issue 28), in the pure
 * world of simulate.ts (its checks run after every step with the reserved ordinals taken out of
 * the range: never a pod created at a reserved ordinal, at most two versions, the update budget,
 * the partition, OrderedReady order, one pod per pet). Added here: a replacement never takes a
 * Ready pet down beyond maxUnavailable, and changing reserveOrdinals never records a version. At
 * the end, with the partition at 0, a final image and promotions, the set converges to exactly
 * the pets' ordinals at the newest version.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Annotations, type ReservedOrdinal, type RolloutStep } from "../../../../src/api/index.js";
import { planRollout, resolveMaxUnavailable, type Step } from "../../../../src/controller/planner/index.js";
import { makePetSet } from "./fixtures.js";
import { type App, labelRoles } from "./role-labelling.js";
import {
  applyStep,
  converged,
  createWorld,
  deleteByUser,
  petOrdinalsOf,
  podsOf,
  progressingOf,
  setImage,
  tick,
  unavailableInRange,
  updateSpec,
  type World,
} from "./simulate.js";

type Action =
  | { kind: "image"; image: string }
  | { kind: "scale"; replicas: number }
  | { kind: "partition"; partition: number }
  | { kind: "reserve"; list: ReservedOrdinal[] }
  | { kind: "replace"; ordinal: number; mode: "keep" | "recreate" }
  | { kind: "wait"; ticks: number }
  | { kind: "promote" }
  | { kind: "userDelete"; ordinal: number };

const entry: fc.Arbitrary<ReservedOrdinal> = fc.oneof(
  fc.integer({ min: 0, max: 5 }),
  fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 2 })).map(([a, n]) => `${a}-${a + n}`),
);

const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.constantFrom("app:1", "app:2", "app:3").map((image) => ({ kind: "image" as const, image })),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1, max: 4 }).map((replicas) => ({ kind: "scale" as const, replicas })),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0, max: 3 }).map((partition) => ({ kind: "partition" as const, partition })),
  },
  {
    weight: 2,
    arbitrary: fc.array(entry, { maxLength: 3 }).map((list) => ({ kind: "reserve" as const, list })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.integer({ min: 0, max: 8 }), fc.constantFrom("keep" as const, "recreate" as const))
      .map(([ordinal, mode]) => ({ kind: "replace" as const, ordinal, mode })),
  },
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 8 }).map((ticks) => ({ kind: "wait" as const, ticks })) },
  { weight: 1, arbitrary: fc.constant({ kind: "promote" as const }) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0, max: 8 }).map((ordinal) => ({ kind: "userDelete" as const, ordinal })),
  },
);

const step: fc.Arbitrary<RolloutStep> = fc.oneof(
  fc.integer({ min: 0, max: 4 }).map((pets) => ({ pets })),
  fc.constantFrom("50%", "100%").map((pets) => ({ pets })),
  fc.constant({ pause: {} }),
);

const setup = fc.record({
  policy: fc.constantFrom("OrderedReady" as const, "Parallel" as const),
  maxUnavailable: fc.constantFrom<number | string>(1, 2),
  replicas: fc.integer({ min: 1, max: 4 }),
  partition: fc.integer({ min: 0, max: 3 }),
  steps: fc.array(step, { maxLength: 4 }),
  roles: fc.boolean(),
  leader: fc.integer({ min: 0, max: 4 }),
  reserve: fc.array(entry, { maxLength: 2 }),
  claims: fc.boolean(),
});
type Setup = typeof setup extends fc.Arbitrary<infer T> ? T : never;

/** A replacement of a Ready pet never takes the set beyond maxUnavailable. */
function checkReplace(world: World, s: Step, before: number): void {
  if (s.kind !== "deletePod" || s.reason !== "replace") return;
  const pod = world.pods.get(s.podName)?.view;
  if (pod === undefined || !pod.ready) return;
  const spec = world.petSet.spec;
  const max = resolveMaxUnavailable(spec.updateStrategy.rollingUpdate?.maxUnavailable ?? 1, spec.replicas);
  if (before + 1 > max)
    world.violations.push(
      `t=${world.now}: replaced ${s.podName} with ${before} pets unavailable (max ${max})`,
    );
}

function sync(world: World, app: App | undefined): void {
  if (app !== undefined) labelRoles(world, app);
  const plan = planRollout({
    petSet: world.petSet,
    versions: world.versions,
    pods: podsOf(world),
    claims: [...world.claims.values()],
    now: world.now,
  });
  for (const s of plan.steps) {
    checkReplace(world, s, unavailableInRange(world));
    applyStep(world, s);
  }
  world.petSet = { ...world.petSet, status: plan.status };
}

/** A condemned leader waits for a human (roles.ts): the role moves to a pet that stays. */
function moveCondemnedLeader(world: World, app: App | undefined): void {
  if (app === undefined) return;
  const pets = petOrdinalsOf(world);
  if (pets.includes(app.leader)) return;
  const staying = podsOf(world).filter((p) => pets.includes(p.ordinal) && p.deletionTimestamp === undefined);
  app.leader = (staying.find((p) => p.ready) ?? staying[0])?.ordinal ?? pets[0] ?? 0;
}

function promote(world: World): void {
  const at = world.petSet.status?.rolloutStep;
  if (at === undefined) return;
  const annotations = {
    ...(world.petSet.metadata.annotations ?? {}),
    [Annotations.promote]: `${at.version}#full`,
  };
  world.petSet = { ...world.petSet, metadata: { ...world.petSet.metadata, annotations } };
}

function askReplace(world: World, ordinal: number, mode: "keep" | "recreate"): void {
  const sim = world.pods.get(`web-${ordinal}`);
  if (sim === undefined) return;
  world.serial++;
  sim.view = {
    ...sim.view,
    annotations: { ...sim.view.annotations, [Annotations.replace]: mode },
    resourceVersion: String(world.serial),
  };
}

function apply(world: World, app: App | undefined, a: Action): void {
  const versions = world.versions.length;
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
      updateSpec(world, (s) => {
        s.updateStrategy.rollingUpdate = { ...s.updateStrategy.rollingUpdate!, partition: a.partition };
      });
      break;
    case "reserve":
      updateSpec(world, (s) => {
        s.reserveOrdinals = a.list;
      });
      if (world.versions.length !== versions) world.violations.push("reserveOrdinals recorded a version");
      break;
    case "replace":
      askReplace(world, a.ordinal, a.mode);
      break;
    case "promote":
      promote(world);
      break;
    case "userDelete":
      deleteByUser(world, a.ordinal);
      break;
    case "wait":
      for (let i = 0; i < a.ticks; i++) {
        moveCondemnedLeader(world, app);
        sync(world, app);
        tick(world);
      }
      break;
  }
  sync(world, app);
}

function play(s: Setup, actions: readonly Action[]): { violations: string[]; done: boolean; pets: string } {
  const world = createWorld(
    makePetSet({
      replicas: s.replicas,
      podManagementPolicy: s.policy,
      progressDeadlineSeconds: 30,
      reserveOrdinals: s.reserve,
      ...(s.roles ? { roles: {} } : {}),
      ...(s.claims
        ? { volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"] } }] }
        : {}),
      updateStrategy: {
        type: "RollingUpdate",
        rollingUpdate: {
          partition: s.partition,
          maxUnavailable: s.maxUnavailable,
          podUpdatePolicy: "Recreate",
          ...(s.steps.length > 0 ? { steps: s.steps } : {}),
        },
      },
    }),
  );
  const app: App | undefined = s.roles
    ? { labelling: "all", failover: false, leader: s.leader, initial: new Set() }
    : undefined;
  for (let t = 0; t < 20 && !converged(world); t++) {
    moveCondemnedLeader(world, app);
    sync(world, app);
    tick(world);
  }
  for (const a of actions) apply(world, app, a);
  if (world.violations.length > 0) return { violations: world.violations, done: false, pets: "" };
  updateSpec(world, (spec) => {
    spec.updateStrategy.rollingUpdate = { ...spec.updateStrategy.rollingUpdate!, partition: 0 };
  });
  setImage(world, "app:final");
  let done = false;
  for (let t = 0; t < 400 && !done; t++) {
    moveCondemnedLeader(world, app);
    sync(world, app);
    promote(world);
    done = converged(world) && progressingOf(world)?.reason === "RolloutComplete";
    tick(world);
  }
  const want = petOrdinalsOf(world).join(",");
  const got = podsOf(world)
    .map((p) => p.ordinal)
    .join(",");
  return { violations: world.violations, done, pets: got === want ? "exact" : `${got} != ${want}` };
}

describe("reserveOrdinals × partition × steps × roles properties", () => {
  it("issue 28: no pet at a reserved ordinal, two versions, the budgets, and convergence to exactly the pets", () => {
    fc.assert(
      fc.property(setup, fc.array(action, { maxLength: 20 }), (s, actions) => {
        expect(play(s, actions)).toEqual({ violations: [], done: true, pets: "exact" });
      }),
      {
        numRuns: Number(process.env.PLANNER_RUNS ?? 120),
        seed: Number(process.env.PLANNER_SEED ?? process.env.FC_SEED ?? 20261205),
        ...(process.env.PLANNER_PATH !== undefined ? { path: process.env.PLANNER_PATH } : {}),
      },
    );
  }, 600_000);
});
