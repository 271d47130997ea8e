/**
 * The model checker over targeted replacement (issue 28, planner/replacement.ts): the schedules
 * of stale-model.test.ts (lagging watches, syncs interleaved step by step, frozen and crashing
 * replicas, lease handovers, refused requests and lost answers) with a user asking
 * `kubectl petset replace` (the pod annotation petset.dev/replace, `keep` or `recreate`: the pets
 * have a `data` claim) at random. After every change:
 * SPEC rules 1–3 and 7 as in stale-model.ts, a replacement held to maxUnavailable like an
 * update (invariants.ts); once faults stop (replicas, pause and partition back as set up) the
 * pets converge, every request was served (no pod still carries it) and every pet has its claim.
 * The model runs no hooks: the order preUpdate, preScaleDown, claims, pod is held by the simulated
 * test in planner/replacement.test.ts. `make test` runs a fixed-seed slice (MODEL_RUNS / 3).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Annotations } from "../../../../src/api/index.js";
import { setImage, updateSpec } from "../planner/simulate.js";
import {
  type Action,
  actionOrAnswerFault,
  apply,
  newModel,
  RUNS,
  SEED,
  type Setup,
  settle,
  setup,
} from "./schedule.js";
import { fixedCode, type Model, record } from "./stale-model.js";

type ReplaceAction = { kind: "replace"; ordinal: number; mode: "keep" | "recreate" };
type ModelAction = Action | ReplaceAction;

const withReplace: fc.Arbitrary<ModelAction> = fc.oneof(
  { weight: 31, arbitrary: actionOrAnswerFault },
  {
    weight: 4,
    arbitrary: fc
      .record({
        ordinal: fc.integer({ min: 0, max: 3 }),
        mode: fc.constantFrom("keep" as const, "recreate" as const),
      })
      .map((a) => ({ kind: "replace" as const, ...a })),
  },
);

/** The user runs `kubectl petset replace web-N`: the annotation on the live pod. */
function askReplace(m: Model, ordinal: number, mode: "keep" | "recreate"): void {
  const sim = m.world.pods.get(`web-${ordinal}`);
  if (sim === undefined || sim.view.deletionTimestamp !== undefined) return;
  if (sim.view.annotations[Annotations.replace] !== undefined) return;
  sim.view = {
    ...sim.view,
    annotations: { ...sim.view.annotations, [Annotations.replace]: mode },
    resourceVersion: String(++m.world.serial),
  };
  record(m);
}

function play(s: Setup, actions: readonly ModelAction[]) {
  const m = newModel({ ...s, podUpdatePolicy: "Recreate" }, fixedCode);
  updateSpec(m.world, (spec) => {
    spec.volumeClaimTemplates = [
      { metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"] } },
    ] as typeof spec.volumeClaimTemplates;
  });
  record(m);
  const ready = settle(m, 100);
  for (const a of actions) {
    if (a.kind === "replace") askReplace(m, a.ordinal, a.mode);
    else apply(m, a);
  }
  // Faults stop; the user undoes what would hold the final version back (as roles-steps-model).
  updateSpec(m.world, (spec) => {
    spec.replicas = s.replicas;
    spec.paused = false;
    spec.updateStrategy.rollingUpdate = { ...spec.updateStrategy.rollingUpdate!, partition: 0 };
  });
  setImage(m.world, "app:final");
  record(m);
  const done = ready && settle(m, 300);
  const pending = [...m.world.pods.values()]
    .filter((p) => p.view.annotations[Annotations.replace] !== undefined)
    .map((p) => p.view.name);
  const withoutClaim = [...m.world.pods.keys()].filter((name) => !m.world.claims.has(`data-${name}`));
  return { violations: m.violations, done, pending, withoutClaim };
}

describe("model checker: targeted replacement", () => {
  it("issue 28: under stale views, restarts and lost answers, replacements (claims kept or recreated) keep the budget and two versions, and every request is served", () => {
    fc.assert(
      fc.property(setup, fc.array(withReplace, { minLength: 40, maxLength: 120 }), (s, actions) => {
        expect(play(s, actions)).toEqual({ violations: [], done: true, pending: [], withoutClaim: [] });
      }),
      { numRuns: Math.max(1, Math.round(RUNS / 3)), seed: SEED },
    );
  }, 900_000);
});
