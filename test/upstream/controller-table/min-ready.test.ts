/**
 * minReadySeconds in the update families: upstream's TestStatefulSetAvailability
 * (status.test.ts) checks the count; here the rolling update runs with minReadySeconds 10 in
 * Monotonic and Burst mode against each retention policy, and after every sync it is checked
 * that a Ready pet was taken down for the update only while no other pet was unavailable:
 * a pet Ready for less than minReadySeconds (injected clock) is unavailable (maxUnavailable 1).
 */
import type { V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { scaleUp, updateControl } from "./drive.js";
import { assertBurstInvariants, assertUpdateInvariants, type Invariant } from "./invariants.js";
import { isReady, newPetSet, ordinalOf, POLICIES, podImage, seededPick, TableWorld } from "./world.js";

const MIN_READY_MS = 10_000;

function available(w: TableWorld, pod: V1Pod): boolean {
  const ready = pod.status?.conditions?.find((c) => c.type === "Ready")?.lastTransitionTime;
  return isReady(pod) && ready !== undefined && new Date(ready).getTime() + MIN_READY_MS <= w.fake.now;
}

/** After a sync: a pet that was Ready and is gone was taken down while all others were available. */
function budgetKept(w: TableWorld): Invariant {
  let before: V1Pod[] = w.pods();
  return (x) => {
    const after = new Set(x.pods().map((p) => p.metadata?.uid));
    const taken = before.filter(
      (p) => isReady(p) && ordinalOf(p) < x.spec().replicas && !after.has(p.metadata?.uid),
    );
    const othersUnavailable =
      before.filter((p) => !taken.includes(p) && ordinalOf(p) < x.spec().replicas && !available(x, p))
        .length +
      (x.spec().replicas - before.filter((p) => ordinalOf(p) < x.spec().replicas).length);
    before = x.pods();
    if (taken.length > 0 && taken.length + othersUnavailable > 1)
      return `took down ${taken.map((p) => p.metadata?.name).join(",")} with ${othersUnavailable} other pets unavailable`;
    return assertUpdateInvariants(x);
  };
}

describe("minReadySeconds in rolling updates", () => {
  for (const burst of [false, true]) {
    POLICIES.forEach(({ name, policy }, p) => {
      it(`minReadySeconds/RollingUpdate/${burst ? "Burst" : "Monotonic"}/${name}`, async () => {
        const w = new TableWorld(
          newPetSet({ replicas: 3, burst, policy, minReadySeconds: MIN_READY_MS / 1000 }),
        );
        const pick = seededPick(1000 + p + (burst ? 10 : 0));
        expect(await scaleUp(w, assertBurstInvariants, pick)).toBeUndefined();
        w.setImage("foo");
        expect(await updateControl(w, budgetKept(w), pick)).toBeUndefined();
        expect(w.pods().map(podImage)).toEqual(["foo", "foo", "foo"]);
      });
    });
  }
});
