/**
 * Upstream's random harness (the rand.Int63n pod choices of scaleUpStatefulSetControl and
 * updateStatefulSetControl, invariants after every step), widened with fast-check on the fixed
 * seed of test/support/fast-check-seed.ts (FC_SEED explores others): random setups (mode,
 * retention policy, strategy, partition, maxUnavailable), then random pod state changes
 * (forward, Failed, removed behind the controller's back), spec changes (image, replicas) and
 * API failures (a 500 on the next call of a verb), each followed by one sync. After every
 * sync: the claim and identity invariants (assertBurstInvariants) and what the sync itself did
 * (judgeSync): OrderedReady creates a pet only once its predecessors are Running and Ready; an
 * update takes down a Ready pet only at or above the partition, highest ordinal first and
 * within maxUnavailable; at most two versions run (SPEC rules 2-3). Upstream's positional
 * update invariant (assertUpdateInvariants) is not used here: it assumes the states its drivers
 * make, while here a not-Ready pet of the old version is replaced first (SPEC rule 4) and a
 * Failed or condemned pet may sit anywhere. Then the faults stop and the update must complete.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { updateComplete, updateControl } from "./drive.js";
import { assertBurstInvariants } from "./invariants.js";
import {
  internalError,
  isInternalError,
  isReady,
  newPetSet,
  ordinalOf,
  POLICIES,
  podVersion,
  seededPick,
  TableWorld,
} from "./world.js";

type Action =
  | { kind: "advance"; pick: number }
  | { kind: "fail"; ordinal: number }
  | { kind: "remove"; ordinal: number }
  | { kind: "image"; image: string }
  | { kind: "scale"; replicas: number }
  | { kind: "fault"; verb: "createPod" | "deletePod" | "patchPod" | "status" | "createClaim" };

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 8, arbitrary: fc.nat(99).map((pick) => ({ kind: "advance" as const, pick })) },
  { weight: 1, arbitrary: fc.nat(4).map((ordinal) => ({ kind: "fail" as const, ordinal })) },
  { weight: 1, arbitrary: fc.nat(4).map((ordinal) => ({ kind: "remove" as const, ordinal })) },
  {
    weight: 2,
    arbitrary: fc.constantFrom("a", "b", "c").map((image) => ({ kind: "image" as const, image })),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0, max: 5 }).map((replicas) => ({ kind: "scale" as const, replicas })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom("createPod", "deletePod", "patchPod", "status", "createClaim")
      .map((verb) => ({ kind: "fault" as const, verb })),
  },
);

const setup = fc.record({
  replicas: fc.integer({ min: 1, max: 5 }),
  burst: fc.boolean(),
  policy: fc.constantFrom(...POLICIES.map((p) => p.policy)),
  onDelete: fc.boolean(),
  partition: fc.integer({ min: 0, max: 2 }),
  maxUnavailable: fc.integer({ min: 1, max: 2 }),
});

function apply(w: TableWorld, a: Action): void {
  const pods = w.pods();
  if (a.kind === "advance") {
    const pod = pods.length > 0 ? pods[a.pick % pods.length] : undefined;
    if (pod === undefined || pod.metadata?.deletionTimestamp !== undefined) return;
    if (pod.status?.phase === "Pending") w.setPodRunning(ordinalOf(pod));
    else if (pod.status?.phase === "Running" && !isReady(pod)) w.setPodReady(ordinalOf(pod));
  } else if (a.kind === "fail") {
    if (w.pod(a.ordinal) !== undefined) w.setPodPhase(a.ordinal, "Failed");
  } else if (a.kind === "remove") {
    w.removePod(a.ordinal);
  } else if (a.kind === "image") {
    w.setImage(a.image);
  } else if (a.kind === "scale") {
    w.update((s) => {
      s.replicas = a.replicas;
    });
  } else {
    w.fake.failOn(a.verb, w.count(a.verb) + 1, internalError());
  }
}

/** What one sync did, judged against the world it planned on. */
function judgeSync(w: TableWorld, before: ReturnType<TableWorld["pods"]>): string | undefined {
  const spec = w.spec();
  const after = w.pods();
  const beforeUids = new Set(before.map((p) => p.metadata?.uid));
  const afterUids = new Set(after.map((p) => p.metadata?.uid));
  const readyBefore = new Set(before.filter(isReady).map(ordinalOf));
  if (spec.podManagementPolicy === "OrderedReady") {
    for (const pod of after.filter((p) => !beforeUids.has(p.metadata?.uid))) {
      for (let o = 0; o < ordinalOf(pod); o++)
        if (!readyBefore.has(o)) return `created ${pod.metadata?.name} while ${o} was not Running and Ready`;
    }
  }
  const versions = new Set(after.map(podVersion));
  if (versions.size > 2) return `${versions.size} versions run at once`;
  if (spec.updateStrategy.type !== "RollingUpdate") return undefined;
  const partition = spec.updateStrategy.rollingUpdate?.partition ?? 0;
  const max = Number(spec.updateStrategy.rollingUpdate?.maxUnavailable ?? 1);
  // Pets the sync took down for an update: Ready, in range, gone after.
  const movedReady = before.filter(
    (p) => isReady(p) && ordinalOf(p) < spec.replicas && !afterUids.has(p.metadata?.uid),
  );
  for (const pod of movedReady) {
    if (ordinalOf(pod) < partition) return `updated ${pod.metadata?.name} below the partition ${partition}`;
    // Highest ordinal first (SPEC rule 3): no higher pet still runs this pet's version and stays.
    const higher = before.find(
      (p) =>
        ordinalOf(p) > ordinalOf(pod) &&
        ordinalOf(p) < spec.replicas &&
        podVersion(p) === podVersion(pod) &&
        afterUids.has(p.metadata?.uid),
    );
    if (higher !== undefined)
      return `updated ${pod.metadata?.name} before ${higher.metadata?.name} of the same version`;
  }
  if (movedReady.length > 0) {
    const unavailable = (pods: typeof after) =>
      spec.replicas - pods.filter((p) => isReady(p) && ordinalOf(p) < spec.replicas).length;
    if (unavailable(after) > Math.max(max, unavailable(before)))
      return `${unavailable(after)} pets unavailable > maxUnavailable ${max}`;
  }
  return undefined;
}

describe("upstream random harness", () => {
  it("random pod state changes, spec changes and API failures keep the invariants, and the update completes", async () => {
    await fc.assert(
      fc.asyncProperty(setup, fc.array(action, { minLength: 5, maxLength: 30 }), async (s, actions) => {
        const w = new TableWorld(newPetSet({ ...s, partition: s.onDelete ? undefined : s.partition }));
        for (const a of actions) {
          apply(w, a);
          const before = w.pods();
          const out = await w.sync();
          if (out.error !== undefined && !isInternalError(out.error)) throw out.error;
          const finding = assertBurstInvariants(w) ?? judgeSync(w, before);
          if (finding !== undefined) throw new Error(`after ${JSON.stringify(a)}: ${finding}`);
        }
        // No new faults (an injected one not yet spent fails one more sync, which the drive
        // returns; it is driven again): the update completes.
        const pick = seededPick(actions.length);
        let error = await updateControl(w, assertBurstInvariants, pick);
        for (let i = 0; i < 6 && error !== undefined && isInternalError(error); i++)
          error = await updateControl(w, assertBurstInvariants, pick);
        expect(error).toBeUndefined();
        expect(updateComplete(w)).toBe(true);
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
