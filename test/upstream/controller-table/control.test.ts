/**
 * Kubernetes' TestStatefulSetControl (pkg/controller/statefulset/stateful_set_control_test.go,
 * v1.33.5), re-expressed for PetSets: every case in Monotonic (OrderedReady) and Burst
 * (Parallel) mode, against each claim retention policy, with an API failure injected where
 * upstream injects one. Named "TestStatefulSetControl/<case>/<mode>/<policy>". Where petset
 * differs by design the test asserts petset's behaviour and says why
 * (docs/upstream-controller-table.md).
 */
import { describe, expect, it } from "vitest";
import { type Pick, scaleDown, scaleUp } from "./drive.js";
import { assertBurstInvariants, assertMonotonicInvariants, check, type Invariant } from "./invariants.js";
import {
  internalError,
  isInternalError,
  newPetSet,
  ordinalOf,
  POLICIES,
  type RetentionPolicy,
  seededPick,
  TableWorld,
} from "./world.js";

interface Case {
  world: (replicas: number) => TableWorld;
  invariant: Invariant;
  burst: boolean;
  policy: RetentionPolicy | null;
  pick: Pick;
}

type CaseFn = (c: Case) => Promise<void>;

function expectReplicas(w: TableWorld, n: number): void {
  const st = w.status();
  expect([st.replicas, st.readyReplicas, st.updatedReplicas]).toEqual([n, n, n]);
}

async function createsPods(c: Case): Promise<void> {
  const w = c.world(3);
  expect(await scaleUp(w, c.invariant, c.pick)).toBeUndefined();
  expectReplicas(w, 3);
  const pods = w.pods();
  expect(pods).toHaveLength(3);
  // Upstream's apps.kubernetes.io/pod-index is petset.dev/pod-index here (SPEC rule 5).
  for (const pod of pods) expect(pod.metadata?.labels?.["petset.dev/pod-index"]).toBe(String(ordinalOf(pod)));
}

async function scalesUp(c: Case): Promise<void> {
  const w = c.world(3);
  expect(await scaleUp(w, c.invariant, c.pick)).toBeUndefined();
  w.update((s) => {
    s.replicas = 4;
  });
  expect(await scaleUp(w, c.invariant, c.pick)).toBeUndefined();
  expectReplicas(w, 4);
}

async function scalesDown(c: Case): Promise<void> {
  const w = c.world(3);
  expect(await scaleUp(w, c.invariant, c.pick)).toBeUndefined();
  w.update((s) => {
    s.replicas = 0;
  });
  expect(await scaleDown(w, c.invariant)).toBeUndefined();
  expectReplicas(w, 0);
  // whenScaled: petset deletes the claims of removed pets itself (upstream: a pod ownerReference
  // for the garbage collector), or keeps them.
  const kept = c.policy?.whenScaled === "Delete" ? [] : ["datadir-foo-0", "datadir-foo-1", "datadir-foo-2"];
  expect(w.claims().map((cl) => cl.metadata?.name)).toEqual(kept);
}

async function replacesPods(c: Case): Promise<void> {
  const w = c.world(5);
  expect(await scaleUp(w, c.invariant, c.pick)).toBeUndefined();
  expect(w.status().replicas).toBe(5);
  for (const claim of w.claims())
    expect(claim.metadata?.ownerReferences?.some((r) => r.kind === "Pod") ?? false).toBe(false);
  for (const o of [0, 2, 4]) w.removePod(o);
  for (const o of [0, 2, 4]) {
    expect((await w.sync()).error).toBeUndefined();
    w.setPodRunning(o);
    expect((await w.sync()).error).toBeUndefined();
    w.setPodReady(o);
  }
  expect((await w.sync()).error).toBeUndefined();
  expect(w.status().replicas).toBe(5);
  check(w, c.invariant);
}

/** recreatesPod: a pod in a terminal phase is deleted by one sync and created again by the next. */
function recreatesPod(phase: "Failed" | "Succeeded", deleteFailure: boolean): CaseFn {
  return async (c) => {
    const w = c.world(3);
    expect((await w.sync()).error).toBeUndefined();
    check(w, c.invariant);
    expect(w.count("deletePod")).toBe(0);
    const pods = w.pods();
    const terminal = ordinalOf(pods[0] ?? {});
    for (const [i, pod] of pods.entries()) w.setPodPhase(ordinalOf(pod), i === 0 ? phase : "Pending");
    let deletes = 0;
    if (deleteFailure) {
      w.fake.failOn("deletePod", w.count("deletePod") + 1, internalError());
      deletes++;
      expect(isInternalError((await w.sync()).error)).toBe(true);
      check(w, c.invariant);
      expect(w.count("deletePod")).toBe(deletes);
    }
    deletes++;
    expect((await w.sync()).error).toBeUndefined();
    check(w, c.invariant);
    expect(w.count("deletePod")).toBe(deletes);
    const failedUid = w.pod(terminal)?.metadata?.uid;
    expect((await w.sync()).error).toBeUndefined();
    check(w, c.invariant);
    expect(w.count("deletePod")).toBe(deletes);
    const recreated = w.pod(terminal);
    expect(recreated).toBeDefined();
    expect(recreated?.metadata?.uid).not.toBe(failedUid);
    expect(recreated?.status?.phase).toBe("Pending");
    expect(w.count("createPod")).toBe(c.burst ? 3 + 1 : 2);
  };
}

