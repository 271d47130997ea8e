/**
 * The progress deadline as a new user meets it, on both backends (docs/rollouts.md "Broken
 * rollouts"; rules in src/controller/planner/progress-deadline.ts). Issue 24 item 12: a PetSet
 * with a preUpdate hook, idle for longer than progressDeadlineSeconds, got a Warning
 * ProgressDeadlineExceeded 16 ms after RolloutStarted on `set image`, and with autoRollback an
 * Event announcing a rollback that never happened.
 *
 * No wall-clock luck: the idle spell is a condition on the API's own timestamps (the last pod
 * Ready transition and Progressing's lastTransitionTime older than the deadline), and the
 * deadline is long enough that no step of a healthy rollout on a loaded machine comes near it
 * (the hook itself holds the clock); the false verdict came on the rollout's first sync.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConditionTypes } from "../../src/api/index.js";
import { eventually } from "../support/cluster.js";
import {
  condition,
  createPetSet,
  eventsFor,
  expectNoViolations,
  getPetSet,
  listPods,
  listVersions,
  monitor,
  petSetManifest,
  type RolloutEnv,
  setImage,
  startRolloutEnv,
  TEST_MS,
  WAIT_MS,
  waitRolledOut,
} from "./rollout-support.js";

const DEADLINE_S = 15;
let env: RolloutEnv;

beforeAll(async () => {
  env = await startRolloutEnv("deadline");
});

afterAll(async () => {
  await env?.stop();
});

/** The latest progress the API shows: pods turning Ready, Progressing's last transition. */
async function lastProgressMs(name: string): Promise<number> {
  const times = [
    new Date(
      condition(await getPetSet(env, name), ConditionTypes.progressing)?.lastTransitionTime ?? 0,
    ).getTime(),
  ];
  for (const pod of await listPods(env, name)) {
    const ready = pod.status?.conditions?.find((c) => c.type === "Ready");
    times.push(new Date(ready?.lastTransitionTime ?? 0).getTime());
    times.push(new Date(pod.metadata?.creationTimestamp ?? 0).getTime());
  }
  return Math.max(...times.filter((t) => !Number.isNaN(t)));
}

describe("progress deadline", () => {
  it(
    "issue 24 item 12: a hooked rollout of a set idle longer than the deadline is not reported stalled, nor rolled back",
    async () => {
      await createPetSet(
        env,
        petSetManifest("idle", {
          replicas: 2,
          spec: {
            progressDeadlineSeconds: DEADLINE_S,
            autoRollback: true,
            lifecycle: { preUpdate: { exec: { command: ["true"] }, timeoutSeconds: 60 } },
          },
        }),
      );
      await waitRolledOut(env, "idle", 1);
      await eventually(
        `idle for longer than ${DEADLINE_S}s`,
        async () =>
          Date.now() - (await lastProgressMs("idle")) > (DEADLINE_S + 1) * 1000 ? true : undefined,
        (DEADLINE_S + 1) * 1000 + WAIT_MS,
        500,
      );
      const m = await monitor(env, "idle");
      await setImage(env, "idle", "nginx:1.27");
      await waitRolledOut(env, "idle", 2);
      const reasons = (await eventsFor(env, "idle")).map((e) => `${e.reason}: ${e.message}`);
      expect(
        reasons.filter((r) => r.startsWith("ProgressDeadlineExceeded") || r.startsWith("RolledBack")),
      ).toEqual([]);
      expect(reasons.some((r) => r.startsWith("RolloutStarted"))).toBe(true);
      expect((await listVersions(env, "idle")).map((v) => v.spec.version)).toEqual([1, 2]);
      await expectNoViolations(m);
    },
    TEST_MS + (DEADLINE_S + 1) * 1000,
  );
});
