/**
 * The model checker over roles × steps × partition × External (issue 24 item 11): the schedules
 * of stale-model.test.ts (lagging watches, syncs interleaved step by step, frozen and crashing
 * replicas, lease handovers, refused requests and lost answers) on PetSets with spec.roles,
 * rollingUpdate.steps (pauses with and without a duration), a partition, or updateStrategy
 * External, with an app labelling its pods, users promoting and an outside requester annotating
 * pods petset.dev/update-requested (roles-app.ts). After every change: SPEC rules 1–3 and 7 as
 * in stale-model.ts, the leader last and pauses held (roles-steps-invariants.ts); once faults
 * stop, with the partition at 0, promotions and requests, the pets converge. `make test` runs a
 * fixed-seed slice (MODEL_RUNS, 150); `make model-check` runs it long (MODEL_RUNS, MODEL_SEED).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Annotations, type RolloutStep } from "../../../../src/api/index.js";
import { type PlanInput, planRollout } from "../../../../src/controller/planner/index.js";
import { setImage, updateSpec } from "../planner/simulate.js";
import { type Labelling, newApp, rememberInitialPods } from "./roles-app.js";
import {
  type Action,
  actionOrAnswerFault,
  apply,
  newModel,
  RUNS,
  SEED,
  type Setup,
  settle,
} from "./schedule.js";
import { fixedCode, type ModelOptions, record } from "./stale-model.js";

const rolloutStep: fc.Arbitrary<RolloutStep> = fc.oneof(
  fc.integer({ min: 0, max: 4 }).map((pets) => ({ pets })),
  fc.constantFrom("25%", "50%", "100%").map((pets) => ({ pets })),
  fc.constant({ pause: {} }),
  fc.constant({ pause: { duration: "3s" } }),
);

const rolesSetup = fc.record({
  model: fc.record({
    policy: fc.constantFrom("OrderedReady" as const, "Parallel" as const),
    maxUnavailable: fc.constantFrom<number | string>(1, 2, "50%"),
    podUpdatePolicy: fc.constantFrom("Recreate" as const, "InPlaceIfPossible" as const),
    replicas: fc.integer({ min: 1, max: 4 }),
    readyTicks: fc.integer({ min: 1, max: 2 }),
    roles: fc.boolean(),
    type: fc.constantFrom("RollingUpdate" as const, "External" as const),
    partition: fc.integer({ min: 0, max: 2 }),
    steps: fc.array(rolloutStep, { maxLength: 4 }),
  }) satisfies fc.Arbitrary<Setup>,
  labelling: fc.constantFrom<Labelling>("all", "leaderOnly", "initialOnly"),
  failover: fc.boolean(),
  leader: fc.integer({ min: 0, max: 3 }),
});
type RolesSetup = typeof rolesSetup extends fc.Arbitrary<infer T> ? T : never;

/** Besides stale-model.test.ts's actions (and answer faults): promotions and requests. */
const rolesAction: fc.Arbitrary<Action> = fc.oneof(
  { weight: 31, arbitrary: actionOrAnswerFault },
  { weight: 3, arbitrary: fc.boolean().map((full) => ({ kind: "promote" as const, full })) },
  {
    weight: 4,
    arbitrary: fc.integer({ min: 0, max: 3 }).map((ordinal) => ({ kind: "request" as const, ordinal })),
  },
);

/**
 * One case: the set settles at v1 (steps never apply to the first version), the app notes its
 * pods, the schedule plays; then faults stop, the replicas go back to the setup's, the
 * partition to 0, a final image is applied and the set settles with promotions and requests. The violations and whether it converged.
 */
function play(s: RolesSetup, actions: readonly Action[], opts: ModelOptions = fixedCode) {
  const m = newModel(s.model, opts);
  const app = newApp(s.labelling, s.failover, s.leader);
  const ready = settle(m, 100, app);
  rememberInitialPods(m, app);
  for (const a of actions) apply(m, a, app);
  const duringSchedule = [...m.violations];
  updateSpec(m.world, (spec) => {
    spec.replicas = s.model.replicas;
    spec.paused = false;
    spec.updateStrategy.rollingUpdate = { ...spec.updateStrategy.rollingUpdate!, partition: 0 };
  });
  setImage(m.world, "app:final");
  record(m);
  const done = ready && settle(m, 300, app);
  return { m, duringSchedule, violations: m.violations, done };
}

