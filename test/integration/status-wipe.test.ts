/**
 * Status is derived, not remembered (SPEC rule 9), on both backends: a user replaces a
 * PetSet's status with `{}` mid-rollout (as a restore without status does); after the
 * controller's next sync the status is what it was, the partition holds, autoRollback still
 * fires, and the invariant monitor stays clean.
 */
import type { V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ConditionTypes,
  GROUP,
  PETSET_PLURAL,
  type PetSet,
  ProgressingReasons,
  VERSION,
} from "../../src/api/index.js";
import { eventually } from "../support/cluster.js";
import {
  condition,
  createPetSet,
  expectEvent,
  expectNoViolations,
  getPetSet,
  isReady,
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
  env = await startRolloutEnv("status-wipe");
});

afterAll(async () => {
  await env?.stop();
});

const ps = { group: GROUP, version: VERSION, plural: PETSET_PLURAL };

/** What a user reads: versions, counts, condition types/statuses/reasons. */
function userView(p: PetSet) {
  const s = p.status;
  return {
    currentVersion: s?.currentVersion,
    updateVersion: s?.updateVersion,
    lastCompleteVersion: s?.lastCompleteVersion,
    replicas: s?.replicas,
    readyReplicas: s?.readyReplicas,
    availableReplicas: s?.availableReplicas,
    currentReplicas: s?.currentReplicas,
    updatedReplicas: s?.updatedReplicas,
    conditions: [...(s?.conditions ?? [])]
      .sort((a, b) => a.type.localeCompare(b.type))
      .map((c) => ({ type: c.type, status: c.status, reason: c.reason })),
  };
}

/** PUT the status subresource with `{}`, as a restore without status does. */
async function wipeStatus(name: string): Promise<void> {
  await eventually(
    `status of ${name} replaced with {}`,
    async () => {
      const current = (await env.custom.getNamespacedCustomObject({
        ...ps,
        namespace: env.namespace,
        name,
      })) as Record<string, unknown>;
      try {
        await env.custom.replaceNamespacedCustomObjectStatus({
          ...ps,
          namespace: env.namespace,
          name,
          body: { ...current, status: {} },
        });
        return true;
      } catch (err) {
        if ((err as { code?: number }).code === 409) return undefined; // the controller wrote meanwhile
        throw err;
      }
    },
    WAIT_MS,
  );
}

/** After a wipe: waits for the controller to write status again and returns what it wrote. */
async function rebuilt(name: string): Promise<PetSet> {
  return withDiagnostics(env, name, () =>
    eventually(
      `${name} status written again after the wipe`,
      async () => {
        const p = await getPetSet(env, name);
        return p.status?.observedGeneration !== undefined && p.status.updateVersion !== undefined
          ? p
          : undefined;
      },
      WAIT_MS,
    ),
  );
}

/** Waits until `name-<ordinal>` runs `version` and crash-loops. */
async function waitCrashing(name: string, ordinal: number, version: number): Promise<V1Pod> {
  return withDiagnostics(env, name, () =>
    eventually(
      `${name}-${ordinal} at version ${version} in CrashLoopBackOff`,
      async () => {
        const pod = (await listPods(env, name)).find((p) => p.metadata?.name === `${name}-${ordinal}`);
        const crashing = pod?.status?.containerStatuses?.some(
          (c) => c.state?.waiting?.reason === "CrashLoopBackOff",
        );
        return pod !== undefined && versionOf(pod) === version && crashing ? pod : undefined;
      },
      WAIT_MS,
    ),
  );
}

