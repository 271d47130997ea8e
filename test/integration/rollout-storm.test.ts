/**
 * Rollout engine under a storm of changes: image changes (slow, broken, good) and scaling
 * arrive one after another, each as soon as the controller has observed the previous one.
 * Whatever interleaving results, the invariant monitor must see no violation, history must
 * stay well formed, and the set must end at the newest version.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../support/cluster.js";
import {
  createPetSet,
  expectNoViolations,
  expectWellFormedHistory,
  getPetSet,
  listVersions,
  monitor,
  type PetSetOptions,
  patchPetSet,
  petSetManifest,
  type RolloutEnv,
  setImage,
  startRolloutEnv,
  TEST_MS,
  WAIT_MS,
  waitRolledOut,
} from "./rollout-support.js";

let env: RolloutEnv;

beforeAll(async () => {
  env = await startRolloutEnv("rollout-storm");
});

afterAll(async () => {
  await env?.stop();
});

type Change = { image: string } | { replicas: number };

const storm: Change[] = [
  { image: "nginx:slow" },
  { image: "nginx:broken" },
  { replicas: 4 },
  { image: "nginx:1.27" },
  { image: "nginx:slow" },
  { replicas: 2 },
  { image: "nginx:broken" },
  { replicas: 3 },
  { image: "nginx:1.28" },
];

async function weather(name: string, options: PetSetOptions): Promise<void> {
  await createPetSet(env, petSetManifest(name, options));
  await waitRolledOut(env, name, 1);
  const m = await monitor(env, name);
  for (const change of storm) {
    const movesBefore = m.moves().length;
    if ("image" in change) await setImage(env, name, change.image);
    else await patchPetSet(env, name, { spec: { replicas: change.replicas } });
    await eventually(
      `${name} observed ${JSON.stringify(change)}`,
      async () => {
        const p = await getPetSet(env, name);
        return p.status?.observedGeneration === p.metadata.generation ? true : undefined;
      },
      WAIT_MS,
    );
    // Let the change reach the pods before the next one, when it moves any: the storm should
    // hit a set mid-move, not only a queue of specs. Some changes move nothing (a queued
    // version), hence the short bound instead of a failure.
    await eventually(
      "a pod moved",
      () => (m.moves().length > movesBefore + 1 ? true : undefined),
      3_000,
    ).catch(() => undefined);
  }
  if (options.rollingUpdate?.partition !== undefined) {
    await patchPetSet(env, name, { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } });
  }
  const versions = await listVersions(env, name);
  const newest = versions[versions.length - 1]?.spec.version ?? 0;
  expect(newest).toBe(7);
  await waitRolledOut(env, name, newest, WAIT_MS * 2);
  expectWellFormedHistory(versions, name);
  await expectNoViolations(m);
}

describe("rollout engine: a storm of changes", () => {
  it(
    "Parallel, maxUnavailable 2",
    () => weather("par", { podManagementPolicy: "Parallel", rollingUpdate: { maxUnavailable: 2 } }),
    TEST_MS,
  );

  it(
    "OrderedReady, InPlaceIfPossible",
    () => weather("ord", { rollingUpdate: { podUpdatePolicy: "InPlaceIfPossible" } }),
    TEST_MS,
  );

  it(
    "Parallel, partition 1, minReadySeconds 1",
    () =>
      weather("part", {
        podManagementPolicy: "Parallel",
        rollingUpdate: { partition: 1 },
        spec: { minReadySeconds: 1 },
      }),
    TEST_MS,
  );
});
