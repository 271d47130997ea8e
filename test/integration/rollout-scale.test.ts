/**
 * Rollout engine, pausing and scaling: pause/resume, scaling during a rollout, claim
 * retention when scaled, on both backends.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConditionTypes, ProgressingReasons } from "../../src/api/index.js";
import { eventually } from "../support/cluster.js";
import {
  condition,
  createPetSet,
  expectNoViolations,
  getPetSet,
  isReady,
  listClaims,
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
  env = await startRolloutEnv("rollout-scale");
});

afterAll(async () => {
  await env?.stop();
});

const claimsOf = async (name: string) =>
  (await listClaims(env))
    .filter((c) => c.metadata?.labels?.["petset.dev/petset"] === name)
    .map((c) => c.metadata?.name)
    .sort();

describe("rollout engine: pause and scale", () => {
  it(
    "paused: versions are recorded, no pod moves, scaling works; resume finishes",
    async () => {
      await createPetSet(env, petSetManifest("pz", { replicas: 2 }));
      await waitRolledOut(env, "pz", 1);
      const before = (await listPods(env, "pz")).map((p) => p.metadata?.uid);
      const m = await monitor(env, "pz");
      await patchPetSet(env, "pz", { spec: { paused: true } });
      await setImage(env, "pz", "nginx:1.27");
      await patchPetSet(env, "pz", { spec: { replicas: 3 } });
      const paused = await withDiagnostics(env, "pz", () =>
        eventually(
          "pz paused with version 2 recorded and pz-2 created at version 1",
          async () => {
            const p = await getPetSet(env, "pz");
            const pods = await listPods(env, "pz");
            const ok =
              p.status?.observedGeneration === p.metadata.generation &&
              p.status?.updateVersion === 2 &&
              condition(p, ConditionTypes.progressing)?.reason === ProgressingReasons.paused &&
              pods.length === 3 &&
              pods.every(isReady);
            return ok ? { p, pods } : undefined;
          },
          WAIT_MS,
        ),
      );
      expect(condition(paused.p, ConditionTypes.progressing)?.status).toBe("Unknown");
      expect(paused.p.status?.currentVersion).toBe(1);
      expect(paused.pods.map(versionOf)).toEqual([1, 1, 1]);
      expect(paused.pods.slice(0, 2).map((p) => p.metadata?.uid)).toEqual(before);
      expect((await listVersions(env, "pz")).map((v) => v.spec.version)).toEqual([1, 2]);
      expect(m.moves().filter((x) => x.kind !== "create")).toEqual([]);

      await patchPetSet(env, "pz", { spec: { paused: false } });
      await waitRolledOut(env, "pz", 2);
      await expectNoViolations(m);
    },
    TEST_MS,
  );

  it(
    "scales up and down during a rollout",
    async () => {
      await createPetSet(env, petSetManifest("sc"));
      await waitRolledOut(env, "sc", 1);
      const m = await monitor(env, "sc");
      await setImage(env, "sc", "nginx:slow");
      await eventually(
        "sc-2 created at version 2",
        async () =>
          (await listPods(env, "sc")).some((p) => p.metadata?.name === "sc-2" && versionOf(p) === 2)
            ? true
            : undefined,
        WAIT_MS,
      );
      await env.cluster.kubectl(["scale", "-n", env.namespace, "petset/sc", "--replicas=5"]);
      await eventually(
        "sc-3 exists",
        async () => ((await listPods(env, "sc")).some((p) => p.metadata?.name === "sc-3") ? true : undefined),
        WAIT_MS,
      );
      await patchPetSet(env, "sc", { spec: { replicas: 2 } });
      const p = await waitRolledOut(env, "sc", 2, WAIT_MS * 2);
      expect(p.status?.replicas).toBe(2);
      expect((await listPods(env, "sc")).map((x) => x.metadata?.name)).toEqual(["sc-0", "sc-1"]);
      await expectNoViolations(m);
    },
    TEST_MS,
  );

  it(
    "claims of removed pets: whenScaled Delete removes them, Retain keeps and reuses them",
    async () => {
      const del = { whenScaled: "Delete", whenDeleted: "Retain" };
      await createPetSet(
        env,
        petSetManifest("del", {
          claims: ["data"],
          podManagementPolicy: "Parallel",
          spec: { persistentVolumeClaimRetentionPolicy: del },
        }),
      );
      await createPetSet(env, petSetManifest("keep", { claims: ["data"], podManagementPolicy: "Parallel" }));
      await waitRolledOut(env, "del", 1);
      await waitRolledOut(env, "keep", 1);
      const keptUids = (await listClaims(env))
        .filter((c) => c.metadata?.labels?.["petset.dev/petset"] === "keep")
        .map((c) => c.metadata?.uid)
        .sort();
      await patchPetSet(env, "del", { spec: { replicas: 1 } });
      await patchPetSet(env, "keep", { spec: { replicas: 1 } });
      await eventually(
        "del's claims of pets 1 and 2 deleted",
        async () => {
          const claims = (await listClaims(env)).filter(
            (c) =>
              c.metadata?.labels?.["petset.dev/petset"] === "del" &&
              c.metadata?.deletionTimestamp === undefined,
          );
          return claims.length === 1 ? true : undefined;
        },
        WAIT_MS,
      );
      await waitRolledOut(env, "keep", 1);
      expect(await claimsOf("keep")).toEqual(["data-keep-0", "data-keep-1", "data-keep-2"]);
      await patchPetSet(env, "keep", { spec: { replicas: 3 } });
      await waitRolledOut(env, "keep", 1);
      const reused = (await listClaims(env))
        .filter((c) => c.metadata?.labels?.["petset.dev/petset"] === "keep")
        .map((c) => c.metadata?.uid)
        .sort();
      expect(reused).toEqual(keptUids);
    },
    TEST_MS,
  );

  it(
    "deleting a PetSet: whenDeleted Delete removes its claims, Retain keeps them; versions go with it",
    async () => {
      const policy = { whenDeleted: "Delete", whenScaled: "Retain" };
      await createPetSet(
        env,
        petSetManifest("gone", {
          replicas: 2,
          claims: ["data"],
          podManagementPolicy: "Parallel",
          spec: { persistentVolumeClaimRetentionPolicy: policy },
        }),
      );
      await createPetSet(
        env,
        petSetManifest("kept", { replicas: 2, claims: ["data"], podManagementPolicy: "Parallel" }),
      );
      await waitRolledOut(env, "gone", 1);
      await waitRolledOut(env, "kept", 1);
      for (const name of ["gone", "kept"]) {
        await env.cluster.kubectl(["delete", "-n", env.namespace, `petset/${name}`, "--wait=false"]);
      }
      await eventually(
        "gone's pods, claims and versions deleted; kept's claims still there",
        async () => {
          const live = (await listClaims(env)).filter((c) => c.metadata?.deletionTimestamp === undefined);
          const names = live.map((c) => c.metadata?.name ?? "").filter((n) => /-(gone|kept)-/.test(n));
          const pods = [...(await listPods(env, "gone")), ...(await listPods(env, "kept"))];
          const versions = [...(await listVersions(env, "gone")), ...(await listVersions(env, "kept"))];
          const ok =
            names.sort().join() === "data-kept-0,data-kept-1" && pods.length === 0 && versions.length === 0;
          return ok ? true : undefined;
        },
        WAIT_MS,
      );
    },
    TEST_MS,
  );

  it(
    "scale to zero mid-rollout, change again, scale back: pets come back at the newest version",
    async () => {
      await createPetSet(env, petSetManifest("zero", { claims: ["data"] }));
      await waitRolledOut(env, "zero", 1);
      const m = await monitor(env, "zero");
      await setImage(env, "zero", "nginx:slow");
      await eventually(
        "zero-2 created at version 2",
        async () =>
          (await listPods(env, "zero")).some((p) => p.metadata?.name === "zero-2" && versionOf(p) === 2)
            ? true
            : undefined,
        WAIT_MS,
      );
      await env.cluster.kubectl(["scale", "-n", env.namespace, "petset/zero", "--replicas=0"]);
      await withDiagnostics(env, "zero", () =>
        eventually(
          "no pods, Available at 0 replicas",
          async () => {
            const p = await getPetSet(env, "zero");
            const ok =
              (await listPods(env, "zero")).length === 0 &&
              p.status?.observedGeneration === p.metadata.generation &&
              p.status?.replicas === 0 &&
              condition(p, ConditionTypes.available)?.status === "True";
            return ok ? true : undefined;
          },
          WAIT_MS,
        ),
      );
      await setImage(env, "zero", "nginx:1.28");
      await env.cluster.kubectl(["scale", "-n", env.namespace, "petset/zero", "--replicas=3"]);
      await waitRolledOut(env, "zero", 3);
      expect(await claimsOf("zero")).toEqual(["data-zero-0", "data-zero-1", "data-zero-2"]);
      await expectNoViolations(m);
    },
    TEST_MS,
  );
});
