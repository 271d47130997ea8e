/**
 * Rollout engine, update policies: InPlaceIfPossible (same pod, restarted container) and
 * OnDelete (a human moves pods), on both backends.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConditionTypes, ProgressingReasons } from "../../src/api/index.js";
import { eventually } from "../support/cluster.js";
import {
  condition,
  createPetSet,
  expectNoViolations,
  getPetSet,
  isReady,
  listPods,
  monitor,
  petSetManifest,
  type RolloutEnv,
  setImage,
  startRolloutEnv,
  TEST_MS,
  versionOf,
  WAIT_MS,
  waitRolledOut,
  withDiagnostics,
} from "./rollout-support.js";

let env: RolloutEnv;

beforeAll(async () => {
  env = await startRolloutEnv("rollout-policies");
});

afterAll(async () => {
  await env?.stop();
});

describe("rollout engine: update policies", () => {
  it(
    "InPlaceIfPossible: an image-only change keeps each pod, its container restarts",
    async () => {
      await createPetSet(
        env,
        petSetManifest("ip", { rollingUpdate: { podUpdatePolicy: "InPlaceIfPossible" } }),
      );
      await waitRolledOut(env, "ip", 1);
      const before = await listPods(env, "ip");
      const m = await monitor(env, "ip");
      await setImage(env, "ip", "nginx:1.27");
      await waitRolledOut(env, "ip", 2);
      const after = await eventually(
        "kubelet reports the new image on every pod",
        async () => {
          const pods = await listPods(env, "ip");
          const ok = pods.every((p) => p.status?.containerStatuses?.[0]?.image?.endsWith("nginx:1.27"));
          return ok ? pods : undefined;
        },
        WAIT_MS,
      );
      expect(after.map((p) => p.metadata?.uid)).toEqual(before.map((p) => p.metadata?.uid));
      for (const [i, pod] of after.entries()) {
        expect(pod.spec?.containers[0]?.image).toBe("nginx:1.27");
        const restarts = pod.status?.containerStatuses?.[0]?.restartCount ?? 0;
        const was = before[i]?.status?.containerStatuses?.[0]?.restartCount ?? 0;
        expect(restarts, `${pod.metadata?.name} restartCount`).toBeGreaterThan(was);
      }
      const moves = m.moves();
      expect(moves.filter((x) => x.kind === "delete")).toEqual([]);
      expect(moves.filter((x) => x.kind === "patch").map((x) => x.pod)).toEqual(["ip-2", "ip-1", "ip-0"]);
      await expectNoViolations(m);
    },
    TEST_MS,
  );

  it(
    "OnDelete: nothing moves until a pod is deleted by hand",
    async () => {
      await createPetSet(env, petSetManifest("od", { updateStrategyType: "OnDelete" }));
      await waitRolledOut(env, "od", 1);
      const m = await monitor(env, "od");
      await setImage(env, "od", "nginx:1.27");
      const p = await withDiagnostics(env, "od", () =>
        eventually(
          "od has seen version 2, nothing left to do",
          async () => {
            const ps = await getPetSet(env, "od");
            const ok =
              ps.status?.observedGeneration === ps.metadata.generation &&
              ps.status?.updateVersion === 2 &&
              condition(ps, ConditionTypes.progressing)?.reason === ProgressingReasons.rolloutComplete;
            return ok ? ps : undefined;
          },
          WAIT_MS,
        ),
      );
      expect(p.status).toMatchObject({ currentVersion: 1, updatedReplicas: 0 });
      expect((await listPods(env, "od")).map(versionOf)).toEqual([1, 1, 1]);

      m.userDeletes("od-1");
      await env.core.deleteNamespacedPod({ namespace: env.namespace, name: "od-1" });
      const pods = await eventually(
        "od-1 recreated at version 2",
        async () => {
          const all = await listPods(env, "od");
          return all.length === 3 && all.every(isReady) && versionOf(all[1] as (typeof all)[1]) === 2
            ? all
            : undefined;
        },
        WAIT_MS,
      );
      expect(pods.map(versionOf)).toEqual([1, 2, 1]);
      expect(
        m
          .moves()
          .filter((x) => x.kind === "delete")
          .map((x) => x.pod),
      ).toEqual(["od-1"]);
      await expectNoViolations(m);
    },
    TEST_MS,
  );
});