async function createPodFailure(c: Case): Promise<void> {
  const w = c.world(3);
  w.fake.failOn("createPod", 2, internalError());
  expect(isInternalError(await scaleUp(w, c.invariant, c.pick))).toBe(true);
  expect(await scaleUp(w, c.invariant, c.pick)).toBeUndefined();
  expectReplicas(w, 3);
}

/**
 * Upstream mutates a pod's identity so the controller must update the pod, and fails that
 * update. Petset does not rewrite a hand-edited pod's identity (see the doc); the pod update it
 * does make is the rollout's announcement (petset.dev/target-version on every live pod, SPEC
 * rule 5): that one fails here, and the next syncs finish the rollout.
 */
async function updatePodFailure(c: Case): Promise<void> {
  const w = c.world(3);
  expect(await scaleUp(w, c.invariant, c.pick)).toBeUndefined();
  expectReplicas(w, 3);
  w.fake.failOn("patchPod", w.count("patchPod") + 1, internalError());
  w.setImage("nginx-new");
  expect(isInternalError((await w.sync()).error)).toBe(true);
  expect(w.count("patchPod")).toBe(1);
  check(w, c.invariant);
}

async function updateSetStatusFailure(c: Case): Promise<void> {
  const w = c.world(3);
  w.fake.failOn("status", 2, internalError());
  expect(isInternalError(await scaleUp(w, c.invariant, c.pick))).toBe(true);
  expect(await scaleUp(w, c.invariant, c.pick)).toBeUndefined();
  expectReplicas(w, 3);
}

async function newRevisionDeletePodFailure(c: Case): Promise<void> {
  const w = c.world(3);
  expect(await scaleUp(w, c.invariant, c.pick)).toBeUndefined();
  expect(w.status().replicas).toBe(3);
  w.setImage("nginx-new");
  w.fake.failOn("deletePod", w.count("deletePod") + 1, internalError());
  expect(isInternalError((await w.sync()).error)).toBe(true);
  check(w, c.invariant);
  expect(w.status().currentReplicas).toBe(3);
  expect(w.status().updateVersion).not.toBe(w.status().currentVersion);
  expect((await w.sync()).error).toBeUndefined();
  expect(w.count("deletePod")).toBe(2);
  // Petset's status is derived from what the caches show (SPEC rule 9), not adjusted for the
  // sync's own writes as upstream's CurrentReplicas--: the next sync counts the deleted pod.
  expect((await w.sync()).error).toBeUndefined();
  expect(w.status().currentReplicas).toBe(2);
  check(w, c.invariant);
}

async function recreatesPVCForPendingPod(c: Case): Promise<void> {
  const w = c.world(3);
  expect((await w.sync()).error).toBeUndefined();
  check(w, c.invariant);
  const first = w.pods()[0];
  const name = first?.metadata?.name ?? "";
  w.removeClaim(`datadir-${name}`);
  w.setPodPending(ordinalOf(first ?? {}));
  expect((await w.sync()).error).toBeUndefined();
  // The invariants check that every pod's claims exist.
  check(w, c.invariant);
}

const CASES: readonly [string, CaseFn][] = [
  ["CreatesPodsWithPodIndexLabelFeature", createsPods],
  // No feature gate: the index label is always set, so this is the same case as above.
  ["CreatesPodsWithoutPodIndexLabelFeature", createsPods],
  ["ScalesUp", scalesUp],
  ["ScalesDown", scalesDown],
  ["ReplacesPods", replacesPods],
  ["RecreatesFailedPod", recreatesPod("Failed", false)],
  ["RecreatesSucceededPod", recreatesPod("Succeeded", false)],
  ["RecreatesFailedPodWithDeleteFailure", recreatesPod("Failed", true)],
  ["RecreatesSucceededPodWithDeleteFailure", recreatesPod("Succeeded", true)],
  ["CreatePodFailure", createPodFailure],
  ["UpdatePodFailure", updatePodFailure],
  ["UpdateSetStatusFailure", updateSetStatusFailure],
  ["NewRevisionDeletePodFailure", newRevisionDeletePodFailure],
  ["RecreatesPVCForPendingPod", recreatesPVCForPendingPod],
];

describe("TestStatefulSetControl", () => {
  let seed = 1;
  for (const [name, fn] of CASES) {
    for (const burst of [false, true]) {
      for (const { name: policyName, policy } of POLICIES) {
        const caseSeed = seed++;
        it(`TestStatefulSetControl/${name}/${burst ? "Burst" : "Monotonic"}/${policyName}`, async () => {
          await fn({
            world: (replicas) => new TableWorld(newPetSet({ replicas, burst, policy })),
            invariant: burst ? assertBurstInvariants : assertMonotonicInvariants,
            burst,
            policy,
            pick: seededPick(caseSeed),
          });
        });
      }
    }
  }
});
