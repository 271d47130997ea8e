/**
 * ClaimControl against a real API (both backends): a claim is deleted only as it was read
 * (uid and resourceVersion preconditions, SPEC rule 7), and a delete of a claim already gone
 * counts as done.
 */
import { CoreV1Api, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { statusCode } from "../../src/controller/api-errors.js";
import { type ClaimControl, createClaimControl } from "../../src/controller/claim-control.js";
import { noWriteCounter } from "../../src/controller/write-counter.js";
import { eventually, startTestCluster, type TestCluster } from "../support/cluster.js";

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