describe("model checker: roles × steps × partition × External", () => {
  it("issue 24 item 11: under stale views, restarts and lost answers, at most two versions, the budget, the partition, the leader last, pauses held, and no stall", () => {
    fc.assert(
      fc.property(rolesSetup, fc.array(rolesAction, { minLength: 40, maxLength: 120 }), (s, actions) => {
        const { violations, done } = play(s, actions);
        expect({ violations, done }).toEqual({ violations: [], done: true });
      }),
      { numRuns: Math.max(1, Math.round(RUNS / 3)), seed: SEED },
    );
  }, 900_000);
});

/**
 * Planted planners (issue 24, "Harnesses that can fail"): the real planner fed a lie. Each runs
 * through the same schedules, and the model must report it.
 */
const leaderAsFollower: typeof planRollout = (input) => {
  const roles = input.petSet.spec.roles;
  if (roles === undefined) return planRollout(input);
  const pods = input.pods.map((p) =>
    p.labels[roles.labelKey] === roles.leader
      ? { ...p, labels: { ...p.labels, [roles.labelKey]: "follower" } }
      : p,
  );
  return planRollout({ ...input, pods });
};

/** Promotes itself past a pause: the pause the target's status holds at is taken as promoted. */
const pauseIgnored: typeof planRollout = (input: PlanInput) => {
  const target = [...input.versions].sort((a, b) => a.spec.version - b.spec.version).at(-1);
  const held = target?.status?.steps;
  const step =
    held === undefined ? undefined : input.petSet.spec.updateStrategy.rollingUpdate?.steps?.[held.index];
  if (target === undefined || held?.pausedAt === undefined || step === undefined || !("pause" in step))
    return planRollout(input);
  const annotations = {
    ...(input.petSet.metadata.annotations ?? {}),
    [Annotations.promote]: `${target.spec.version}#${held.index + 1}`,
  };
  return planRollout({
    ...input,
    petSet: { ...input.petSet, metadata: { ...input.petSet.metadata, annotations } },
  });
};

const rollingWithRoles: RolesSetup = {
  model: {
    policy: "OrderedReady",
    maxUnavailable: 1,
    podUpdatePolicy: "Recreate",
    replicas: 3,
    readyTicks: 1,
    roles: true,
    type: "RollingUpdate",
    partition: 0,
    steps: [],
  },
  labelling: "all",
  failover: false,
  leader: 2,
};
const canaryThenPause: RolesSetup = {
  ...rollingWithRoles,
  model: { ...rollingWithRoles.model, roles: false, steps: [{ pets: 1 }, { pause: {} }, { pets: "100%" }] },
};
/** A new image, a sync whose answer is lost, a stale watch, then syncs and ticks. */
const rollout: Action[] = [
  { kind: "image", image: "app:2" },
  { kind: "answerFault", replica: 0, fault: "lost" },
  { kind: "deliver", replica: 0, key: 0, count: 1 },
  ...Array.from({ length: 12 }, (): Action[] => [
    { kind: "sync", replica: 0, steps: 8 },
    { kind: "deliverAll", replica: 0 },
    { kind: "tick" },
  ]).flat(),
];

describe("model checker: roles × steps, planted planners are reported", () => {
  it.each([
    {
      name: "a planner that takes the leader for a follower moves it first",
      setup: rollingWithRoles,
      planner: leaderAsFollower,
      finding: /leader web-2 moved before follower web-[01]/,
    },
    {
      name: "a planner that ignores a step's pause moves pets while it holds",
      setup: canaryThenPause,
      planner: pauseIgnored,
      finding: /moved web-1 to v2 while step 2 \(pause\) holds/,
    },
  ])("$name", ({ setup: s, planner, finding }) => {
    expect(play(s, rollout).violations).toEqual([]);
    const planted = play(s, rollout, { ...fixedCode, planner });
    expect(planted.violations.join("\n")).toMatch(finding);
  });

  // `make model-check` (MODEL_SEED set) also searches the random schedules for them.
  it.skipIf(process.env.MODEL_SEED === undefined).each([
    {
      name: "the leader taken for a follower",
      planner: leaderAsFollower,
      finding: /leader web-\d moved before/,
    },
    { name: "a pause ignored", planner: pauseIgnored, finding: /\(pause\) holds/ },
  ])(
    "the random schedules find the planted planner: $name",
    ({ planner, finding }) => {
      const result = fc.check(
        fc.property(rolesSetup, fc.array(rolesAction, { minLength: 40, maxLength: 120 }), (s, actions) => {
          const { violations } = play(s, actions, { ...fixedCode, planner });
          return !violations.some((v) => finding.test(v));
        }),
        { numRuns: 1000, seed: SEED },
      );
      expect(result.failed).toBe(true);
    },
    900_000,
  );
});
