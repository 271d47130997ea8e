/**
 * Issue 26: claims follow versions (spec.volumeClaimUpdatePolicy InPlace, docs/volumes.md), on
 * both backends with the same code (the storage simulation: StorageClasses `standard` and
 * `fixed-size`, kube's resize admission, the simulated resizer). One PetSet `web` of 3 pets goes
 * through the cases in order (grow, mixed change, new claim template, shrink refused, then a
 * followable version naming a VolumeAttributesClass); a second one-pet set on the `fixed-size`
 * class is refused for growth. Watches of pods and claims feed
 * the claims invariant (test/support/claim-invariant-rules.ts) and record the order of writes.
 */
import {
  PatchStrategy,
  setHeaderOptions,
  type V1PersistentVolumeClaim,
  type V1Pod,
  Watch,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConditionTypes, Labels } from "../../src/api/index.js";
import { type ClaimState, judgeClaims, type PodState } from "../support/claim-invariant-rules.js";
import { eventually } from "../support/cluster.js";
import type { InvariantMonitor } from "../support/invariant-monitor.js";
import {
  condition,
  createPetSet,
  expectEvent,
  expectNoViolations,
  getPetSet,
  listPods,
  listVersions,
  monitor,
  patchPetSet,
  petSetManifest,
  type RolloutEnv,
  startRolloutEnv,
  TEST_MS,
  WAIT_MS,
  waitRolledOut,
  withDiagnostics,
} from "./rollout-support.js";

let env: RolloutEnv;
/** The invariant monitor, claims rule included (volumeClaimUpdatePolicy InPlace). */
let invariants: InvariantMonitor;
const pods: PodState[] = [];
const claims: ClaimState[] = [];
/** Pod deletions asked (deletionTimestamp first seen), by resourceVersion. */
const podDeletions: { rv: number; name: string }[] = [];
const stops: (() => void)[] = [];
/** Cluster-scoped objects to remove at the end (the real cluster outlives the test). */
const releases: (() => Promise<unknown>)[] = [];
const vacs = { group: "storage.k8s.io", version: "v1beta1", plural: "volumeattributesclasses" };

const data = (storage: string, storageClassName = "standard") => ({
  metadata: { name: "data" },
  spec: { accessModes: ["ReadWriteOnce"], storageClassName, resources: { requests: { storage } } },
});
const logs = {
  metadata: { name: "logs", labels: { tier: "logs" } },
  spec: {
    accessModes: ["ReadWriteOnce"],
    storageClassName: "standard",
    resources: { requests: { storage: "1Gi" } },
  },
};

async function watch<T extends { metadata?: { resourceVersion?: string } }>(
  path: string,
  seen: (o: T) => void,
) {
  const req = await new Watch(env.cluster.kubeConfig).watch(
    path,
    {},
    (_type, obj: T) => seen(obj),
    () => {},
  );
  stops.push(() => req.abort());
}

const rvOf = (o: { metadata?: { resourceVersion?: string } }) => Number(o.metadata?.resourceVersion ?? 0);
const uids = async (name: string) => (await listPods(env, name)).map((p) => p.metadata?.uid);
const claim = (name: string) =>
  env.core.readNamespacedPersistentVolumeClaim({ name, namespace: env.namespace });
/** The resourceVersion at which each claim first showed `request` in spec, in that order. */
const grownAt = (request: string) =>
  [...new Set(claims.filter((c) => c.request === request).map((c) => c.name))].map((name) => ({
    name,
    rv: claims.find((c) => c.name === name && c.request === request)?.rv ?? 0,
  }));

beforeAll(async () => {
  env = await startRolloutEnv("claims-follow");
  const ns = `/api/v1/namespaces/${env.namespace}`;
  await watch<V1Pod>(`${ns}/pods`, (p) => {
    const name = p.metadata?.name ?? "";
    const terminating = p.metadata?.deletionTimestamp !== undefined;
    const hash = p.metadata?.labels?.[Labels.hash];
    pods.push({
      rv: rvOf(p),
      name,
      ordinal: Number(p.metadata?.labels?.[Labels.podIndex] ?? -1),
      ...(hash !== undefined ? { hash } : {}),
      terminating,
    });
    const key = `${name}/${p.metadata?.uid}`;
    if (terminating && !podDeletions.some((d) => d.name === key))
      podDeletions.push({ rv: rvOf(p), name: key });
  });
  await watch<V1PersistentVolumeClaim>(`${ns}/persistentvolumeclaims`, (c) => {
    const request = c.spec?.resources?.requests?.storage;
    claims.push({
      rv: rvOf(c),
      name: c.metadata?.name ?? "",
      ...(request !== undefined ? { request: String(request) } : {}),
      labels: { ...(c.metadata?.labels ?? {}) },
    });
  });
  await createPetSet(
    env,
    petSetManifest("web", {
      podManagementPolicy: "Parallel",
      spec: { volumeClaimUpdatePolicy: "InPlace", volumeClaimTemplates: [data("1Gi")] },
    }),
  );
  await waitRolledOut(env, "web", 1);
  invariants = await monitor(env, "web");
}, TEST_MS);

