/**
 * Issue 24 item 7: an older PetSetVersion CRD without the `status` subresource. The API server
 * answers NotFound on `/status` for an object that exists; the controller must tell that from
 * a version that is gone, and refuse with a clear message instead of expecting a change that
 * never comes. Against the embedded API server on loopback (real HTTP, real CRD handling), and
 * through syncPetSet against the fake world.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ApiextensionsV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type V1CustomResourceDefinition,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PetSetVersion } from "../../../src/api/index.js";
import { type ApiServer, startApiServer } from "../../../src/apiserver-shim/index.js";
import { installCrds } from "../../../src/cli/manifests.js";
import {
  createPetSetClient,
  VersionStatusSubresourceMissing,
} from "../../../src/controller/petset-client.js";
import { syncPetSet } from "../../../src/controller/sync.js";
import { noWriteCounter } from "../../../src/controller/write-counter.js";
import { loadKubeConfig } from "../../../src/util/kubeconfig.js";
import { FakeWorld, petSetObject } from "./fake-world.js";

/** What the fake world's caches show, as the sync's expectations gate reads them. */
function lookup(world: FakeWorld, resource: string, name: string) {
  const caches: Record<string, FakeWorld["pods"] | FakeWorld["versions"]> = {
    pods: world.pods,
    petsetversions: world.versions,
    petsets: world.petSets,
    persistentvolumeclaims: world.claims,
  };
  const obj = caches[resource]?.get(name, "default");
  if (obj === undefined) return undefined;
  return {
    uid: obj.metadata?.uid ?? "",
    resourceVersion: obj.metadata?.resourceVersion ?? "",
    terminating: false,
  };
}

let server: ApiServer;
let kubeConfig: KubeConfig;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "petset-oldcrd-"));
  server = await startApiServer({});
  await server.writeKubeconfig(join(dir, "kubeconfig"));
  kubeConfig = loadKubeConfig({ kubeconfig: join(dir, "kubeconfig") });
  await installCrds(kubeConfig);
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const NS = "default";
const GROUP = { group: "petset.dev", version: "v1alpha1", plural: "petsetversions" };

/** The PetSetVersion CRD as it was before facts: no subresources. */
async function downgradeVersionCrd(): Promise<void> {
  const api = kubeConfig.makeApiClient(ApiextensionsV1Api);
  const crd: V1CustomResourceDefinition = await api.readCustomResourceDefinition({
    name: "petsetversions.petset.dev",
  });
  for (const v of crd.spec.versions) delete v.subresources;
  await api.replaceCustomResourceDefinition({ name: "petsetversions.petset.dev", body: crd });
}

async function createVersion(name: string): Promise<string> {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const created = (await api.createNamespacedCustomObject({
    ...GROUP,
    namespace: NS,
    body: {
      apiVersion: "petset.dev/v1alpha1",
      kind: "PetSetVersion",
      metadata: { name, labels: { "petset.dev/petset": "web", "petset.dev/version": "1" } },
      spec: {
        petSet: "web",
        version: 1,
        generation: 1,
        hash: "h1",
        template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "i" }] } },
      },
    },
  })) as PetSetVersion;
  return created.metadata.resourceVersion ?? "";
}

describe("PetSetVersion status writes and the CRD", () => {
  it("with the status subresource: the facts land and the new resourceVersion is returned", async () => {
    const { versions } = createPetSetClient(kubeConfig, noWriteCounter);
    const rv = await createVersion("web-v1");
    const written = await versions.recordStatus(NS, "web-v1", rv, { observedAt: "2026-01-01T00:00:00Z" });
    expect(written.resourceVersion).toBeDefined();
    expect(written.resourceVersion).not.toBe(rv);
    // A version that is gone: nothing written, nothing to wait for.
    expect(await versions.recordStatus(NS, "web-v9", "1", { observedAt: "2026-01-01T00:00:00Z" })).toEqual(
      {},
    );
  });

  it("issue 24 item 7: an older CRD without the status subresource is named, with the command that upgrades it", async () => {
    await downgradeVersionCrd();
    const { versions } = createPetSetClient(kubeConfig, noWriteCounter);
    const rv = await createVersion("web-v2");
    const refused = await versions
      .recordStatus(NS, "web-v2", rv, { observedAt: "2026-01-01T00:00:00Z" })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(refused).toBeInstanceOf(VersionStatusSubresourceMissing);
    expect(String(refused)).toContain("petsetversions.petset.dev");
    expect(String(refused)).toContain("kubectl apply -f crds/");
    // Gone is still gone, not an old CRD.
    expect(await versions.recordStatus(NS, "web-v9", "1", { observedAt: "2026-01-01T00:00:00Z" })).toEqual(
      {},
    );
  });

  it("issue 24 item 7: a sync on an older CRD says so (condition and Event) and waits for nothing", async () => {
    const world = new FakeWorld();
    world.versionStatusSubresource = false;
    world.petSets.put(petSetObject("nginx:1.27", 2));
    const ctx = world.context();
    await syncPetSet(ctx, "default/web"); // version 1 and its first pet; facts are recorded next
    world.makePodsReady();
    const creates = () => world.calls.filter((c) => c.verb === "createPod").length;
    const before = creates();
    const refused = await syncPetSet(ctx, "default/web");
    const progressing = world.statuses.at(-1)?.conditions.find((c) => c.type === "Progressing");
    expect(progressing?.status).toBe("False");
    expect(progressing?.message).toContain("petsetversions.petset.dev");
    expect(progressing?.message).toContain("kubectl apply -f crds/");
    expect(
      world.events.some((e) => e.type === "Warning" && e.message.includes("kubectl apply -f crds/")),
    ).toBe(true);
    expect(refused.requeueAfterMs).toBeGreaterThan(0);
    // Nothing is expected of a write that could not land: the next sync plans at once.
    expect(world.expectations.check("default/web", (r, n) => lookup(world, r, n), world.now).pending).toEqual(
      [],
    );
    // No pod moves on facts that cannot be recorded.
    expect(creates()).toBe(before);
  });
});
