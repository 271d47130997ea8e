/**
 * Rollout engine, creation: what a user sees when a PetSet is created (OrderedReady, Parallel,
 * ordinals.start), on both backends, with the invariant monitor watching every test.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Annotations, ConditionTypes, EnvVars, Labels } from "../../src/api/index.js";
import { eventually } from "../support/cluster.js";
import {
  condition,
  createPetSet,
  expectEvent,
  expectNoViolations,
  isReady,
  listClaims,
  listPods,
  listVersions,
  monitor,
  petSetManifest,
  type RolloutEnv,
  startRolloutEnv,
  TEST_MS,
  WAIT_MS,
  waitRolledOut,
} from "./rollout-support.js";

let env: RolloutEnv;

beforeAll(async () => {
  env = await startRolloutEnv("rollout-create");
});

afterAll(async () => {
  await env?.stop();
});

describe("rollout engine: creating pets", () => {
  it(
    "creates 3 pets OrderedReady with identity, labels, env, claims first; Available for kubectl wait",
    async () => {
      const m = await monitor(env, "web");
      await env.core.createNamespacedService({
        namespace: env.namespace,
        body: {
          metadata: { name: "web" },
          spec: { clusterIP: "None", selector: { app: "web" }, ports: [{ port: 80 }] },
        },
      });
      await createPetSet(env, petSetManifest("web", { serviceName: "web", claims: ["data"] }));
      const wait = await env.cluster.kubectl(
        ["wait", "-n", env.namespace, "--for=condition=Available", "--timeout=90s", "petset/web"],
        { allowFail: true },
      );
      expect(wait.stderr).toBe("");
      expect(wait.stdout).toContain("condition met");
      const p = await waitRolledOut(env, "web", 1);
      expect(p.status).toMatchObject({ replicas: 3, readyReplicas: 3, availableReplicas: 3 });
      expect(p.status?.updatedReplicas).toBe(3);
      expect(condition(p, ConditionTypes.available)?.status).toBe("True");

      const pods = await listPods(env, "web");
      const claims = await listClaims(env);
      const [v1] = await listVersions(env, "web");
      expect(v1?.spec.version).toBe(1);
      for (const [i, pod] of pods.entries()) {
        expect(pod.metadata?.name).toBe(`web-${i}`);
        expect(pod.spec?.hostname).toBe(`web-${i}`);
        expect(pod.spec?.subdomain).toBe("web");
        expect(pod.metadata?.labels).toMatchObject({
          app: "web",
          [Labels.petSet]: "web",
          [Labels.version]: "1",
          [Labels.hash]: v1?.spec.hash,
          [Labels.podIndex]: String(i),
        });
        expect(pod.metadata?.annotations?.[Annotations.generation]).toBe(String(v1?.spec.generation));
        expect(pod.metadata?.ownerReferences?.[0]).toMatchObject({
          kind: "PetSet",
          name: "web",
          controller: true,
        });
        const env0 = pod.spec?.containers[0]?.env ?? [];
        const fieldOf = (n: string) => env0.find((e) => e.name === n)?.valueFrom?.fieldRef?.fieldPath;
        expect(fieldOf(EnvVars.version)).toBe(`metadata.labels['${Labels.version}']`);
        expect(fieldOf(EnvVars.generation)).toBe(`metadata.annotations['${Annotations.generation}']`);
        expect(fieldOf(EnvVars.ordinal)).toBe(`metadata.labels['${Labels.podIndex}']`);
        const claim = claims.find((c) => c.metadata?.name === `data-web-${i}`);
        expect(claim, `claim data-web-${i}`).toBeDefined();
        expect(pod.spec?.volumes?.find((v) => v.name === "data")?.persistentVolumeClaim?.claimName).toBe(
          `data-web-${i}`,
        );
        // Claims are created before their pod (timestamps have 1 s resolution: never after).
        const claimAt = Date.parse(String(claim?.metadata?.creationTimestamp));
        expect(claimAt).toBeLessThanOrEqual(Date.parse(String(pod.metadata?.creationTimestamp)));
      }
      // OrderedReady: each pet created once, in ordinal order.
      const creates = m
        .moves()
        .filter((x) => x.kind === "create")
        .map((x) => x.pod);
      expect(creates).toEqual(["web-0", "web-1", "web-2"]);
      await expectNoViolations(m);
    },
    TEST_MS,
  );

  it(
    "OrderedReady waits for each pet to be Ready; Parallel creates all at once",
    async () => {
      const mo = await monitor(env, "ordered");
      const mp = await monitor(env, "parallel");
      await createPetSet(env, petSetManifest("ordered", { replicas: 2, image: "nginx:slow" }));
      await createPetSet(
        env,
        petSetManifest("parallel", { image: "nginx:slow", podManagementPolicy: "Parallel" }),
      );
      // Parallel: three pods while none of them is Ready yet (:slow takes seconds).
      const parallel = await eventually(
        "3 parallel pods",
        async () => {
          const pods = await listPods(env, "parallel");
          return pods.length === 3 ? pods : undefined;
        },
        WAIT_MS,
      );
      expect(parallel.filter(isReady).length).toBeLessThan(3);
      await waitRolledOut(env, "ordered", 1);
      // OrderedReady: ordered-1 was created only once ordered-0 was Ready. API timestamps have
      // 1 s resolution, so "not before" is what can be read back; :slow keeps ordered-0 unready
      // for over a second after its creation, so a pet created without waiting shows up here
      // (and in the monitor's ordered-ready rule, which sees every event).
      const [first, second] = await listPods(env, "ordered");
      const readyAt = Date.parse(
        String(
          first?.status?.conditions?.find((c) => c.type === "Ready" && c.status === "True")
            ?.lastTransitionTime,
        ),
      );
      const firstCreatedAt = Date.parse(String(first?.metadata?.creationTimestamp));
      const secondCreatedAt = Date.parse(String(second?.metadata?.creationTimestamp));
      expect(second?.metadata?.name).toBe("ordered-1");
      expect(readyAt, "ordered-0 became Ready after it was created (:slow)").toBeGreaterThan(firstCreatedAt);
      expect(secondCreatedAt, "ordered-1 created no earlier than ordered-0 was Ready").toBeGreaterThanOrEqual(
        readyAt,
      );
      await waitRolledOut(env, "parallel", 1);
      await expectNoViolations(mo);
      await expectNoViolations(mp);
    },
    TEST_MS,
  );

  it(
    "starts at ordinals.start",
    async () => {
      const m = await monitor(env, "shifted");
      await createPetSet(env, petSetManifest("shifted", { replicas: 2, ordinalsStart: 5, claims: ["data"] }));
      await waitRolledOut(env, "shifted", 1);
      const pods = await listPods(env, "shifted");
      expect(pods.map((p) => p.metadata?.name)).toEqual(["shifted-5", "shifted-6"]);
      expect(pods.map((p) => p.metadata?.labels?.[Labels.podIndex])).toEqual(["5", "6"]);
      const claims = (await listClaims(env))
        .map((c) => c.metadata?.name)
        .filter((n) => n?.includes("shifted"));
      expect(claims.sort()).toEqual(["data-shifted-5", "data-shifted-6"]);
      await expectEvent(env, "shifted", "VersionCreated", /shifted-v1/);
      await expectNoViolations(m);
    },
    TEST_MS,
  );
});
