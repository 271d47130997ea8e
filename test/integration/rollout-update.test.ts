/**
 * Rollout engine, rolling updates: order, maxUnavailable (1, 2, "50%"), what pets are told at
 * the start of a rollout, Events, status and conditions, on both backends.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Annotations, ConditionTypes } from "../../src/api/index.js";
import { eventually } from "../support/cluster.js";
import type { InvariantMonitor } from "../support/invariant-monitor.js";
import {
  condition,
  createPetSet,
  eventsFor,
  expectEvent,
  expectNoViolations,
  listPods,
  listVersions,
  monitor,
  petSetManifest,
  type RolloutEnv,
  setImage,
  startRolloutEnv,
  TEST_MS,
  versionOf,
  WAIT_MS,
  waitRolledOut,
} from "./rollout-support.js";

let env: RolloutEnv;

beforeAll(async () => {
  env = await startRolloutEnv("rollout-update");
});

afterAll(async () => {
  await env?.stop();
});

/** Deletions the controller asked for, in order, with the version each pod ran. */
const deletions = (m: InvariantMonitor) =>
  m
    .moves()
    .filter((x) => x.kind === "delete")
    .map((x) => `${x.pod}@v${x.version}`);

describe("rollout engine: rolling updates", () => {
  it(
    "updates from the highest ordinal, one at a time, telling every pet the target first",
    async () => {
      await createPetSet(env, petSetManifest("web"));
      await waitRolledOut(env, "web", 1);
      const m = await monitor(env, "web");
      await setImage(env, "web", "nginx:1.27");
      const p = await waitRolledOut(env, "web", 2);
      const kubectlWait = await env.cluster.kubectl([
        "wait",
        "-n",
        env.namespace,
        "--for=condition=Available",
        "--timeout=60s",
        "petset/web",
      ]);
      expect(kubectlWait.stdout).toContain("condition met");

      expect(deletions(m)).toEqual(["web-2@v1", "web-1@v1", "web-0@v1"]);
      // Every pod that stays learnt target version 2 before the first one was deleted (web-2,
      // deleted in the sync that starts the rollout, is replaced by a pod created with it).
      const moves = m.moves();
      const firstDelete = moves.findIndex((x) => x.kind === "delete");
      for (const pod of ["web-0", "web-1"]) {
        const told = moves.findIndex((x) => x.pod === pod && x.kind === "announce" && x.target === 2);
        expect(told, `${pod} announced before the first deletion`).toBeGreaterThanOrEqual(0);
        expect(told).toBeLessThan(firstDelete);
        expect(moves[told]?.version).toBe(1);
      }
      for (const pod of await listPods(env, "web")) {
        expect(pod.metadata?.annotations?.[Annotations.targetVersion]).toBe("2");
        expect(pod.spec?.containers[0]?.image).toBe("nginx:1.27");
      }

      // Status as the user saw it: a rollout from 1 to 2, then complete.
      const seen = m.statuses();
      expect(seen.some((s) => s.currentVersion === 1 && s.updateVersion === 2)).toBe(true);
      expect(seen[seen.length - 1]).toMatchObject({
        currentVersion: 2,
        updateVersion: 2,
        progressing: "RolloutComplete",
        available: "True",
      });
      expect(p.status).toMatchObject({ currentReplicas: 3, updatedReplicas: 3, availableReplicas: 3 });
      expect(condition(p, ConditionTypes.progressing)?.status).toBe("True");

      const [, v2] = await listVersions(env, "web");
      expect(v2?.spec.changeCause).toBe("image app: nginx:1.26 -> nginx:1.27");
      await expectEvent(env, "web", "VersionCreated", /web-v2/);
      await expectEvent(env, "web", "RolloutStarted", /version 2/);
      await expectEvent(env, "web", "RolloutComplete");
      for (const pod of ["web-0", "web-1"]) await expectEvent(env, pod, "TargetVersion", /2/);
      await expectNoViolations(m);
    },
    TEST_MS,
  );

  it(
    "maxUnavailable 2 moves two pets at once, never three",
    async () => {
      await createPetSet(env, petSetManifest("two", { rollingUpdate: { maxUnavailable: 2 } }));
      await waitRolledOut(env, "two", 1);
      const m = await monitor(env, "two");
      await setImage(env, "two", "nginx:1.27");
      await waitRolledOut(env, "two", 2);
      expect(deletions(m).slice(0, 2)).toEqual(["two-2@v1", "two-1@v1"]);
      await expectNoViolations(m);
      expect(m.stats().maxUnavailableSeen).toBe(2);
    },
    TEST_MS,
  );

  it(
    'maxUnavailable "50%" of 4 pets is 2',
    async () => {
      await createPetSet(
        env,
        petSetManifest("half", {
          replicas: 4,
          podManagementPolicy: "Parallel",
          rollingUpdate: { maxUnavailable: "50%" },
        }),
      );
      await waitRolledOut(env, "half", 1);
      const m = await monitor(env, "half");
      await setImage(env, "half", "nginx:1.27");
      await waitRolledOut(env, "half", 2);
      expect(deletions(m).slice(0, 2)).toEqual(["half-3@v1", "half-2@v1"]);
      await expectNoViolations(m);
      expect(m.stats().maxUnavailableSeen).toBe(2);
      // Re-applying the same spec creates no version and moves nothing.
      await setImage(env, "half", "nginx:1.27");
      expect((await listVersions(env, "half")).map((v) => v.spec.version)).toEqual([1, 2]);
      expect((await eventsFor(env, "half")).filter((e) => e.reason === "VersionCreated")).toHaveLength(2);
    },
    TEST_MS,
  );

  it(
    "minReadySeconds: the next pet moves only once the previous one was Ready that long",
    async () => {
      await createPetSet(env, petSetManifest("mr", { spec: { minReadySeconds: 2 } }));
      await waitRolledOut(env, "mr", 1);
      const m = await monitor(env, "mr");
      await setImage(env, "mr", "nginx:1.27");
      await waitRolledOut(env, "mr", 2);
      const pods = await listPods(env, "mr");
      const readyAt = (name: string) => {
        const pod = pods.find((p) => p.metadata?.name === name);
        const c = pod?.status?.conditions?.find((x) => x.type === "Ready");
        return Date.parse(String(c?.lastTransitionTime));
      };
      const deletedAt = (name: string) =>
        m.moves().find((x) => x.kind === "delete" && x.pod === name)?.at ?? 0;
      // Ready times have 1 s resolution on the real API server.
      expect(deletedAt("mr-1") - readyAt("mr-2")).toBeGreaterThanOrEqual(1_000);
      expect(deletedAt("mr-0") - readyAt("mr-1")).toBeGreaterThanOrEqual(1_000);
      await expectNoViolations(m);
    },
    TEST_MS,
  );

  it(
    "a pod deleted by a user mid-rollout comes back at the target version, nothing else breaks",
    async () => {
      await createPetSet(env, petSetManifest("usr"));
      await waitRolledOut(env, "usr", 1);
      const m = await monitor(env, "usr");
      await setImage(env, "usr", "nginx:slow");
      await eventually(
        "usr-2 created at version 2",
        async () =>
          (await listPods(env, "usr")).some((p) => p.metadata?.name === "usr-2" && versionOf(p) === 2)
            ? true
            : undefined,
        WAIT_MS,
      );
      m.userDeletes("usr-0");
      await env.core.deleteNamespacedPod({ namespace: env.namespace, name: "usr-0" });
      await waitRolledOut(env, "usr", 2, WAIT_MS * 2);
      const recreated = m.moves().find((x) => x.kind === "create" && x.pod === "usr-0");
      expect(recreated?.version).toBe(2);
      await expectNoViolations(m);
    },
    TEST_MS,
  );
});
