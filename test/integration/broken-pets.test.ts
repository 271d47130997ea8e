import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConditionTypes, ProgressingReasons } from "../../src/api/index.js";
import { eventually } from "../support/cluster.js";
import { installKubectlPlugin, type KubectlPlugin } from "../support/kubectl-plugin.js";
import {
  condition,
  createPetSet,
  eventsFor,
  expectEvent,
  getPetSet,
  listPods,
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

/** The contract: the PetSet says so within 10 s of the pet crash-looping. */
const VISIBLE_MS = 10_000;

let env: RolloutEnv;
let plugin: KubectlPlugin;

beforeAll(async () => {
  plugin = installKubectlPlugin("broken");
  env = await startRolloutEnv("broken-pets");
});

afterAll(async () => {
  await env?.stop();
  plugin?.remove();
});

/** `kubectl petset ARGS` as a user runs it: kubectl finds the plugin on PATH. */
const kubectlPetset = (...args: string[]) =>
  plugin.run({ kubeconfigPath: env.cluster.kubeconfigPath, namespace: env.namespace }, args, WAIT_MS);

const restartsOf = (pods: Awaited<ReturnType<typeof listPods>>, name: string) =>
  pods.find((p) => p.metadata?.name === name)?.status?.containerStatuses?.[0]?.restartCount ?? 0;

describe("broken pets", () => {
  it(
    "issue 31 item 2: a crash-looping pet of the target version is named by Progressing, kubectl petset status and one Warning, well before the deadline",
    async () => {
      await createPetSet(env, petSetManifest("bp", { replicas: 2, podManagementPolicy: "Parallel" }));
      await waitRolledOut(env, "bp", 1);
      await setImage(env, "bp", "nginx:broken");
      await withDiagnostics(env, "bp", async () => {
        await eventually(
          "bp-1 crash-looping at version 2",
          async () => {
            const top = (await listPods(env, "bp")).find((p) => p.metadata?.name === "bp-1");
            const crashing = top?.status?.containerStatuses?.some(
              (c) => c.state?.waiting?.reason === "CrashLoopBackOff",
            );
            return top !== undefined && versionOf(top) === 2 && crashing === true ? top : undefined;
          },
          WAIT_MS,
        );
        const named = /; broken pet bp-1: CrashLoopBackOff, (\d+) restarts?, at version 2/;
        const progressing = await eventually(
          "Progressing names bp-1",
          async () => {
            const c = condition(await getPetSet(env, "bp"), ConditionTypes.progressing);
            return named.test(c?.message ?? "") ? c : undefined;
          },
          VISIBLE_MS,
        );
        // Long before the 600 s deadline, and the deadline's semantics untouched.
        expect(progressing?.status).toBe("True");
        expect(progressing?.reason).toBe(ProgressingReasons.rollingOut);

        const status = await kubectlPetset("status", "bp");
        expect(status.code).toBe(2);
        expect(status.stdout).toMatch(
          /^petset "bp": rolling out version 1 -> 2: .*; broken pet bp-1: CrashLoopBackOff, \d+ restarts?, at version 2/,
        );
        expect(status.stdout).not.toContain("what to do");

        await expectEvent(
          env,
          "bp",
          "BrokenPet",
          /pet bp-1 is broken at version 2: CrashLoopBackOff; kubectl petset rollback bp/,
        );
        // More restarts are counted in the condition, not warned about again.
        const seen = Number(named.exec(progressing?.message ?? "")?.[1]);
        await eventually(
          "Progressing counts a later restart of bp-1",
          async () => {
            const pods = await listPods(env, "bp");
            const c = condition(await getPetSet(env, "bp"), ConditionTypes.progressing);
            const count = Number(named.exec(c?.message ?? "")?.[1]);
            return restartsOf(pods, "bp-1") > seen && count > seen ? c : undefined;
          },
          WAIT_MS,
        );
        const warnings = (await eventsFor(env, "bp")).filter(
          (e) => e.reason === "BrokenPet" && e.message?.includes("pet bp-1 "),
        );
        expect(warnings.map((e) => e.count ?? 1)).toEqual([1]);
      });

      // A fix replaces the broken pet at once; the report clears.
      await setImage(env, "bp", "nginx:1.27");
      const fixed = await waitRolledOut(env, "bp", 3);
      expect(condition(fixed, ConditionTypes.progressing)?.message).not.toContain("broken pet");
    },
    TEST_MS,
  );
});
