/**
 * The model checker's schedules (stale-model.test.ts, roles-steps-model.test.ts): the seeded
 * arbitraries of setups and actions, a model built from a setup, an action applied to it, and
 * `settle` (faults stop; the leader syncs on a fresh view until the pets converge). The
 * existing arbitraries stay as they are: the fixed-seed searches for the old code's
 * counterexamples draw the same schedules. Roles, steps, partition and External (issue 24
 * item 11) come as extra setup fields and actions (promote, an outside requester, the app
 * labelling its pods: roles-app.ts) that only roles-steps-model.test.ts draws.
 */
import fc from "fast-check";
import type { RolloutStep } from "../../../../src/api/index.js";
import { makePetSet } from "../planner/fixtures.js";
import { converged, createWorld, setImage, updateSpec } from "../planner/simulate.js";
import { checkRecorded, recorded } from "./invariants.js";
import { type App, label, moveCondemnedLeader, promote, request } from "./roles-app.js";
import {
  type AnswerFault,
  crash,
  createModel,
  deliver,
  deliverAll,
  executeNext,
  freeze,
  laggingKeys,
  leader,
  type Model,
  type ModelOptions,
  record,
  startSync,
  tick,
  userDelete,
} from "./stale-model.js";

export const RUNS = Number(process.env.MODEL_RUNS ?? 150);
/** The fixed seed of `make test`; `make model-check` picks a random one and prints it. */
export const FIXED_SEED = 20261201;
export const SEED = process.env.MODEL_SEED === undefined ? FIXED_SEED : Number(process.env.MODEL_SEED);

export type Action =
  | { kind: "image"; image: string }
  | { kind: "scale"; replicas: number }
  | { kind: "pause"; paused: boolean }
  | { kind: "partition"; partition: number }
  | { kind: "userDelete"; ordinal: number }
  | { kind: "deliver"; replica: number; key: number; count: number }
  | { kind: "deliverAll"; replica: number }
  | { kind: "sync"; replica: number; steps: number }
  | { kind: "answerFault"; replica: number; fault: AnswerFault }
  | { kind: "tick" }
  | { kind: "freeze"; replica: number; frozen: boolean }
  | { kind: "crash"; replica: number }
  /** A user promotes the step the status shows (or every step). */
  | { kind: "promote"; full: boolean }
  /** The outside requester of External asks a pod to move to its target. */
  | { kind: "request"; ordinal: number };

export const replica = fc.integer({ min: 0, max: 1 });
export const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .constantFrom("app:1", "app:2", "app:3", "bad:broken")
      .map((image) => ({ kind: "image" as const, image })),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0, max: 4 }).map((replicas) => ({ kind: "scale" as const, replicas })),
  },
  { weight: 1, arbitrary: fc.boolean().map((paused) => ({ kind: "pause" as const, paused })) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0, max: 2 }).map((partition) => ({ kind: "partition" as const, partition })),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0, max: 3 }).map((ordinal) => ({ kind: "userDelete" as const, ordinal })),
  },
  {
    weight: 6,
    arbitrary: fc
      .record({ replica, key: fc.nat(40), count: fc.integer({ min: 1, max: 3 }) })
      .map((a) => ({ kind: "deliver" as const, ...a })),
  },
  { weight: 2, arbitrary: replica.map((r) => ({ kind: "deliverAll" as const, replica: r })) },
  {
    weight: 8,
    arbitrary: fc
      .record({ replica, steps: fc.integer({ min: 1, max: 4 }) })
      .map((a) => ({ kind: "sync" as const, ...a })),
  },
  { weight: 4, arbitrary: fc.constant({ kind: "tick" as const }) },
  {
    weight: 1,
    arbitrary: fc.record({ replica, frozen: fc.boolean() }).map((a) => ({ kind: "freeze" as const, ...a })),
  },
  { weight: 1, arbitrary: replica.map((r) => ({ kind: "crash" as const, replica: r })) },
);

export type Setup = {
  policy: "OrderedReady" | "Parallel";
  maxUnavailable: number | string;
  podUpdatePolicy: "Recreate" | "InPlaceIfPossible";
  replicas: number;
  readyTicks: number;
  /** autoRollback with a 3-s deadline (planner/takeover.ts: judged from each takeover). */
  autoRollback?: boolean;
  /** Issue 24 item 11: spec.roles (the app labels pods: roles-app.ts), steps, partition, External. */
  roles?: boolean;
  type?: "RollingUpdate" | "External";
  partition?: number;
  steps?: RolloutStep[];
};

/**
 * The schedules the fixed code is held to: besides the above, a sync's next request refused
 * (429/503) or applied with its answer lost. (The searches for the old code's violations keep
 * the schedules above: the same seed finds the same counterexamples.)
 */
export const actionOrAnswerFault: fc.Arbitrary<Action> = fc.oneof(
  { weight: 29, arbitrary: action },
  {
    weight: 2,
    arbitrary: fc
      .record({ replica, fault: fc.constantFrom<AnswerFault>("refused", "lost") })
      .map((a) => ({ kind: "answerFault" as const, ...a })),
  },
);

/** Faults and the scheduler only: no user change (the autoRollback property below). */
export const faultOnly: fc.Arbitrary<Action> = actionOrAnswerFault.filter((a) =>
  ["deliver", "deliverAll", "sync", "answerFault", "tick", "freeze", "crash"].includes(a.kind),
);