describe("status is derived: a wiped status comes back after one sync", () => {
  it(
    "plain rollout, stalled mid-way: same status, then the rollout finishes",
    async () => {
      await createPetSet(env, petSetManifest("plain"));
      await waitRolledOut(env, "plain", 1);
      const m = await monitor(env, "plain");
      await setImage(env, "plain", "nginx:broken"); // version 2: plain-2 crash-loops, the rest wait
      await waitCrashing("plain", 2, 2);
      const before = await withDiagnostics(env, "plain", () =>
        eventually(
          "status shows the rollout of version 2 stalled on plain-2",
          async () => {
            const p = await getPetSet(env, "plain");
            const reason = condition(p, ConditionTypes.progressing)?.reason;
            const settled =
              p.status?.updateVersion === 2 &&
              p.status.replicas === 3 &&
              p.status.updatedReplicas === 1 &&
              p.status.readyReplicas === 2 &&
              reason === ProgressingReasons.rollingOut;
            return settled ? p : undefined;
          },
          WAIT_MS,
        ),
      );
      await wipeStatus("plain");
      expect(userView(await rebuilt("plain"))).toEqual(userView(before));
      expect(userView(before)).toMatchObject({ currentVersion: 1, updateVersion: 2, lastCompleteVersion: 1 });

      await setImage(env, "plain", "nginx:1.27"); // the fix, version 3
      const done = await waitRolledOut(env, "plain", 3);
      expect(done.status?.lastCompleteVersion).toBe(3);
      const versions = await listVersions(env, "plain");
      expect(versions[0]?.status).toMatchObject({ supersededBy: 2 });
      expect(versions[1]?.status).toMatchObject({ supersededBy: 3 });
      expect(versions[2]?.status?.fullyRolledOutAt).toBeDefined();
      await expectNoViolations(m);
    },
    TEST_MS,
  );

  it(
    "partitioned canary: currentVersion stays the lower pets' version, a lost lower pet comes back at it",
    async () => {
      // partition 1: canaries can-1 and can-2 outnumber can-0, which keeps version 1.
      await createPetSet(env, petSetManifest("can", { rollingUpdate: { partition: 1 } }));
      await waitRolledOut(env, "can", 1);
      const m = await monitor(env, "can");
      await setImage(env, "can", "nginx:1.27");
      const before = await withDiagnostics(env, "can", () =>
        eventually(
          "partitioned rollout of version 2 complete",
          async () => {
            const p = await getPetSet(env, "can");
            const pods = await listPods(env, "can");
            const done =
              condition(p, ConditionTypes.progressing)?.reason === ProgressingReasons.rolloutComplete &&
              p.status?.updateVersion === 2 &&
              p.status.readyReplicas === 3 &&
              pods.length === 3 &&
              pods.every(isReady) &&
              pods.map(versionOf).join() === "1,2,2";
            return done ? p : undefined;
          },
          WAIT_MS,
        ),
      );
      expect(before.status).toMatchObject({ currentVersion: 1, lastCompleteVersion: 1 });
      await wipeStatus("can");
      expect(userView(await rebuilt("can"))).toEqual(userView(before));

      // The lower pet is lost: it comes back at version 1, not at the canaries' version.
      const lost = (await listPods(env, "can")).find((p) => p.metadata?.name === "can-0");
      m.userDeletes("can-0");
      await env.core.deleteNamespacedPod({ namespace: env.namespace, name: "can-0" });
      await withDiagnostics(env, "can", () =>
        eventually(
          "can-0 recreated at version 1 and Ready",
          async () => {
            const pod = (await listPods(env, "can")).find((p) => p.metadata?.name === "can-0");
            const fresh = pod !== undefined && pod.metadata?.uid !== lost?.metadata?.uid;
            if (fresh && pod !== undefined) expect(versionOf(pod)).toBe(1);
            return fresh && isReady(pod) ? pod : undefined;
          },
          WAIT_MS,
        ),
      );
      expect((await getPetSet(env, "can")).status).toMatchObject({ currentVersion: 1, updateVersion: 2 });
      await expectNoViolations(m);
    },
    TEST_MS,
  );

  it(
    "autoRollback still fires after a wipe, and a wipe during the rollback loses nothing",
    async () => {
      await createPetSet(
        env,
        petSetManifest("ar", { spec: { autoRollback: true, progressDeadlineSeconds: 6 } }),
      );
      await waitRolledOut(env, "ar", 1);
      const m = await monitor(env, "ar");
      await setImage(env, "ar", "nginx:broken");
      await waitCrashing("ar", 2, 2);
      // Before the deadline: the wipe must not lose the rollback target (lastCompleteVersion 1).
      await wipeStatus("ar");
      await expectEvent(env, "ar", "ProgressDeadlineExceeded", /version 2/);
      await expectEvent(env, "ar", "RolledBack", /rolled back to version 1/);
      // While the rollback version rolls out.
      await wipeStatus("ar");
      const p = await waitRolledOut(env, "ar", 3);
      expect(p.status?.lastCompleteVersion).toBe(3);
      const versions = await listVersions(env, "ar");
      expect(versions.map((v) => v.spec.version)).toEqual([1, 2, 3]);
      expect(versions[2]?.spec.rollbackOf).toBe(1);
      expect(versions[1]?.status?.rolledBackAt).toBeDefined();
      const reasons = m.statuses().map((s) => s.progressing);
      expect(reasons).toContain(ProgressingReasons.progressDeadlineExceeded);
      expect(reasons).toContain(ProgressingReasons.rolledBack);
      await expectNoViolations(m);
    },
    TEST_MS,
  );
});
