/**
 * SPEC rule 7 for claims: the sync deletes a scaled-away pet's claim only as it read it (uid
 * and resourceVersion preconditions), and a claim that changed since is kept.
 */
import type { KubernetesObject } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { syncPetSet } from "../../../src/controller/sync.js";
import { FakeWorld, petSetObject } from "./fake-world.js";

const KEY = "default/web";

function withClaims(replicas: number): KubernetesObject {
  const ps = petSetObject("nginx:1.27", replicas) as KubernetesObject & { spec: Record<string, unknown> };
  ps.spec.volumeClaimTemplates = [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"] } }];
  ps.spec.persistentVolumeClaimRetentionPolicy = { whenScaled: "Delete", whenDeleted: "Retain" };
  return ps;
}

async function scaledToOne(): Promise<FakeWorld> {
  const world = new FakeWorld();
  world.petSets.put(withClaims(2));
  for (let i = 0; i < 6; i++) {
    await syncPetSet(world.context(), KEY);
    world.makePodsReady();
  }
  expect(world.claims.get("data-web-1", "default")).toBeDefined();
  world.petSets.put({ ...withClaims(1), metadata: { ...withClaims(1).metadata, generation: 2 } });
  return world;
}

describe("claim deletes carry preconditions", () => {
  it("deletes a scaled-away pet's claim with the uid and resourceVersion it read", async () => {
    const world = await scaledToOne();
    const claim = world.claims.get("data-web-1", "default");
    const ctx = world.context();
    const asked: unknown[][] = [];
    const real = ctx.claims.delete;
    ctx.claims.delete = (...args) => {
      asked.push(args);
      return real(...args);
    };
    for (let i = 0; i < 4; i++) await syncPetSet(ctx, KEY);
    expect(asked).toEqual([
      ["default", "data-web-1", claim?.metadata?.uid, claim?.metadata?.resourceVersion],
    ]);
    expect(world.claims.get("data-web-1", "default")).toBeUndefined();
    expect(world.claims.get("data-web-0", "default")).toBeDefined();
  });

  it("keeps a claim the API shows changed since the read (409) and retries from a fresh view", async () => {
    const world = await scaledToOne();
    const ctx = world.context();
    const real = ctx.claims.delete;
    let first = true;
    ctx.claims.delete = async (ns, name, uid, rv) => {
      // Someone changed the claim after the planner read it: the API (and, a moment later,
      // the cache) holds a newer resourceVersion than the one the delete carries.
      if (first) {
        first = false;
        const claim = world.claims.get(name, ns);
        if (claim) world.claims.put({ ...claim, metadata: { ...claim.metadata, resourceVersion: "999" } });
      }
      return real(ns, name, uid, rv);
    };
    const deletes = () => world.calls.filter((c) => c.verb === "deleteClaim").length;
    let requeue: number | undefined;
    for (let i = 0; i < 4 && deletes() === 0; i++) requeue = (await syncPetSet(ctx, KEY)).requeueAfterMs;
    expect(deletes()).toBe(1);
    expect(world.claims.get("data-web-1", "default"), "kept after the 409").toBeDefined();
    expect(requeue).toBeLessThanOrEqual(1_000);
    await syncPetSet(ctx, KEY);
    expect(deletes()).toBe(2);
    expect(world.claims.get("data-web-1", "default")).toBeUndefined();
  });
});