afterAll(async () => {
  for (const release of releases) await release().catch(() => undefined);
  for (const stop of stops) stop();
  await env?.stop();
});

describe("issue 26: claims follow versions (volumeClaimUpdatePolicy InPlace)", () => {
  it(
    "issue 26: growing a claim template resizes every pet's claim in rollout order, pod uids unchanged",
    async () => {
      const before = await uids("web");
      await patchPetSet(env, "web", { spec: { volumeClaimTemplates: [data("2Gi")] } });
      const p = await waitRolledOut(env, "web", 2);
      expect(await uids("web")).toEqual(before);
      const order = grownAt("2Gi")
        .sort((a, b) => a.rv - b.rv)
        .map((c) => c.name);
      expect(order).toEqual(["data-web-2", "data-web-1", "data-web-0"]);
      for (const o of [0, 1, 2]) expect((await claim(`data-web-${o}`)).status?.capacity?.storage).toBe("2Gi");
      expect(p.status?.volumeClaimTemplates).toEqual([
        {
          name: "data",
          compatibleReplicas: 3,
          updatingReplicas: 0,
          overSizedReplicas: 0,
          totalCapacity: "6Gi",
        },
      ]);
    },
    TEST_MS,
  );

  it(
    "issue 26: a mixed change (image + storage) resizes each pet's claim before recreating its pod",
    async () => {
      await patchPetSet(env, "web", {
        spec: {
          template: { spec: { containers: [{ name: "app", image: "nginx:1.27" }] } },
          volumeClaimTemplates: [data("3Gi")],
        },
      });
      await waitRolledOut(env, "web", 3);
      // Each pet: its first pod deletion of this rollout comes after its claim was grown to 3Gi.
      for (const o of [0, 1, 2]) {
        const resized = grownAt("3Gi").find((c) => c.name === `data-web-${o}`)?.rv;
        const since = grownAt("2Gi").find((c) => c.name === `data-web-${o}`)?.rv ?? 0;
        const deletion = podDeletions.find((d) => d.name.startsWith(`web-${o}/`) && d.rv > since);
        expect(resized, `data-web-${o} grown to 3Gi`).toBeDefined();
        expect(deletion, `web-${o} recreated`).toBeDefined();
        expect(
          (deletion?.rv ?? 0) > (resized ?? Number.POSITIVE_INFINITY),
          `web-${o} deleted after its claim grew`,
        ).toBe(true);
      }
    },
    TEST_MS,
  );

  it(
    "issue 26: a claim template added reaches every pet with its new pod",
    async () => {
      await patchPetSet(env, "web", { spec: { volumeClaimTemplates: [data("3Gi"), logs] } });
      await waitRolledOut(env, "web", 4);
      for (const pod of await listPods(env, "web")) {
        const o = pod.metadata?.labels?.[Labels.podIndex];
        const mounted = pod.spec?.volumes?.find((v) => v.name === "logs")?.persistentVolumeClaim?.claimName;
        expect(mounted).toBe(`logs-web-${o}`);
        expect((await claim(`logs-web-${o}`)).metadata?.labels?.tier).toBe("logs");
      }
    },
    TEST_MS,
  );

  it(
    "issue 26: a shrink is refused with ClaimUpdateRefused and touches nothing",
    async () => {
      const before = await uids("web");
      const rvs = await Promise.all(
        [0, 1, 2].map(async (o) => (await claim(`data-web-${o}`)).metadata?.resourceVersion),
      );
      await patchPetSet(env, "web", { spec: { volumeClaimTemplates: [data("1Gi"), logs] } });
      const p = await withDiagnostics(env, "web", () =>
        eventually(
          "Progressing=False/ClaimUpdateRefused",
          async () => {
            const s = await getPetSet(env, "web");
            return condition(s, ConditionTypes.progressing)?.reason === "ClaimUpdateRefused" ? s : undefined;
          },
          WAIT_MS,
        ),
      );
      const message = condition(p, ConditionTypes.progressing)?.message ?? "";
      expect(message).toMatch(
        /claim data-web-\d cannot follow version 5: resources.requests.storage: a claim cannot shrink \(3Gi -> 1Gi\)/,
      );
      expect(message).toContain("--claims recreate");
      await expectEvent(env, "web", "ClaimUpdateRefused");
      expect(await uids("web")).toEqual(before);
      const after = await Promise.all(
        [0, 1, 2].map(async (o) => (await claim(`data-web-${o}`)).metadata?.resourceVersion),
      );
      expect(after).toEqual(rvs);
    },
    TEST_MS,
  );

  it(
    "issue 26: growth on a class without allowVolumeExpansion is refused",
    async () => {
      await createPetSet(
        env,
        petSetManifest("fixed", {
          replicas: 1,
          spec: { volumeClaimUpdatePolicy: "InPlace", volumeClaimTemplates: [data("1Gi", "fixed-size")] },
        }),
      );
      await waitRolledOut(env, "fixed", 1);
      const before = await uids("fixed");
      await patchPetSet(env, "fixed", { spec: { volumeClaimTemplates: [data("2Gi", "fixed-size")] } });
      const p = await withDiagnostics(env, "fixed", () =>
        eventually(
          "Progressing=False/ClaimUpdateRefused",
          async () => {
            const s = await getPetSet(env, "fixed");
            return condition(s, ConditionTypes.progressing)?.reason === "ClaimUpdateRefused" ? s : undefined;
          },
          WAIT_MS,
        ),
      );
      expect(condition(p, ConditionTypes.progressing)?.message).toContain(
        "claim data-fixed-0 cannot follow version 2: resources.requests.storage: StorageClass fixed-size has allowVolumeExpansion false",
      );
      expect(await uids("fixed")).toEqual(before);
      expect((await claim("data-fixed-0")).spec?.resources?.requests?.storage).toBe("1Gi");
    },
    TEST_MS,
  );

  it(
    "issue 26: a version that sets volumeAttributesClassName on a claim template updates every pet's claim, pods kept",
    async () => {
      // kube-apiserver 1.33 takes the change on a Bound claim with the VolumeAttributesClass gate
      // and storage.k8s.io/v1beta1 on; it does not look the class up, but a user creates it first.
      const gold = `${env.namespace}-gold`;
      await env.custom.createClusterCustomObject({
        ...vacs,
        body: {
          apiVersion: "storage.k8s.io/v1beta1",
          kind: "VolumeAttributesClass",
          metadata: { name: gold },
          driverName: "csi.petset.dev",
          parameters: { iops: "3000" },
        },
      });
      // No vac-protection controller runs on either backend: the finalizer goes by hand.
      releases.push(async () => {
        await env.custom.deleteClusterCustomObject({ ...vacs, name: gold });
        await env.custom.patchClusterCustomObject(
          { ...vacs, name: gold, body: { metadata: { finalizers: null } } },
          setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
        );
      });
      const before = await uids("web");
      const goldData = { ...data("3Gi"), spec: { ...data("3Gi").spec, volumeAttributesClassName: gold } };
      // The way out of the refused shrink (version 5): a version that can be followed.
      await patchPetSet(env, "web", { spec: { volumeClaimTemplates: [goldData, logs] } });
      await waitRolledOut(env, "web", 6);
      expect(await uids("web")).toEqual(before);
      for (const o of [0, 1, 2]) {
        expect((await claim(`data-web-${o}`)).spec?.volumeAttributesClassName).toBe(gold);
        expect((await claim(`logs-web-${o}`)).spec?.volumeAttributesClassName).toBeUndefined();
      }
    },
    TEST_MS,
  );

  it("issue 26: no pet was ever labelled with a version while a claim was behind it", async () => {
    const versions = await listVersions(env, "web");
    const web = pods.filter((p) => p.name.startsWith("web-"));
    expect(judgeClaims("web", versions, web, claims)).toEqual([]);
    expect(web.length).toBeGreaterThan(0);
    // The same rule in the invariant monitor, with the others (versions, maxUnavailable, ...).
    await expectNoViolations(invariants);
  });
});
