/**
 * Rollout engine, canaries and overlapping changes: a partitioned rollout, lowering the
 * partition, and new specs arriving mid-rollout (at most two versions live, skipped versions
 * never run), on both backends.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConditionTypes } from "../../src/api/index.js";
import { eventually } from "../support/cluster.js";
import {
  condition,
  createPetSet,
  expectEvent,
  expectNoViolations,
  expectWellFormedHistory,
  getPetSet,
  isReady,
  listPods,
  listVersions,
  monitor,
  patchPetSet,
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
  env = await startRolloutEnv("rollout-canary");
});

afterAll(async () => {
  await env?.stop();
});

describe("rollout engine: canaries and overlapping changes", () => {
  it(
    "moves only the pets at or above the partition, then the rest once it is lowered",
    async () => {
      await createPetSet(env, petSetManifest("db", { rollingUpdate: { partition: 2 } }));
      await waitRolledOut(env, "db", 1);
      const m = await monitor(env, "db");
      await setImage(env, "db", "nginx:1.27");
      const canary = await withDiagnostics(env, "db", () =>
        eventually(
          "canary db-2 at version 2, partitioned rollout complete",
          async () => {
            const p = await getPetSet(env, "db");
            const pods = await listPods(env, "db");
            const done =
              p.status?.updateVersion === 2 &&
              condition(p, ConditionTypes.progressing)?.reason === "RolloutComplete" &&
              pods.length === 3 &&
              pods.every(isReady) &&
              pods.map(versionOf).join() === "1,1,2";
            return done ? p : undefined;
          },
          WAIT_MS,
        ),
      );
      expect(canary.status).toMatchObject({ currentVersion: 1, updateVersion: 2, updatedReplicas: 1 });
      expect(condition(canary, ConditionTypes.progressing)?.message).toMatch(/partitioned rollout complete/);

      await patchPetSet(env, "db", { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } });
      await waitRolledOut(env, "db", 2);
      const deletions = m
        .moves()
        .filter((x) => x.kind === "delete")
        .map((x) => x.pod);
      expect(deletions, JSON.stringify({ moves: m.moves(), stats: m.stats() })).toEqual([
        "db-2",
        "db-1",
        "db-0",
      ]);
      await expectNoViolations(m);
    },
    TEST_MS,
  );

  it(
    "a spec arriving mid-rollout waits; a version skipped meanwhile never runs",
    async () => {
      await createPetSet(env, petSetManifest("mid"));
      await waitRolledOut(env, "mid", 1);
      const m = await monitor(env, "mid");
      // Version 2 is slow to become Ready: the rollout takes a while, and is healthy.
      await setImage(env, "mid", "nginx:slow");
      await withDiagnostics(env, "mid", () =>
        eventually(
          "mid-2 Ready at version 2 while version 1 still runs",
          async () => {
            const pods = await listPods(env, "mid");
            const two = pods.find((p) => p.metadata?.name === "mid-2");
            const ok =
              two !== undefined &&
              versionOf(two) === 2 &&
              isReady(two) &&
              pods.some((p) => versionOf(p) === 1);
            return ok ? true : undefined;
          },
          WAIT_MS,
        ),
      );
      // Version 3 must be observed before the next change: two quick writes may reach the
      // controller as one spec (one version, correctly), which is not this test's case.
      await setImage(env, "mid", "nginx:1.28"); // version 3: waits for 2
      await expectEvent(env, "mid", "RolloutQueued", /version 3 waits until version 2/);
      await setImage(env, "mid", "nginx:1.29"); // version 4: 3 is skipped
      await expectEvent(env, "mid", "RolloutQueued", /version 4 waits until version 2/);
      const p = await waitRolledOut(env, "mid", 4, WAIT_MS * 2);
      expect(p.status?.lastCompleteVersion).toBe(4);

      expect(m.versionsSeen()).toEqual(new Set([1, 2, 4]));
      // Version 2 finished before 4 started: every pet ran 2 at some point.
      const created = m.moves().filter((x) => x.kind === "create");
      expect(created.filter((x) => x.version === 2).map((x) => x.pod)).toEqual(["mid-2", "mid-1", "mid-0"]);
      const waiting = m.statuses().find((s) => s.updateVersion === 4 && s.currentVersion === 1);
      expect(waiting, "status showed version 4 waiting while the set ran 1 and 2").toBeDefined();
      const versions = await listVersions(env, "mid");
      expect(versions.map((v) => v.spec.version)).toEqual([1, 2, 3, 4]);
      expectWellFormedHistory(versions, "mid");
      await expectNoViolations(m);
    },
    TEST_MS,
  );

  it(
    "reverting mid-rollout goes at once: old pets relabelled, new ones replaced, never three contents",
    async () => {
      await createPetSet(env, petSetManifest("rev"));
      await waitRolledOut(env, "rev", 1);
      const before = await listPods(env, "rev");
      const m = await monitor(env, "rev");
      await setImage(env, "rev", "nginx:slow");
      await eventually(
        "rev-2 Ready at version 2",
        async () => {
          const two = (await listPods(env, "rev")).find((p) => p.metadata?.name === "rev-2");
          return two !== undefined && versionOf(two) === 2 && isReady(two) ? true : undefined;
        },
        WAIT_MS,
      );
      await setImage(env, "rev", "nginx:1.26"); // the content of version 1 again
      await waitRolledOut(env, "rev", 3);
      const versions = await listVersions(env, "rev");
      expect(versions[2]?.spec.rollbackOf).toBe(1);
      // rev-0 never left version 1's content: relabelled to 3, same pod.
      const after = await listPods(env, "rev");
      expect(after[0]?.metadata?.uid).toBe(before[0]?.metadata?.uid);
      expect(m.moves().some((x) => x.pod === "rev-0" && x.kind === "relabel" && x.version === 3)).toBe(true);
      expect(m.stats().maxLiveContents).toBe(2);
      await expectNoViolations(m);
    },
    TEST_MS,
  );

  it(
    "pausing mid-rollout freezes the pets; scaling up meanwhile adds pets at the old version",
    async () => {
      await createPetSet(env, petSetManifest("pm"));
      await waitRolledOut(env, "pm", 1);
      const m = await monitor(env, "pm");
      await setImage(env, "pm", "nginx:slow");
      await eventually(
        "pm-2 created at version 2",
        async () =>
          (await listPods(env, "pm")).some((p) => p.metadata?.name === "pm-2" && versionOf(p) === 2)
            ? true
            : undefined,
        WAIT_MS,
      );
      await patchPetSet(env, "pm", { spec: { paused: true, replicas: 4 } });
      const pods = await withDiagnostics(env, "pm", () =>
        eventually(
          "pm paused with pm-3 Ready",
          async () => {
            const p = await getPetSet(env, "pm");
            const all = await listPods(env, "pm");
            const ok =
              p.status?.observedGeneration === p.metadata.generation &&
              condition(p, ConditionTypes.progressing)?.reason === "Paused" &&
              all.length === 4 &&
              all.every(isReady);
            return ok ? all : undefined;
          },
          WAIT_MS,
        ),
      );
      expect(pods.map(versionOf)).toEqual([1, 1, 2, 1]);
      await patchPetSet(env, "pm", { spec: { paused: false } });
      await waitRolledOut(env, "pm", 2, WAIT_MS * 2);
      await expectNoViolations(m);
    },
    TEST_MS,
  );
});