/** Long schedules: fast-check's default size would keep arrays around ten actions. */
export const schedule = fc.array(action, { minLength: 40, maxLength: 120 });
export const faultySchedule = fc.array(actionOrAnswerFault, { minLength: 40, maxLength: 120 });

export const setup: fc.Arbitrary<Setup> = fc.record({
  policy: fc.constantFrom("OrderedReady" as const, "Parallel" as const),
  maxUnavailable: fc.constantFrom<number | string>(1, 2),
  podUpdatePolicy: fc.constantFrom("Recreate" as const, "InPlaceIfPossible" as const),
  replicas: fc.integer({ min: 1, max: 4 }),
  readyTicks: fc.integer({ min: 1, max: 2 }),
});

export function newModel(s: Setup, opts: ModelOptions, replicas = 2): Model {
  const world = createWorld(
    makePetSet({
      replicas: s.replicas,
      podManagementPolicy: s.policy,
      progressDeadlineSeconds: s.autoRollback ? 3 : 20,
      autoRollback: s.autoRollback ?? false,
      ...(s.roles === true ? { roles: {} } : {}),
      updateStrategy: {
        type: s.type ?? "RollingUpdate",
        rollingUpdate: {
          partition: s.partition ?? 0,
          maxUnavailable: s.maxUnavailable,
          podUpdatePolicy: s.podUpdatePolicy,
          ...(s.steps !== undefined && s.steps.length > 0 ? { steps: s.steps } : {}),
        },
      },
    }),
    // The controller records versions (the real recorder), not the world on each spec change.
    { readyTicks: s.readyTicks, versionsByController: true },
  );
  return createModel(world, opts, replicas);
}

/** One action; `app` (roles-app.ts) labels the pods after each tick, as a running app would. */
export function apply(m: Model, a: Action, app?: App): void {
  // Replica 0 of an action is the Lease holder (most syncs are the leader's), 1 the other.
  const holder = leader(m) ?? m.replicas[0];
  const other = m.replicas.find((x) => x !== holder);
  const r = "replica" in a && a.replica === 1 ? other : holder;
  if (r === undefined) return;
  switch (a.kind) {
    case "image":
      setImage(m.world, a.image);
      break;
    case "scale":
      updateSpec(m.world, (s) => {
        s.replicas = a.replicas;
      });
      break;
    case "pause":
      updateSpec(m.world, (s) => {
        s.paused = a.paused;
      });
      break;
    case "partition":
      updateSpec(m.world, (s) => {
        s.updateStrategy.rollingUpdate = { ...s.updateStrategy.rollingUpdate!, partition: a.partition };
      });
      break;
    case "userDelete":
      userDelete(m, `web-${a.ordinal}`);
      break;
    case "deliver": {
      const keys = laggingKeys(m, r);
      const key = keys[a.key % keys.length];
      for (let i = 0; key !== undefined && i < a.count; i++) deliver(m, r, key);
      break;
    }
    case "deliverAll":
      deliverAll(m, r);
      break;
    case "sync":
      startSync(m, r);
      for (let i = 0; i < a.steps; i++) executeNext(m, r);
      break;
    case "answerFault":
      startSync(m, r);
      executeNext(m, r, a.fault);
      break;
    case "tick":
      tick(m);
      if (app !== undefined) label(m, app);
      break;
    case "promote":
      promote(m, a.full);
      break;
    case "request":
      request(m, a.ordinal);
      break;
    case "freeze":
      freeze(m, r, a.frozen);
      break;
    case "crash":
      crash(m, r);
      break;
  }
  record(m);
}

/**
 * Faults stop: every replica thaws and reads everything; run until the pets converge. With an
 * `app` (roles and External), each tick the app labels its pods, moves a condemned leader's
 * role to a pet that stays (what the controller's message asks), the user promotes the step the
 * status shows (one at a time, so each pause is reached and held for a sync) and the outside
 * requester asks every pod to move.
 */
export function settle(m: Model, maxTicks = 300, app?: App): boolean {
  for (const r of m.replicas) freeze(m, r, false);
  for (let t = 0; t < maxTicks; t++) {
    if (app !== undefined) settleApp(m, app);
    const l = leader(m);
    if (l !== undefined) {
      deliverAll(m, l);
      startSync(m, l);
      for (let i = 0; i < 50 && l.inflight !== undefined; i++) executeNext(m, l);
      deliverAll(m, l);
      startSync(m, l);
      for (let i = 0; i < 50 && l.inflight !== undefined; i++) executeNext(m, l);
    }
    // Converged means the pets run the newest version and that version holds the spec.
    if (converged(m.world) && recorded(m)) return true;
    tick(m);
  }
  checkRecorded(m);
  return false;
}

function settleApp(m: Model, app: App): void {
  moveCondemnedLeader(m, app);
  label(m, app);
  promote(m, false);
  if (m.world.petSet.spec.updateStrategy.type === "External")
    for (const pod of m.world.pods.values()) request(m, pod.view.ordinal);
}

export function run(s: Setup, actions: Action[], opts: ModelOptions, replicas = 2, app?: App): Model {
  const m = newModel(s, opts, replicas);
  for (const a of actions) apply(m, a, app);
  return m;
}
