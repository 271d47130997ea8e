/**
 * The model checker over claims following versions (issue 26, planner/claim-updates.ts): the
 * schedules of stale-model.test.ts (lagging watches, interleaved syncs, frozen and crashing
 * replicas, lease handovers, refused requests and lost answers) on a PetSet under
 * volumeClaimUpdatePolicy InPlace, with the user changing the `data` claim template's size at
 * random (growth, and shrinks that must be refused). After every change (invariants.ts): no pod
 * labelled with a version while one of its claims is behind that version, no claim patched below
 * the partition, no shrink attempted. Once faults stop and the template grows past every size
 * used, the pets converge. `make test` runs a fixed-seed slice (MODEL_RUNS / 3).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
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
import { fixedCode, record } from "./stale-model.js";

type StorageAction = { kind: "storage"; size: string };
type ModelAction = Action | StorageAction;

const withStorage: fc.Arbitrary<ModelAction> = fc.oneof(
  { weight: 31, arbitrary: actionOrAnswerFault },
  {
    weight: 5,
    arbitrary: fc
      .constantFrom("1Gi", "2Gi", "3Gi", "512Mi")
      .map((size) => ({ kind: "storage" as const, size })),
  },
);

const data = (storage: string) => [
  {
    metadata: { name: "data" },
    spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage } } },
  },
];

function play(s: Setup, actions: readonly ModelAction[]) {
  const m = newModel({ ...s, podUpdatePolicy: "Recreate" }, fixedCode);
  updateSpec(m.world, (spec) => {
    spec.volumeClaimUpdatePolicy = "InPlace";
    spec.volumeClaimTemplates = data("1Gi") as typeof spec.volumeClaimTemplates;
  });
  record(m);
  const ready = settle(m, 100);
  for (const a of actions) {
    if (a.kind === "storage")
      updateSpec(m.world, (spec) => {
        spec.volumeClaimTemplates = data(a.size) as typeof spec.volumeClaimTemplates;
      });
    else apply(m, a);
    if (a.kind === "storage") record(m);
  }
  // Faults stop; the user undoes what would hold the final version back, and grows past every size.
  updateSpec(m.world, (spec) => {
    spec.replicas = s.replicas;
    spec.paused = false;
    spec.updateStrategy.rollingUpdate = { ...spec.updateStrategy.rollingUpdate!, partition: 0 };
    spec.volumeClaimTemplates = data("4Gi") as typeof spec.volumeClaimTemplates;
  });
  setImage(m.world, "app:final");
  record(m);
  const done = ready && settle(m, 300);
  const small = [...m.world.claims.values()].filter((c) => c.storageRequest !== "4Gi").map((c) => c.name);
  return {
    violations: m.violations,
    done,
    small: done ? small.filter((n) => m.world.pods.has(n.slice(5))) : [],
  };
}

describe("model checker: claims follow versions", () => {
  it("issue 26: under stale views, restarts and lost answers, no pet is counted at a version with an old claim, no claim is patched below the partition or shrunk", () => {
    fc.assert(
      fc.property(setup, fc.array(withStorage, { minLength: 40, maxLength: 120 }), (s, actions) => {
        expect(play(s, actions)).toEqual({ violations: [], done: true, small: [] });
      }),
      { numRuns: Math.max(1, Math.round(RUNS / 3)), seed: SEED },
    );
  }, 900_000);
});
