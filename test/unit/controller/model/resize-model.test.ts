/**
 * The model checker over in-place resize and its fallback (issue 28, planner/in-place-resize.ts):
 * the schedules of stale-model.test.ts (lagging watches, syncs interleaved step by step, frozen
 * and crashing replicas, lease handovers, refused requests and lost answers) with
 * InPlaceIfPossible, versions that change cpu (and images), and the kubelet refusing a pet's
 * resize at random (the pod annotation kubelet.petset.dev/resize=Infeasible|Deferred, which the
 * simulated kubelet plays; inPlaceResizeTimeoutSeconds 3). After every change: SPEC rules 1–3
 * and 7 as in stale-model.ts (a fallback recreate is held to maxUnavailable like an update);
 * once faults stop the pets converge: every refused resize was recreated, none is left pending.
 * A planted fault, a planner blind to PodResizePending, must be caught (it never converges).
 * `make test` runs a fixed-seed slice (MODEL_RUNS / 3).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type PlanInput, planRollout } from "../../../../src/controller/planner/index.js";
import { updateSpec } from "../planner/simulate.js";
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
import { fixedCode, type Model, type ModelOptions, record } from "./stale-model.js";

type ResizeAction =
  | { kind: "resize"; cpu: string; image: string }
  | { kind: "refuse"; ordinal: number; reason: "Infeasible" | "Deferred" };
type ModelAction = Action | ResizeAction;

const withResize: fc.Arbitrary<ModelAction> = fc.oneof(
  { weight: 27, arbitrary: actionOrAnswerFault.filter((a) => a.kind !== "image") },
  {
    weight: 4,
    arbitrary: fc
      .record({ cpu: fc.constantFrom("100m", "200m", "300m"), image: fc.constantFrom("app:1", "app:2") })
      .map((a) => ({ kind: "resize" as const, ...a })),
  },
  {
    weight: 3,
    arbitrary: fc
      .record({
        ordinal: fc.integer({ min: 0, max: 3 }),
        reason: fc.constantFrom("Infeasible" as const, "Deferred" as const),
      })
      .map((a) => ({ kind: "refuse" as const, ...a })),
  },
);

function setContainer(m: Model, image: string, cpu: string): void {
  updateSpec(m.world, (spec) => {
    spec.template.spec.containers = [{ name: "app", image, resources: { requests: { cpu } } }];
  });
}

/** The node cannot take pet N's resize: the kubelet's convention annotation on its live pod. */
function refuse(m: Model, ordinal: number, reason: string): void {
  const sim = m.world.pods.get(`web-${ordinal}`);
  if (sim === undefined || sim.view.deletionTimestamp !== undefined) return;
  sim.view = {
    ...sim.view,
    annotations: { ...sim.view.annotations, "kubelet.petset.dev/resize": reason },
    resourceVersion: String(++m.world.serial),
  };
  record(m);
}

/** Planted fault: a planner that never sees PodResizePending (no fallback). */
const blindPlanner = (input: PlanInput) =>
  planRollout({
    ...input,
    pods: input.pods.map(({ resizePending: _hidden, ...pod }) => pod),
  });

function play(s: Setup, actions: readonly ModelAction[], opts: ModelOptions = fixedCode) {
  const m = newModel({ ...s, podUpdatePolicy: "InPlaceIfPossible" }, opts);
  updateSpec(m.world, (spec) => {
    spec.updateStrategy.rollingUpdate = {
      ...spec.updateStrategy.rollingUpdate!,
      inPlaceResizeTimeoutSeconds: 3,
    };
  });
  setContainer(m, "app:1", "100m");
  const ready = settle(m, 100);
  for (const a of actions) {
    if (a.kind === "resize") setContainer(m, a.image, a.cpu);
    else if (a.kind === "refuse") refuse(m, a.ordinal, a.reason);
    else apply(m, a);
  }
  // Faults stop; the user undoes what would hold the final version back and resizes once more.
  updateSpec(m.world, (spec) => {
    spec.replicas = s.replicas;
    spec.paused = false;
    spec.updateStrategy.rollingUpdate = { ...spec.updateStrategy.rollingUpdate!, partition: 0 };
  });
  setContainer(m, "app:final", "400m");
  record(m);
  const done = ready && settle(m, 300);
  const pending = [...m.world.pods.values()]
    .filter((p) => p.view.resizePending !== undefined)
    .map((p) => p.view.name);
  return { violations: m.violations, done, pending };
}

describe("model checker: in-place resize and its fallback", () => {
  it("issue 28: under stale views, restarts and lost answers, resizes keep the budget and two versions, and every refused resize falls back to a recreate", () => {
    fc.assert(
      fc.property(setup, fc.array(withResize, { minLength: 40, maxLength: 120 }), (s, actions) => {
        expect(play(s, actions)).toEqual({ violations: [], done: true, pending: [] });
      }),
      { numRuns: Math.max(1, Math.round(RUNS / 3)), seed: SEED },
    );
  }, 900_000);

  it("issue 28 planted fault: a planner blind to PodResizePending never converges, and the checker says so", () => {
    const s: Setup = {
      policy: "Parallel",
      maxUnavailable: 1,
      podUpdatePolicy: "InPlaceIfPossible",
      replicas: 2,
      readyTicks: 1,
    };
    const actions: ModelAction[] = [
      { kind: "refuse", ordinal: 1, reason: "Infeasible" },
      { kind: "refuse", ordinal: 0, reason: "Deferred" },
    ];
    expect(play(s, actions).done).toBe(true);
    const planted = play(s, actions, { ...fixedCode, planner: blindPlanner });
    expect(planted.done).toBe(false);
    expect(planted.pending.length).toBeGreaterThan(0);
  });
});
