/**
 * Lifecycle hooks across a change of controller (docs/hooks.md, docs/rollouts.md "Only time
 * a controller drove counts"), on both backends: a controller killed mid-hook, and one down
 * past the progress deadline and the hook's timeout (chaos seed 3007).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../support/cluster.js";
import { startController } from "../support/controller.js";
import { answerHandshakes, hookRecords, pendingHandshake } from "./hooks-support.js";
import {
  createPetSet,
  eventsFor,
  listVersions,
  petSetManifest,
  type RolloutEnv,
  setImage,
  startRolloutEnv,
  TEST_MS,
  waitRolledOut,
} from "./rollout-support.js";

let env: RolloutEnv;

beforeAll(async () => {
  // Each test runs its own controllers.
  env = await startRolloutEnv("hooks-takeover", { controller: false });
});

afterAll(async () => {
  await env?.stop();
});

describe("lifecycle hooks across a change of controller", () => {
  it(
    "a controller killed mid-hook: the next one resumes the same hook (same id) and the rollout finishes",
    async () => {
      const first = await startController(env.cluster, env.namespace);
      await createPetSet(
        env,
        petSetManifest("resume", {
          replicas: 2,
          spec: { lifecycle: { preUpdate: { external: {}, timeoutSeconds: 300 } } },
        }),
      );
      await waitRolledOut(env, "resume", 1);
      await setImage(env, "resume", "nginx:1.27");
      const waiting = await pendingHandshake(env, "resume");
      await first.kill();
      const second = await startController(env.cluster, env.namespace);
      try {
        // Answer by hand once the new leader has written the request again (same id), then
        // the next pet's.
        await answerHandshakes(env, "resume", waiting.id, 2);
        await waitRolledOut(env, "resume", 2);
        const done = (await hookRecords(env, "resume")).find((r) => r.id === waiting.id);
        expect(done).toMatchObject({ phase: "Succeeded", attempts: 1 });
      } finally {
        await second.kill();
      }
    },
    TEST_MS,
  );

  it(
    "no controller past the deadline and the hook's timeout (chaos seed 3007): the next leader grants both in full",
    async () => {
      const first = await startController(env.cluster, env.namespace);
      await createPetSet(
        env,
        petSetManifest("outage", {
          replicas: 2,
          spec: {
            autoRollback: true,
            progressDeadlineSeconds: 10,
            lifecycle: { preUpdate: { external: {}, timeoutSeconds: 10 } },
          },
        }),
      );
      await waitRolledOut(env, "outage", 1);
      await setImage(env, "outage", "nginx:1.27");
      const waiting = await pendingHandshake(env, "outage");
      await first.kill();
      // Nobody drives the set until both the version's deadline and the hook's timeout passed.
      const passed = Date.parse(waiting.startedAt) + 11_000;
      await eventually(
        "10 s without a controller",
        async () => (Date.now() > passed ? true : undefined),
        20_000,
      );
      const second = await startController(env.cluster, env.namespace);
      try {
        await answerHandshakes(
          env,
          "outage",
          waiting.id,
          2,
          "the hook answered within its timeout, counted from the takeover",
        );
        await waitRolledOut(env, "outage", 2);
        expect((await listVersions(env, "outage")).map((v) => v.spec.version)).toEqual([1, 2]);
        expect((await hookRecords(env, "outage")).find((r) => r.id === waiting.id)).toMatchObject({
          phase: "Succeeded",
          attempts: 1,
          failures: 0,
        });
        const reasons = (await eventsFor(env, "outage")).map((e) => e.reason);
        expect(reasons).not.toContain("ProgressDeadlineExceeded");
        expect(reasons).not.toContain("RolledBack");
      } finally {
        await second.kill();
      }
    },
    TEST_MS,
  );
});
