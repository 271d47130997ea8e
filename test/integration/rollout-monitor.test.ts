/**
 * The invariant monitor itself: in a namespace where no controller runs, the test plays a bad
 * controller by hand and the monitor must report every rule it breaks. A monitor that never
 * fires would make every other rollout test meaningless.
 */
import { PatchStrategy, setHeaderOptions, type V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Labels } from "../../src/api/index.js";
import { eventually } from "../support/cluster.js";
import { startInvariantMonitor } from "../support/invariant-monitor.js";
import {
  createPetSet,
  isReady,
  listPods,
  patchPetSet,
  petSetManifest,
  type RolloutEnv,
  startRolloutEnv,
  TEST_MS,
  WAIT_MS,
} from "./rollout-support.js";

let env: RolloutEnv;
let bare: RolloutEnv;

beforeAll(async () => {
  env = await startRolloutEnv("rollout-monitor");
  // Same cluster, a namespace no controller watches.
  bare = { ...env, namespace: await env.cluster.namespace("rollout-bare") };
});

afterAll(async () => {
  await env?.stop();
});

function pod(name: string, ordinal: number, version: number, set = "fake"): V1Pod {
  return {
    metadata: {
      name,
      labels: {
        app: set,
        [Labels.petSet]: set,
        [Labels.version]: String(version),
        [Labels.hash]: `hash${version}`,
        [Labels.podIndex]: String(ordinal),
      },
    },
    spec: { terminationGracePeriodSeconds: 0, containers: [{ name: "app", image: `nginx:1.${version}` }] },
  };
}

describe("invariant monitor", () => {
  it(
    "reports each rule a controller could break",
    async () => {
      const ns = bare.namespace;
      await createPetSet(
        bare,
        petSetManifest("fake", { rollingUpdate: { partition: 1, maxUnavailable: 1 } }),
      );
      const m = await startInvariantMonitor({
        kubeConfig: env.cluster.kubeConfig,
        namespace: ns,
        petSet: "fake",
      });
      const create = (p: V1Pod) => env.core.createNamespacedPod({ namespace: ns, body: p });
      const allReady = (n: number) =>
        eventually(
          `${n} fake pods Ready`,
          async () => {
            const pods = await listPods(bare, "fake");
            return pods.length === n && pods.every(isReady) ? pods : undefined;
          },
          WAIT_MS,
        );

      await create(pod("fake-1", 1, 1)); // ordered-ready: fake-0 does not exist
      await create(pod("fake-0", 0, 1));
      await create(pod("fake-2", 2, 1));
      await allReady(3);
      // maxUnavailable 1: two Ready pets deleted at once.
      await env.core.deleteNamespacedPod({ namespace: ns, name: "fake-2" });
      await env.core.deleteNamespacedPod({ namespace: ns, name: "fake-1" });
      await eventually(
        "fake-1 and fake-2 gone",
        async () => ((await listPods(bare, "fake")).length === 1 ? true : undefined),
        WAIT_MS,
      );
      // versions: three contents at once.
      await create(pod("fake-2", 2, 2));
      await create(pod("fake-1", 1, 3));
      // one-pod-per-pet: a second pod object for ordinal 2.
      await create({ ...pod("fake-two", 2, 2) });
      // frozen: the pet below the partition changes content.
      await env.core.patchNamespacedPod(
        {
          namespace: ns,
          name: "fake-0",
          body: [{ op: "replace", path: "/metadata/labels/petset.dev~1hash", value: "hash2" }],
        },
        setHeaderOptions("Content-Type", PatchStrategy.JsonPatch),
      );
      await eventually("monitor saw the patch", () =>
        m.moves().some((x) => x.pod === "fake-0" && x.kind === "patch") ? true : undefined,
      );
      const violations = await m.stop();
      const rules = new Set(violations.map((v) => v.rule));
      expect([...rules].sort()).toEqual([
        "frozen",
        "maxUnavailable",
        "one-pod-per-pet",
        "ordered-ready",
        "versions",
      ]);
      expect(violations.find((v) => v.rule === "maxUnavailable")?.message).toMatch(/2 pets unavailable/);
    },
    TEST_MS,
  );

  it(
    "while paused, a pet scaled away and back is a new pet; one recreated in range must keep its content",
    async () => {
      const ns = bare.namespace;
      const name = "still";
      const manifest = petSetManifest(name, { replicas: 3 });
      (manifest.spec as Record<string, unknown>).paused = true;
      await createPetSet(bare, manifest);
      const m = await startInvariantMonitor({
        kubeConfig: env.cluster.kubeConfig,
        namespace: ns,
        petSet: name,
      });
      const create = (p: V1Pod) => env.core.createNamespacedPod({ namespace: ns, body: p });
      const ready = (n: number) =>
        eventually(
          `${n} pods Ready`,
          async () => {
            const pods = await listPods(bare, name);
            return pods.length === n && pods.every(isReady) ? pods : undefined;
          },
          WAIT_MS,
        );
      const gone = (pod: string) =>
        eventually(
          `${pod} gone`,
          async () => ((await listPods(bare, name)).some((p) => p.metadata?.name === pod) ? undefined : true),
          WAIT_MS,
        );
      const scale = (replicas: number) => patchPetSet(bare, name, { spec: { replicas } });
      await create(pod("still-0", 0, 1, name));
      await create(pod("still-1", 1, 2, name));
      await create(pod("still-2", 2, 2, name));
      await ready(3);
      // Scaled away (replicas 2) and back (3): still-2 comes back at another version, as a new pet.
      await scale(2);
      await env.core.deleteNamespacedPod({ namespace: ns, name: "still-2" });
      await gone("still-2");
      await scale(3);
      await create(pod("still-2", 2, 1, name));
      // Recreated in range while paused at another version: the pet moved.
      await env.core.deleteNamespacedPod({ namespace: ns, name: "still-1" });
      await gone("still-1");
      await create(pod("still-1", 1, 1, name));
      await ready(3);
      const frozen = (await m.stop()).filter((v) => v.rule === "frozen");
      expect(frozen.map((v) => v.message)).toEqual([
        expect.stringMatching(
          /^pod still-1 recreated with content hash1 \(version 1\), its Ready predecessor ran hash2 while paused/,
        ),
      ]);
    },
    TEST_MS,
  );
});
