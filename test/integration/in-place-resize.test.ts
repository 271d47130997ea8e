/**
 * Issue 28, in-place resource resize, on both backends with one PetSet: a resources-only
 * version through pods/resize (uids and restart counts kept), an Infeasible resize falling back
 * to a recreate (the convention annotation kubelet.petset.dev/resize=Infeasible, played by the
 * simulated kubelet and by the kwok stages alike), and InPlaceOnly refusing what cannot move in
 * place. docs/rollouts.md "In-place resource resize" says which checks run where.
 */
import { PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConditionTypes } from "../../src/api/index.js";
import { eventually } from "../support/cluster.js";
import {
  condition,
  createPetSet,
  expectEvent,
  getPetSet,
  listPods,
  patchPetSet,
  petSetManifest,
  type RolloutEnv,
  startRolloutEnv,
  TEST_MS,
  WAIT_MS,
  waitRolledOut,
  withDiagnostics,
} from "./rollout-support.js";

const NAME = "rz";
let env: RolloutEnv;

beforeAll(async () => {
  env = await startRolloutEnv("in-place-resize");
});

afterAll(async () => {
  await env?.stop();
});

/** The app container with this cpu request (cpu resizes without a restart, memory restarts it). */
function app(cpu: string, extra: Record<string, unknown> = {}, memory = "64Mi") {
  return {
    name: "app",
    image: "nginx:1.26",
    resources: { requests: { cpu, memory } },
    resizePolicy: [
      { resourceName: "cpu", restartPolicy: "NotRequired" },
      { resourceName: "memory", restartPolicy: "RestartContainer" },
    ],
    ...extra,
  };
}

const setContainer = (container: Record<string, unknown>, rollingUpdate?: Record<string, unknown>) =>
  patchPetSet(env, NAME, {
    spec: {
      template: { spec: { containers: [container] } },
      ...(rollingUpdate !== undefined ? { updateStrategy: { rollingUpdate } } : {}),
    },
  });

async function pods() {
  const list = await listPods(env, NAME);
  return new Map(list.map((p) => [p.metadata?.name ?? "", p]));
}

const restarts = (p: Awaited<ReturnType<typeof pods>>) =>
  [...p.values()].map((pod) => pod.status?.containerStatuses?.[0]?.restartCount);
const uids = (p: Awaited<ReturnType<typeof pods>>) =>
  [...p.entries()].map(([n, pod]) => `${n}=${pod.metadata?.uid}`);

describe("in-place resource resize (issue 28)", () => {
  it(
    "issue 28: a resources-only version rolls out in place: pod uids and restart counts unchanged, the kubelet reports the new resources",
    async () => {
      const manifest = petSetManifest(NAME, {
        replicas: 2,
        podManagementPolicy: "Parallel",
        rollingUpdate: { podUpdatePolicy: "InPlaceIfPossible" },
      });
      (manifest.spec as { template: { spec: { containers: unknown[] } } }).template.spec.containers = [
        app("100m"),
      ];
      await createPetSet(env, manifest);
      await waitRolledOut(env, NAME, 1);
      const before = await pods();
      await setContainer(app("200m"));
      await waitRolledOut(env, NAME, 2);
      const after = await pods();
      expect(uids(after)).toEqual(uids(before));
      expect(restarts(after)).toEqual(restarts(before));
      for (const pod of after.values()) {
        expect(pod.spec?.containers[0]?.resources?.requests?.cpu).toBe("200m");
        expect(pod.status?.containerStatuses?.[0]?.resources?.requests?.cpu).toBe("200m");
        expect(pod.status?.conditions?.map((c) => c.type)).not.toContain("PodResizeInProgress");
      }
    },
    TEST_MS,
  );

  it(
    "issue 28: an Infeasible resize falls back to recreating that pet, with a ResizeFallback Event; the other is resized in place",
    async () => {
      const before = await pods();
      await env.core.patchNamespacedPod(
        {
          name: `${NAME}-1`,
          namespace: env.namespace,
          body: { metadata: { annotations: { "kubelet.petset.dev/resize": "Infeasible" } } },
        },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      );
      await setContainer(app("300m"));
      await expectEvent(env, `${NAME}-1`, "ResizeFallback", /Infeasible/);
      await waitRolledOut(env, NAME, 3);
      const after = await pods();
      expect(after.get(`${NAME}-0`)?.metadata?.uid).toBe(before.get(`${NAME}-0`)?.metadata?.uid);
      expect(after.get(`${NAME}-1`)?.metadata?.uid).not.toBe(before.get(`${NAME}-1`)?.metadata?.uid);
      expect(after.get(`${NAME}-1`)?.status?.containerStatuses?.[0]?.resources?.requests?.cpu).toBe("300m");
    },
    TEST_MS,
  );

  it(
    "issue 28: InPlaceOnly refuses a version that cannot be applied in place (Progressing names the field, a Warning Event), and recreates nothing",
    async () => {
      const before = await pods();
      await setContainer(app("300m", { env: [{ name: "MODE", value: "x" }] }), {
        podUpdatePolicy: "InPlaceOnly",
      });
      await withDiagnostics(env, NAME, () =>
        eventually(
          "Progressing says InPlaceOnly refuses version 4",
          async () => {
            const message = condition(await getPetSet(env, NAME), ConditionTypes.progressing)?.message ?? "";
            return (
              /cannot move to version 4 in place: .*containers\[app\]\.env changed/.test(message) || undefined
            );
          },
          WAIT_MS,
        ),
      );
      await expectEvent(env, `${NAME}-1`, "InPlaceUpdateRefused", /InPlaceOnly does not recreate it/);
      expect(uids(await pods())).toEqual(uids(before));
    },
    TEST_MS,
  );

  it(
    "issue 28: a memory resize with resizePolicy RestartContainer restarts that container in place (restartCount + 1, same pod); InPlaceOnly moves on to a version it can apply",
    async () => {
      const before = await pods();
      await setContainer(app("300m", {}, "96Mi"));
      await waitRolledOut(env, NAME, 5);
      const after = await pods();
      expect(uids(after)).toEqual(uids(before));
      expect(restarts(after)).toEqual(restarts(before).map((n) => (n ?? 0) + 1));
      expect(
        [...after.values()].map((p) => p.status?.containerStatuses?.[0]?.resources?.requests?.memory),
      ).toEqual(["96Mi", "96Mi"]);
    },
    TEST_MS,
  );
});
