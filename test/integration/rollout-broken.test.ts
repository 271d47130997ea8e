/**
 * Rollout engine, broken rollouts (SPEC rule 4): a fix replaces crashing pods without anyone
 * deleting them; the progress deadline and autoRollback, on both backends.
 */
import type { V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConditionTypes, ProgressingReasons } from "../../src/api/index.js";
import { eventually } from "../support/cluster.js";
import {
  condition,
  createPetSet,
  expectEvent,
  expectNoViolations,
  expectWellFormedHistory,
  getPetSet,
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
  withDiagnostics,
} from "./rollout-support.js";

let env: RolloutEnv;

beforeAll(async () => {
  env = await startRolloutEnv("rollout-broken");
});

afterAll(async () => {
  await env?.stop();
});

const crashing = (pod: V1Pod | undefined) =>
  pod?.status?.containerStatuses?.some((c) => c.state?.waiting?.reason === "CrashLoopBackOff") === true;

/** Waits until `name-2` runs `version` and crash-loops. */
function waitCrashing(name: string, version: number) {
  return withDiagnostics(env, name, () =>
    eventually(
      `${name}-2 crash-looping at version ${version}`,
      async () => {
        const pods = await listPods(env, name);
        const top = pods.find((p) => p.metadata?.name === `${name}-2`);
        return top !== undefined && versionOf(top) === version && crashing(top) ? pods : undefined;
      },
      WAIT_MS,
    ),
  );
}

describe("rollout engine: broken rollouts", () => {
  it(
    "a fix replaces the crashing pod at once, nobody deletes pods",
    async () => {
      await createPetSet(env, petSetManifest("br"));
      await waitRolledOut(env, "br", 1);
      const m = await monitor(env, "br");
      await setImage(env, "br", "nginx:broken");
      const stuck = await waitCrashing("br", 2);
      // The crashing pet uses the whole maxUnavailable budget: nothing else moved.
      expect(stuck.map(versionOf)).toEqual([1, 1, 2]);
      await setImage(env, "br", "nginx:1.28");
      await waitRolledOut(env, "br", 3);
      const deleted = m.moves().filter((x) => x.kind === "delete");
      expect(deleted.map((x) => `${x.pod}@v${x.version}`)).toEqual([
        "br-2@v1",
        "br-2@v2",
        "br-1@v1",
        "br-0@v1",
      ]);
      await expectEvent(env, "br-2", "ReplacingBrokenPod", /version 3/);
      expectWellFormedHistory(await listVersions(env, "br"), "br");
      await expectNoViolations(m);
    },
    TEST_MS,
  );

  it(
    "autoRollback: past progressDeadlineSeconds the set rolls back by itself",
    async () => {
      await createPetSet(
        env,
        petSetManifest("ar", { spec: { autoRollback: true, progressDeadlineSeconds: 4 } }),
      );
      await waitRolledOut(env, "ar", 1);
      const before = await listPods(env, "ar");
      const m = await monitor(env, "ar");
      await setImage(env, "ar", "nginx:broken");
      await waitCrashing("ar", 2);
      await expectEvent(env, "ar", "ProgressDeadlineExceeded", /version 2/);
      await expectEvent(env, "ar", "RolledBack", /rolled back to version 1/);
      const p = await waitRolledOut(env, "ar", 3);
      const versions = await listVersions(env, "ar");
      expect(versions.map((v) => v.spec.version)).toEqual([1, 2, 3]);
      expect(versions[2]?.spec.rollbackOf).toBe(1);
      expect(versions[2]?.spec.changeCause).toMatch(/autoRollback/);
      expect(p.spec.template.spec.containers[0]?.image).toBe("nginx:1.26");
      expect(p.status?.lastCompleteVersion).toBe(3);
      // ar-0 and ar-1 never ran version 2: relabelled to 3, not restarted.
      const after = await listPods(env, "ar");
      expect(after.slice(0, 2).map((x) => x.metadata?.uid)).toEqual(
        before.slice(0, 2).map((x) => x.metadata?.uid),
      );
      const reasons = m.statuses().map((s) => s.progressing);
      expect(reasons).toContain(ProgressingReasons.progressDeadlineExceeded);
      expect(reasons).toContain(ProgressingReasons.rolledBack);
      expect(condition(await getPetSet(env, "ar"), ConditionTypes.progressing)?.reason).toBe(
        "RolloutComplete",
      );
      await expectNoViolations(m);
    },
    TEST_MS,
  );
});
