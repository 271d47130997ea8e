import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../support/cluster.js";
import { installKubectlPlugin, type KubectlPlugin } from "../support/kubectl-plugin.js";
import {
  createPetSet,
  expectEvent,
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
  startRolloutEnv,
  TEST_MS,
  versionOf,
  WAIT_MS,
  withDiagnostics,
} from "./rollout-support.js";

const NAME = "cp";

let env: RolloutEnv;
let plugin: KubectlPlugin;

beforeAll(async () => {
  plugin = installKubectlPlugin("chosen");
  env = await startRolloutEnv("chosen-pets");
});

afterAll(async () => {
  await env?.stop();
  plugin?.remove();
});

/** `kubectl petset ARGS` as a user runs it: kubectl finds the plugin on PATH. */
const kubectlPetset = (...args: string[]) =>
  plugin.run({ kubeconfigPath: env.cluster.kubeconfigPath, namespace: env.namespace }, args, WAIT_MS);

/** Waits until the live, Ready pets are exactly `names`; returns them by name. */
async function petsAre(names: string[], what: string) {
  return withDiagnostics(env, NAME, () =>
    eventually(
      what,
      async () => {
        const pods = await listPods(env, NAME);
        const live = pods.filter((p) => p.metadata?.deletionTimestamp == null && isReady(p));
        const got = live.map((p) => p.metadata?.name ?? "").sort();
        return pods.length === names.length && JSON.stringify(got) === JSON.stringify([...names].sort())
          ? new Map(live.map((p) => [p.metadata?.name ?? "", p]))
          : undefined;
      },
      WAIT_MS,
    ),
  );
}

const claimUid = async (name: string) =>
  (await listClaims(env)).find((c) => c.metadata?.name === name && c.metadata?.deletionTimestamp == null)
    ?.metadata?.uid;

describe("chosen ordinals and pets (issue 28)", () => {
  it(
    "issue 28: reserveOrdinals [1] with replicas 3 gives cp-0, cp-2, cp-3 and no new version; reserving a running pet moves it",
    async () => {
      const m = await monitor(env, NAME);
      await createPetSet(
        env,
        petSetManifest(NAME, {
          replicas: 3,
          podManagementPolicy: "Parallel",
          claims: ["data"],
          spec: { reserveOrdinals: [1] },
        }),
      );
      await petsAre(["cp-0", "cp-2", "cp-3"], "cp-0, cp-2, cp-3 Ready");
      await patchPetSet(env, NAME, { spec: { reserveOrdinals: [1, 2] } });
      const pets = await petsAre(["cp-0", "cp-3", "cp-4"], "cp-2 moved to cp-4");
      expect([...pets.values()].map(versionOf)).toEqual([1, 1, 1]);
      expect((await listVersions(env, NAME)).map((v) => v.spec.version)).toEqual([1]);
      // The status is written after the pod list settles: wait for it rather than read it once.
      await eventually(
        "status.replicas 3",
        async () => ((await getPetSet(env, NAME)).status?.replicas === 3 ? true : undefined),
        WAIT_MS,
      );
      await expectNoViolations(m);
    },
    TEST_MS,
  );

  it(
    "issue 28: kubectl petset scale --remove cp-3 removes cp-3, not the highest, and writes reserveOrdinals",
    async () => {
      const r = await kubectlPetset("scale", NAME, "--remove", "cp-3");
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(
        /scaled to 2, removing cp-3 \(spec.reserveOrdinals\); pets: cp-0, cp-4\..*in Git/,
      );
      await petsAre(["cp-0", "cp-4"], "cp-3 removed");
      const spec = (await getPetSet(env, NAME)).spec;
      expect(spec.replicas).toBe(2);
      expect(spec.reserveOrdinals).toEqual([1, 2, 3]);
      const bad = await kubectlPetset("scale", NAME, "--remove", "cp-1");
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/--remove cp-1: not a pet of petset cp \(its pets are cp-0, cp-4\)/);
    },
    TEST_MS,
  );

  it(
    "issue 28: kubectl petset replace cp-4 recreates the pod at its version and keeps its claim",
    async () => {
      const before = await petsAre(["cp-0", "cp-4"], "two pets");
      const uid = before.get("cp-4")?.metadata?.uid;
      const claim = await claimUid("data-cp-4");
      const r = await kubectlPetset("replace", "cp-4", "--reason", "disk errors");
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^pod\/cp-4 replacement requested \(petset cp; its claims are kept\)/);
      const after = await withDiagnostics(env, NAME, () =>
        eventually(
          "cp-4 replaced and Ready",
          async () => {
            const pets = await petsAre(["cp-0", "cp-4"], "two pets");
            const pod = pets.get("cp-4");
            return pod !== undefined && pod.metadata?.uid !== uid ? pod : undefined;
          },
          WAIT_MS,
        ),
      );
      expect(versionOf(after)).toBe(1);
      expect(after.metadata?.annotations?.["petset.dev/replace"]).toBeUndefined();
      expect(await claimUid("data-cp-4")).toBe(claim);
      await expectEvent(env, "cp-4", "ReplacingPet", /disk errors.*claims are kept/);
    },
    TEST_MS,
  );

  it(
    "issue 28: kubectl petset replace --claims recreate needs --yes, then rebuilds the claim",
    async () => {
      const refused = await kubectlPetset("replace", "cp-0", "--claims", "recreate");
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/--claims recreate deletes the claims of cp-0 .* add --yes/);
      const claim = await claimUid("data-cp-0");
      expect(claim).toBeDefined();
      const r = await kubectlPetset("replace", "cp-0", "--claims", "recreate", "--yes");
      expect(r.code).toBe(0);
      await withDiagnostics(env, NAME, () =>
        eventually(
          "data-cp-0 recreated and cp-0 Ready",
          async () => {
            const now = await claimUid("data-cp-0");
            const pets = await petsAre(["cp-0", "cp-4"], "two pets");
            return now !== undefined && now !== claim && pets.has("cp-0") ? now : undefined;
          },
          WAIT_MS,
        ),
      );
    },
    TEST_MS,
  );

  it(
    "issue 28: scaleStrategy.maxUnavailable 1 (Parallel) creates one pet at a time, each after the previous is available",
    async () => {
      await createPetSet(
        env,
        petSetManifest("sb", {
          replicas: 1,
          podManagementPolicy: "Parallel",
          spec: { minReadySeconds: 2, scaleStrategy: { maxUnavailable: 1 } },
        }),
      );
      await patchPetSet(env, "sb", { spec: { replicas: 3 } });
      const pods = await withDiagnostics(env, "sb", () =>
        eventually(
          "sb-0..2 Ready",
          async () => {
            const all = await listPods(env, "sb");
            return all.length === 3 && all.every(isReady) ? all : undefined;
          },
          WAIT_MS,
        ),
      );
      const byName = new Map(pods.map((p) => [p.metadata?.name ?? "", p]));
      const created = (n: string) => new Date(byName.get(n)?.metadata?.creationTimestamp ?? 0).getTime();
      const readyAt = (n: string) =>
        new Date(
          byName.get(n)?.status?.conditions?.find((c) => c.type === "Ready")?.lastTransitionTime ?? 0,
        ).getTime();
      // Available = Ready for minReadySeconds (second precision on both sides: floor(c) >= floor(r) + 2).
      expect(created("sb-1")).toBeGreaterThanOrEqual(readyAt("sb-0") + 2000);
      expect(created("sb-2")).toBeGreaterThanOrEqual(readyAt("sb-1") + 2000);
    },
    TEST_MS,
  );
});
