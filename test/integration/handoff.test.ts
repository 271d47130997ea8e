/**
 * Hand-off to an outside orchestrator (updateStrategy External; docs/rollouts.md "Hand-off"),
 * on both backends: a script annotates pods petset.dev/update-requested=<N> in its own order,
 * petset moves exactly those, refuses a request for another version, and promotes
 * currentVersion at the end. The invariant monitor watches throughout.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Annotations, ConditionTypes } from "../../src/api/index.js";
import { eventually } from "../support/cluster.js";
import {
  condition,
  createPetSet,
  expectEvent,
  expectNoViolations,
  getPetSet,
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
} from "./rollout-support.js";

const run = promisify(execFile);
let env: RolloutEnv;

beforeAll(async () => {
  env = await startRolloutEnv("handoff");
});

afterAll(async () => {
  await env?.stop();
});

describe("updateStrategy External", () => {
  it(
    "a script annotating pods drives the rollout in its order; currentVersion is promoted at the end",
    async () => {
      await createPetSet(env, petSetManifest("ext", { updateStrategyType: "External" }));
      await waitRolledOut(env, "ext", 1);
      const m = await monitor(env, "ext");
      await setImage(env, "ext", "nginx:1.27");
      // Told, not moved.
      await eventually(
        "every pod told target 2",
        async () =>
          (await listPods(env, "ext")).every(
            (p) => p.metadata?.annotations?.[Annotations.targetVersion] === "2",
          )
            ? true
            : undefined,
        WAIT_MS,
      );
      expect((await listPods(env, "ext")).every((p) => versionOf(p) === 1)).toBe(true);
      // Not complete while no pet moved (issue 24 item 10): Progressing says what it waits for.
      await eventually(
        "Progressing waits for update requests",
        async () => {
          const p = condition(await getPetSet(env, "ext"), ConditionTypes.progressing);
          return p?.reason === "RollingOut" && p.message?.includes("waiting for update requests")
            ? true
            : undefined;
        },
        WAIT_MS,
      );

      // A request for another version is refused.
      await env.cluster.kubectl([
        "annotate",
        "-n",
        env.namespace,
        "pod",
        "ext-1",
        `${Annotations.updateRequested}=5`,
      ]);
      await expectEvent(env, "ext-1", "UpdateRequestRefused", /asks for version 5/);

      // The orchestrator's script: ext-0, then ext-2, then ext-1, each once the previous one runs v2.
      const script = [
        "set -euo pipefail",
        "for pod in ext-0 ext-2 ext-1; do",
        `  kubectl annotate -n "$NS" pod "$pod" ${Annotations.updateRequested}=2 --overwrite >/dev/null`,
        `  until [ "$(kubectl get -n "$NS" pod "$pod" -o jsonpath='{.metadata.labels.petset\\.dev/version}' 2>/dev/null)" = 2 ]; do sleep 0.2; done`,
        "done",
      ].join("\n");
      await run("bash", ["-c", script], {
        env: { ...process.env, NS: env.namespace, KUBECONFIG: env.cluster.kubeconfigPath },
        timeout: WAIT_MS,
      });
      await waitRolledOut(env, "ext", 2);
      const deletions = m
        .moves()
        .filter((x) => x.kind === "delete")
        .map((x) => x.pod);
      expect(deletions).toEqual(["ext-0", "ext-2", "ext-1"]);
      const ps = await getPetSet(env, "ext");
      expect(ps.status?.currentVersion).toBe(2);
      expect(condition(ps, ConditionTypes.progressing)?.reason).toBe("RolloutComplete");
      await expectNoViolations(m);
    },
    TEST_MS,
  );
});
