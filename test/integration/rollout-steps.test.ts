import type { V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { Annotations, ConditionTypes, type PetSet } from "../../src/api/index.js";
import { eventually } from "../support/cluster.js";
import { installKubectlPlugin, type KubectlPlugin } from "../support/kubectl-plugin.js";
import {
  condition,
  expectNoViolations,
  getPetSet,
  isReady,
  listPods,
  monitor,
  petSetManifest,
  type RolloutEnv,
  startRolloutEnv,
  TEST_MS,
  versionOf,
  WAIT_MS,
  waitRolledOut,
  withDiagnostics,
} from "./rollout-support.js";

let env: RolloutEnv;
let plugin: KubectlPlugin;

beforeAll(async () => {
  plugin = installKubectlPlugin("steps");
  env = await startRolloutEnv("rollout-steps");
});

afterAll(async () => {
  await env?.stop();
  plugin?.remove();
});

/** `kubectl petset ARGS` as a user runs it: kubectl finds the plugin on PATH. */
const kubectlPetset = (...args: string[]) =>
  plugin.run({ kubeconfigPath: env.cluster.kubeconfigPath, namespace: env.namespace }, args, WAIT_MS);

const STEPS = [{ pets: 1 }, { pause: {} }, { pets: "67%" }, { pause: {} }];

function commit(image: string, name = "web", steps: unknown[] = STEPS): string {
  const body = petSetManifest(name, {
    image,
    podManagementPolicy: "Parallel",
    rollingUpdate: { maxUnavailable: 1, steps },
  });
  return stringify(body);
}

async function apply(text: string): Promise<string> {
  const r = await env.cluster.kubectl(["apply", "-n", env.namespace, "-f", "-"], { input: text });
  return r.stdout.trim();
}

const uids = (pods: V1Pod[]) => pods.map((p) => p.metadata?.uid).join();

/** Waits until the rollout pauses at 1-based `step` with the pods at `versions` (by ordinal), all Ready. */
function waitStepPaused(step: number, versions: string, name = "web"): Promise<PetSet> {
  return withDiagnostics(env, name, () =>
    eventually(
      `${name} paused at step ${step} with versions ${versions}`,
      async () => {
        const p = await getPetSet(env, name);
        const pods = await listPods(env, name);
        const ok =
          condition(p, ConditionTypes.progressing)?.reason === "StepPaused" &&
          p.status?.rolloutStep?.step === step &&
          pods.length === 3 &&
          pods.every(isReady) &&
          pods.map(versionOf).join() === versions;
        return ok ? p : undefined;
      },
      WAIT_MS,
    ),
  );
}

describe("step-wise canary from a manifest", () => {
  it(
    "pauses at each pause step, moves on with kubectl petset promote, and re-applying the manifest changes nothing",
    async () => {
      expect(await apply(commit("nginx:1.26"))).toBe("petset.petset.dev/web created");
      await waitRolledOut(env, "web", 1);
      const m = await monitor(env, "web");

      expect(await apply(commit("nginx:1.27"))).toBe("petset.petset.dev/web configured");
      const first = await waitStepPaused(2, "1,1,2");
      expect(condition(first, ConditionTypes.progressing)?.message).toMatch(
        /step 2 of 4 \(pause\) of version 2: paused until promoted \(kubectl petset promote web\)/,
      );
      const status = await kubectlPetset("status", "web");
      expect(status.code).toBe(2);
      expect(status.stdout).toMatch(/step 2 of 4 \(pause\) of version 2: paused until promoted/);

      // The GitOps tool syncs the same commit: nothing changes, the canary stays paused.
      const before = uids(await listPods(env, "web"));
      expect(await apply(commit("nginx:1.27"))).toBe("petset.petset.dev/web unchanged");

      const promoted = await kubectlPetset("promote", "web");
      expect(promoted).toMatchObject({
        code: 0,
        stdout: "petset.petset.dev/web promoted: version 2 past step 2 of 4 (pause)\n",
      });
      await waitStepPaused(4, "1,2,2");
      const after = await listPods(env, "web");
      expect(after.find((p) => p.metadata?.name === "web-2")?.metadata?.uid).toBe(before.split(",")[2]);

      expect(await apply(commit("nginx:1.27"))).toBe("petset.petset.dev/web unchanged");
      expect((await getPetSet(env, "web")).metadata.annotations?.[Annotations.promote]).toBe("2#2");
      expect((await kubectlPetset("promote", "web")).code).toBe(0);
      await waitRolledOut(env, "web", 2);
      expect((await getPetSet(env, "web")).status?.rolloutStep).toBeUndefined();

      const deletions = m
        .moves()
        .filter((x) => x.kind === "delete")
        .map((x) => x.pod);
      expect(deletions).toEqual(["web-2", "web-1", "web-0"]);
      await expectNoViolations(m);
    },
    TEST_MS,
  );

  it(
    "kubectl petset abort during a pause rolls back to the current version at once, skipping the steps",
    async () => {
      expect(await apply(commit("nginx:1.26", "api"))).toBe("petset.petset.dev/api created");
      await waitRolledOut(env, "api", 1);
      const m = await monitor(env, "api");
      await apply(commit("nginx:1.27", "api"));
      await waitStepPaused(2, "1,1,2", "api");

      const aborted = await kubectlPetset("abort", "api");
      expect(aborted).toMatchObject({
        code: 0,
        stdout: "petset.petset.dev/api rolled back to version 1\ncreated version api-v3 (rollbackOf 1)\n",
      });
      const done = await waitRolledOut(env, "api", 3);
      expect(done.status?.rolloutStep).toBeUndefined();
      // Only the canary moved back; the other pets were relabelled (same content), never restarted.
      expect(
        m
          .moves()
          .filter((x) => x.kind === "delete")
          .map((x) => x.pod),
      ).toEqual(["api-2", "api-2"]);
      await expectNoViolations(m);
    },
    TEST_MS,
  );

  it(
    "a pause with a duration ends by itself on the controller's clock",
    async () => {
      const steps = [{ pets: 1 }, { pause: { duration: "3s" } }];
      await apply(commit("nginx:1.26", "timed", steps));
      await waitRolledOut(env, "timed", 1);
      const m = await monitor(env, "timed");
      await apply(commit("nginx:1.27", "timed", steps));
      const paused = await waitStepPaused(2, "1,1,2", "timed");
      expect(paused.status?.rolloutStep).toMatchObject({ waitingFor: "time", description: "pause 3s" });
      const resumeAt = Date.parse(paused.status?.rolloutStep?.resumeAt ?? "");
      await waitRolledOut(env, "timed", 2);
      // The first pet that moved after the pause was asked to go once the pause had ended.
      const second = m.moves().find((x) => x.kind === "delete" && x.pod === "timed-1");
      expect(second).toBeDefined();
      expect(second?.at ?? 0).toBeGreaterThanOrEqual(resumeAt - 1000);
      await expectNoViolations(m);
    },
    TEST_MS,
  );
});
