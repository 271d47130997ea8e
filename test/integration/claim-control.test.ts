/**
 * ClaimControl against a real API (both backends): a claim is deleted only as it was read
 * (uid and resourceVersion preconditions, SPEC rule 7), and a delete of a claim already gone
 * counts as done; an existing claim is never replaced, and labels are added only as read.
 * Issue 24 item 6: a controller given a pre-created claim without the petset.dev/petset label
 * uses it for its pet and labels it.
 */
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GROUP, PETSET_PLURAL, parsePetSet, VERSION } from "../../src/api/index.js";
import { statusCode } from "../../src/controller/api-errors.js";
import { type ClaimControl, createClaimControl } from "../../src/controller/claim-control.js";
import { noWriteCounter } from "../../src/controller/write-counter.js";
import { eventually, startTestCluster, type TestCluster } from "../support/cluster.js";
import { startController } from "../support/controller.js";
import { condition, petSetManifest, TEST_MS, WAIT_MS } from "./rollout-support.js";

let cluster: TestCluster;
let namespace: string;
let core: CoreV1Api;
let claims: ClaimControl;

beforeAll(async () => {
  cluster = await startTestCluster();
  namespace = await cluster.namespace("claim-control");
  core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  claims = createClaimControl(cluster.controllerKubeConfig, noWriteCounter);
});

afterAll(async () => {
  await cluster?.stop();
});

async function read(name: string) {
  try {
    return await core.readNamespacedPersistentVolumeClaim({ name, namespace });
  } catch (err) {
    if (statusCode(err) === 404) return undefined;
    throw err;
  }
}

describe("ClaimControl.delete", () => {
  it("refuses a claim changed since it was read (409), deletes it as read, and treats gone as done", async () => {
    const name = "data-web-1";
    await claims.create(namespace, {
      metadata: { name, labels: { "petset.dev/petset": "web" } },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
    });
    const seen = await read(name);
    const uid = seen?.metadata?.uid ?? "";
    const staleRv = seen?.metadata?.resourceVersion ?? "";
    // Someone changes the claim after the controller read it.
    const changed = await core.patchNamespacedPersistentVolumeClaim(
      { name, namespace, body: { metadata: { labels: { keep: "me" } } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    expect(changed.metadata?.resourceVersion).not.toBe(staleRv);

    const refused = await claims.delete(namespace, name, uid, staleRv).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(statusCode(refused)).toBe(409);
    expect((await read(name))?.metadata?.deletionTimestamp, "the changed claim is kept").toBeUndefined();

    // Deleted as read. The cluster's own volume controllers may still be writing the claim's
    // status (binding): then the read is stale again and the controller reads once more.
    await eventually(`claim ${name} deleted as read`, async () => {
      const current = await read(name);
      const r = await claims.delete(namespace, name, uid, current?.metadata?.resourceVersion ?? "").then(
        () => true,
        (err: unknown) => {
          if (statusCode(err) === 409) return undefined;
          throw err;
        },
      );
      return r;
    });
    // Gone, or going (kube's pvc-protection finalizer lets an unused claim go shortly).
    await eventually(`claim ${name} deleted`, async () => {
      const c = await read(name);
      return c === undefined || c.metadata?.deletionTimestamp ? true : undefined;
    });
    await eventually(`claim ${name} gone`, async () => ((await read(name)) === undefined ? true : undefined));
    await expect(claims.delete(namespace, name, uid, "1")).resolves.toBeUndefined();
  });
});

describe("ClaimControl.create and addLabels", () => {
  it("keeps a claim that exists (created: false) and adds labels only as read (409 when stale)", async () => {
    const name = "data-keep-0";
    const body = {
      metadata: { name },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
    };
    expect(await claims.create(namespace, body)).toEqual({ created: true });
    const first = await read(name);
    expect(await claims.create(namespace, { ...body, metadata: { name, labels: { x: "y" } } })).toEqual({
      created: false,
    });
    expect((await read(name))?.metadata?.uid).toBe(first?.metadata?.uid);
    const stale = first?.metadata?.resourceVersion ?? "";
    await core.patchNamespacedPersistentVolumeClaim(
      { name, namespace, body: { metadata: { annotations: { touched: "yes" } } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    const refused = await claims.addLabels(namespace, name, stale, { "petset.dev/petset": "keep" }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(statusCode(refused)).toBe(409);
    // As read. The cluster's volume controllers may write the claim in between: read again.
    await eventually(`claim ${name} labelled as read`, async () => {
      const current = await claims.get(namespace, name);
      return claims
        .addLabels(namespace, name, current?.metadata?.resourceVersion ?? "", { "petset.dev/petset": "keep" })
        .then(
          () => true,
          (err: unknown) => {
            if (statusCode(err) === 409) return undefined;
            throw err;
          },
        );
    });
    expect((await claims.get(namespace, name))?.metadata?.labels?.["petset.dev/petset"]).toBe("keep");
    expect(await claims.get(namespace, "data-none-0")).toBeUndefined();
  });
});

describe("a claim pre-created for a pet", () => {
  it(
    "issue 24 item 6: a pre-created claim without the petset label is the pet's: labelled, mounted, and the rollout completes",
    async () => {
      const ns = await cluster.namespace("claim-precreated");
      const controller = await startController(cluster, ns);
      try {
        const custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
        const pre = await core.createNamespacedPersistentVolumeClaim({
          namespace: ns,
          body: {
            metadata: { name: "data-db-0", labels: { team: "db" } },
            spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
          },
        });
        await custom.createNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          plural: PETSET_PLURAL,
          namespace: ns,
          body: petSetManifest("db", { replicas: 1, claims: ["data"] }),
        });
        const claim = await eventually(
          "data-db-0 labelled for PetSet db",
          async () => {
            const c = await core.readNamespacedPersistentVolumeClaim({ namespace: ns, name: "data-db-0" });
            return c.metadata?.labels?.["petset.dev/petset"] === "db" ? c : undefined;
          },
          WAIT_MS,
        );
        expect(claim.metadata?.uid, "the pre-created claim itself").toBe(pre.metadata?.uid);
        expect(claim.metadata?.labels?.team).toBe("db");
        const pod = await eventually(
          "pod db-0",
          async () => core.readNamespacedPod({ namespace: ns, name: "db-0" }).catch(() => undefined),
          WAIT_MS,
        );
        expect(pod.spec?.volumes?.map((v) => v.persistentVolumeClaim?.claimName)).toContain("data-db-0");
        await eventually(
          "PetSet db rolled out",
          async () => {
            const raw = await custom.getNamespacedCustomObject({
              group: GROUP,
              version: VERSION,
              plural: PETSET_PLURAL,
              namespace: ns,
              name: "db",
            });
            return condition(parsePetSet(raw), "Progressing")?.reason === "RolloutComplete"
              ? true
              : undefined;
          },
          WAIT_MS,
        );
        const events = await core.listNamespacedEvent({ namespace: ns });
        expect(events.items.filter((e) => e.reason === "ClaimLabelled").map((e) => e.message)).toEqual([
          "claim data-db-0 existed without label petset.dev/petset=db: labelled it, and pet db-0 uses it",
        ]);
      } finally {
        await controller.stop();
      }
    },
    TEST_MS,
  );
});
