/**
 * Rollout engine, one writer and bad specs: two controller replicas elect one leader (only it
 * writes; the other takes over when it dies), and a spec the CRD accepts but the API refuses
 * for pods stops only that PetSet, with a condition and an Event naming the field.
 */
import { CoordinationV1Api, V1MicroTime } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConditionTypes, ProgressingReasons } from "../../src/api/index.js";
import type { PetSetController } from "../../src/controller/controller.js";
import { eventually } from "../support/cluster.js";
import { type ControllerHandle, LEASE_NAME, leaseHolder, startController } from "../support/controller.js";
import {
  condition,
  createPetSet,
  eventsFor,
  expectNoViolations,
  getPetSet,
  monitor,
  patchPetSet,
  petSetManifest,
  type RolloutEnv,
  setImage,
  startRolloutEnv,
  TEST_MS,
  WAIT_MS,
  waitRolledOut,
  withDiagnostics,
} from "./rollout-support.js";

let env: RolloutEnv;
let second: ControllerHandle | undefined;

beforeAll(async () => {
  env = await startRolloutEnv("rollout-ha");
});

afterAll(async () => {
  await second?.stop();
  await env?.stop();
});

async function writes(c: PetSetController): Promise<number> {
  const metric = await c.metrics.apiWrites.get();
  return metric.values.reduce((sum, v) => sum + v.value, 0);
}

describe("rollout engine: replicas and bad specs", () => {
  it(
    "two replicas: only the Lease holder writes; when it dies the other finishes the rollout",
    async () => {
      const first = env.controller as ControllerHandle;
      await eventually("first replica leads", async () =>
        (await leaseHolder(env.cluster.kubeConfig, env.namespace)) === first.identity ? true : undefined,
      );
      second = await startController(env.cluster, env.namespace);
      await createPetSet(env, petSetManifest("ha", { image: "nginx:1.26" }));
      await waitRolledOut(env, "ha", 1);
      const m = await monitor(env, "ha");
      await setImage(env, "ha", "nginx:slow");
      await eventually(
        "first deletion",
        () => (m.moves().some((x) => x.kind === "delete") ? true : undefined),
        WAIT_MS,
      );
      expect(await writes(first.controller)).toBeGreaterThan(0);
      expect(await writes(second.controller)).toBe(0);
      expect(await leaseHolder(env.cluster.kubeConfig, env.namespace)).toBe(first.identity);

      await first.kill();
      await eventually(
        "second replica takes the Lease",
        async () =>
          (await leaseHolder(env.cluster.kubeConfig, env.namespace)) === second?.identity ? true : undefined,
        WAIT_MS,
      );
      await waitRolledOut(env, "ha", 2, WAIT_MS * 2);
      expect(await writes(second.controller)).toBeGreaterThan(0);
      await expectNoViolations(m);
    },
    TEST_MS,
  );

  it(
    "a template only pod validation refuses: InvalidSpec and a Warning naming the field; others go on",
    async () => {
      const bad = petSetManifest("bad", { replicas: 2 });
      const containers = [{ name: "App_1", image: "nginx:1.26" }];
      const badSpec = bad.spec as { template: { spec: { containers: unknown[] } } };
      badSpec.template.spec.containers = containers;
      await createPetSet(env, bad);
      await createPetSet(env, petSetManifest("fine", { replicas: 2 }));
      const p = await withDiagnostics(env, "bad", () =>
        eventually(
          "bad: Progressing=False InvalidSpec",
          async () => {
            const ps = await getPetSet(env, "bad");
            const c = condition(ps, ConditionTypes.progressing);
            return c?.reason === ProgressingReasons.invalidSpec ? ps : undefined;
          },
          WAIT_MS,
        ),
      );
      const progressing = condition(p, ConditionTypes.progressing);
      expect(progressing?.status).toBe("False");
      expect(progressing?.message).toMatch(/spec\.containers\[0\]\.name/);
      const warning = (await eventsFor(env, "bad")).find((e) => e.type === "Warning");
      expect(warning?.message).toMatch(/spec\.containers\[0\]\.name/);
      expect(warning?.message).toMatch(/bad-0/);
      await waitRolledOut(env, "fine", 1);

      // The user fixes the name: the set recovers by itself.
      await patchPetSet(env, "bad", {
        spec: { template: { spec: { containers: [{ name: "app", image: "nginx:1.26" }] } } },
      });
      await waitRolledOut(env, "bad", 2);
    },
    TEST_MS,
  );

  it(
    "a replica that loses its Lease stops for good; a new replica takes over",
    async () => {
      const leader = second as ControllerHandle;
      const coordination = env.cluster.kubeConfig.makeApiClient(CoordinationV1Api);
      const name = LEASE_NAME;
      const namespace = env.namespace;
      // Someone else holds the Lease now (as after a long pause of the leader). The leader
      // renews every 500 ms: a renewal between our read and write is a 409, and we read again.
      const stolenAt = await eventually(
        "the Lease taken over by an intruder",
        async () => {
          const lease = await coordination.readNamespacedLease({ name, namespace });
          const at = Date.now();
          await coordination.replaceNamespacedLease({
            name,
            namespace,
            body: {
              ...lease,
              spec: {
                ...lease.spec,
                holderIdentity: "intruder",
                leaseDurationSeconds: 5,
                renewTime: new V1MicroTime(at),
              },
            },
          });
          return at;
        },
        WAIT_MS,
      );
      await eventually(
        "the leader notices it lost the Lease",
        () => (leader.lostLeadership() ? true : undefined),
        WAIT_MS,
      );
      // The intruder's Lease expires (5 s) and stays unrenewed for 3 s more: every holder seen
      // meanwhile is recorded, and the old leader must never be one of them.
      const holders = new Set<string>();
      await eventually(
        "the intruder's Lease expired and stayed unrenewed for 3 s",
        async () => {
          holders.add(await leaseHolder(env.cluster.kubeConfig, namespace));
          return Date.now() > stolenAt + 8_000 ? true : undefined;
        },
        WAIT_MS,
      );
      expect([...holders], "the replica that lost the Lease took it back").not.toContain(leader.identity);
      expect(await leaseHolder(env.cluster.kubeConfig, namespace)).toBe("intruder");
      const third = await startController(env.cluster, namespace);
      try {
        await eventually(
          "a new replica leads",
          async () =>
            (await leaseHolder(env.cluster.kubeConfig, namespace)) === third.identity ? true : undefined,
          WAIT_MS,
        );
        const m = await monitor(env, "fine");
        await setImage(env, "fine", "nginx:1.27");
        await waitRolledOut(env, "fine", 2);
        await expectNoViolations(m);
      } finally {
        await third.stop();
      }
    },
    TEST_MS,
  );
});
