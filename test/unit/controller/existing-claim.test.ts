/**
 * Issue 24 item 6: a claim that exists before its pet (pre-created to pre-bind a volume)
 * without the petset.dev/petset label, which the controller's claim cache cannot show. As a
 * StatefulSet, the pet uses it; petset labels it (and adopts it when whenDeleted is Delete), and
 * never waits for a claim the cache will never show. Against the fake world, whose claim cache
 * holds only labelled claims, as the informer's selector does.
 */
import type { KubernetesObject, V1PersistentVolumeClaim } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { syncPetSet } from "../../../src/controller/sync.js";
import { FakeWorld, petSetObject } from "./fake-world.js";

const KEY = "default/web";

function withClaims(whenDeleted: "Retain" | "Delete"): KubernetesObject {
  const ps = petSetObject("nginx:1.27", 1) as KubernetesObject & { spec: Record<string, unknown> };
  ps.spec.volumeClaimTemplates = [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"] } }];
  ps.spec.persistentVolumeClaimRetentionPolicy = { whenScaled: "Retain", whenDeleted };
  return ps;
}

function preCreated(world: FakeWorld, extra: Partial<V1PersistentVolumeClaim["metadata"]> = {}): void {
  world.claims.put({
    metadata: {
      name: "data-web-0",
      namespace: "default",
      uid: "pre-created",
      resourceVersion: world.nextRv(),
      labels: { team: "db" },
      ...extra,
    },
    spec: { accessModes: ["ReadWriteOnce"], volumeName: "pv-data-0" },
  });
}

/** Syncs as the queue would; true when a sync was held by expectations (a short requeue, no plan). */
async function syncs(world: FakeWorld, n: number): Promise<number> {
  const ctx = world.context();
  let held = 0;
  for (let i = 0; i < n; i++) {
    const pending = world.expectations.size > 0;
    await syncPetSet(ctx, KEY);
    if (pending && world.expectations.size > 0) held++;
    world.makePodsReady();
  }
  return held;
}

describe("a claim that exists before its pet", () => {
  it("issue 24 item 6: a pre-created claim without the petset label is labelled and used; no sync waits for it", async () => {
    const world = new FakeWorld();
    world.petSets.put(withClaims("Retain"));
    preCreated(world);
    await syncs(world, 6);
    const claim = world.claims.live("data-web-0", "default");
    expect(claim?.metadata?.uid, "the pre-created claim is kept").toBe("pre-created");
    expect(claim?.spec?.volumeName).toBe("pv-data-0");
    expect(claim?.metadata?.labels).toMatchObject({
      team: "db",
      "petset.dev/petset": "web",
      "petset.dev/pod-index": "0",
    });
    expect(world.pods.get("web-0", "default")).toBeDefined();
    expect(world.events.filter((e) => e.reason === "ClaimLabelled").map((e) => e.message)).toEqual([
      "claim data-web-0 existed without label petset.dev/petset=web: labelled it, and pet web-0 uses it",
    ]);
    // Seen once, never created again, and nothing is left to wait for.
    expect(world.calls.filter((c) => c.verb === "createClaim")).toHaveLength(1);
    expect(world.expectations.size).toBe(0);
    expect(world.statuses.at(-1)?.conditions.find((c) => c.type === "Progressing")?.reason).toBe(
      "RolloutComplete",
    );
  });

  it("issue 24 item 6: with whenDeleted Delete the labelled claim is adopted, as the ones petset creates", async () => {
    const world = new FakeWorld();
    world.petSets.put(withClaims("Delete"));
    preCreated(world);
    await syncs(world, 6);
    const claim = world.claims.live("data-web-0", "default");
    expect(claim?.metadata?.uid).toBe("pre-created");
    expect((claim?.metadata?.ownerReferences ?? []).map((r) => r.uid)).toEqual(["ps-uid"]);
  });

  it("a pre-created claim another controller holds is used as it is, never touched, and not waited for", async () => {
    const world = new FakeWorld();
    world.petSets.put(withClaims("Retain"));
    preCreated(world, {
      ownerReferences: [
        { apiVersion: "example.com/v1", kind: "Database", name: "db", uid: "db-uid", controller: true },
      ],
    });
    const held = await syncs(world, 6);
    const claim = world.claims.live("data-web-0", "default");
    expect(claim?.metadata?.labels).toEqual({ team: "db" });
    expect(world.calls.filter((c) => c.verb === "labelClaim")).toEqual([]);
    expect(world.pods.get("web-0", "default")).toBeDefined();
    expect(held).toBe(0);
    expect(world.events.find((e) => e.reason === "ClaimNotLabelled")?.message).toBe(
      "claim data-web-0 existed and is controlled by Database/db (uid db-uid): pet web-0 uses it as it is, and PetSet web neither labels, adopts nor deletes it",
    );
  });
});
