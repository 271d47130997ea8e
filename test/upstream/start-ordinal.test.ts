/**
 * Upstream "Scaling StatefulSetStartOrdinal" (k8s.io/kubernetes v1.33.5
 * test/e2e/apps/statefulset.go) with PetSets: setting, increasing, decreasing and removing
 * `spec.ordinals.start`. The four cases run at once in one namespace, one PetSet each.
 */
import { afterAll, beforeAll, describe, it } from "vitest";
import {
  createPetSet,
  newPetSet,
  startUpstreamEnv,
  TEST_MS,
  type UpstreamEnv,
  updatePetSet,
  waitForPodNames,
  waitForStatus,
  waitForStatusField,
} from "./upstream-support.js";

let env: UpstreamEnv;
beforeAll(async () => {
  env = await startUpstreamEnv("upstream-ordinals");
});
afterAll(async () => {
  await env?.stop();
});

/** waitForStatus, WaitForStatusReplicas and WaitForStatusReadyReplicas, then the pod names. */
async function settledAt(name: string, replicas: number, ordinals: number[]) {
  await waitForStatus(env, name);
  await waitForPodNames(
    env,
    name,
    ordinals.map((i) => `${name}-${i}`),
  );
  await waitForStatusField(env, name, "replicas", replicas);
  await waitForStatusField(env, name, "readyReplicas", replicas);
}

async function changeStart(name: string, from: number | undefined, to: number | null, replicas = 2) {
  await createPetSet(
    env,
    newPetSet(name, 2, from === undefined ? {} : { spec: { ordinals: { start: from } } }),
  );
  const start = from ?? 0;
  await settledAt(name, 2, [start, start + 1]);
  await updatePetSet(env, name, { spec: { replicas, ordinals: to === null ? null : { start: to } } });
  const next = to ?? 0;
  await settledAt(
    name,
    replicas,
    Array.from({ length: replicas }, (_, i) => next + i),
  );
}

describe.concurrent("Scaling StatefulSetStartOrdinal (PetSet)", () => {
  it("Setting .start.ordinal", { timeout: TEST_MS }, () => changeStart("ss-set", undefined, 2, 3));
  it("Increasing .start.ordinal", { timeout: TEST_MS }, () => changeStart("ss-inc", 2, 4));
  it("Decreasing .start.ordinal", { timeout: TEST_MS }, () => changeStart("ss-dec", 3, 2));
  it("Removing .start.ordinal", { timeout: TEST_MS }, () => changeStart("ss-rm", 3, null));
});
