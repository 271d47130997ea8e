/**
 * Expectations before the request (issue 24, expectations.ts): a create or delete whose answer
 * is lost may have landed, so the next plan waits until the cache shows what happened; a write
 * the API server refused leaves nothing to wait for. Against the fake world, whose lost answers
 * apply the write and then throw, and whose caches can lag behind the API.
 */
import type { KubernetesObject, V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { syncPetSet } from "../../../src/controller/sync.js";
import { apiError, FakeWorld, petSetObject } from "./fake-world.js";

const KEY = "default/web";

type Spec = Record<string, unknown> & { template: { spec: { containers: Record<string, unknown>[] } } };

/** Three pets, Parallel, in place where possible, two unavailable at a time. */
function parallelInPlace(): KubernetesObject {
  const ps = petSetObject("nginx:1.27", 3) as KubernetesObject & { spec: Record<string, unknown> };
  ps.spec.podManagementPolicy = "Parallel";
  ps.spec.updateStrategy = {
    type: "RollingUpdate",
    rollingUpdate: { maxUnavailable: 2, podUpdatePolicy: "InPlaceIfPossible" },
  };
  return ps;
}

/** The user applies a changed template: a new generation and resourceVersion. */
function apply(world: FakeWorld, change: (spec: Spec) => void): void {
  const live = structuredClone(world.petSets.live("web", "default")) as KubernetesObject & { spec: Spec };
  change(live.spec);
  const generation = (live.metadata?.generation ?? 1) + 1;
  live.metadata = { ...live.metadata, generation, resourceVersion: world.nextRv() };
  world.petSets.put(live);
}

const versionsLive = (world: FakeWorld) =>
  new Set(world.pods.liveList().map((p: V1Pod) => p.metadata?.labels?.["petset.dev/version"]));

/** One pet, web-0, created at version 1 and then evicted: the next sync creates it again. */
async function evictedPet() {
  const world = new FakeWorld();
  world.petSets.put(petSetObject("nginx:1.27", 1));
  const ctx = world.context();
  await syncPetSet(ctx, KEY);
  world.pods.remove("web-0", "default");
  return { world, ctx };
}

describe("expectations before the request", () => {
  it("issue 24 item 3: a pod create whose answer was lost holds the next plan until the cache shows the pod (never three versions live)", async () => {
    const world = new FakeWorld();
    world.petSets.put(parallelInPlace());
    const ctx = world.context();
    for (let i = 0; i < 6; i++) {
      await syncPetSet(ctx, KEY);
      world.makePodsReady();
    }
    expect(versionsLive(world)).toEqual(new Set(["1"]));

    // v2 changes the env: pods are recreated, two at a time. The second v2 pod create lands,
    // its answer is lost, and the cache does not show that pod yet (its watch event is late).
    apply(world, (spec) => {
      spec.template.spec.containers[0] = {
        ...spec.template.spec.containers[0],
        env: [{ name: "A", value: "1" }],
      };
    });
    const creates = () => world.calls.filter((c) => c.verb === "createPod").length;
    const before = creates();
    world.loseAnswerOn("createPod", before + 2);
    const realCreate = ctx.pods.create;
    ctx.pods.create = (ns, pod) => {
      if (creates() === before + 1) world.pods.hold(pod.metadata?.name);
      return realCreate(ns, pod);
    };
    for (let i = 0; i < 6 && creates() < before + 2; i++) await syncPetSet(ctx, KEY).catch(() => undefined);
    // The lost answer is resent once: AlreadyExists, it landed (expectations.ts).
    expect(creates()).toBe(before + 3);
    expect(versionsLive(world)).toEqual(new Set(["1", "2"]));

    // v3 changes only the image, while the cache still does not show one v2 pod and the other
    // is not Ready yet (a broken rollout's pod: replaced at once, SPEC rule 2).
    apply(world, (spec) => {
      spec.template.spec.containers[0] = { ...spec.template.spec.containers[0], image: "nginx:1.28" };
    });
    const seen: string[][] = [];
    for (let i = 0; i < 4; i++) {
      await syncPetSet(ctx, KEY).catch(() => undefined);
      seen.push([...versionsLive(world)].sort() as string[]);
    }
    world.pods.release();
    for (let i = 0; i < 12; i++) {
      await syncPetSet(ctx, KEY).catch(() => undefined);
      world.makePodsReady();
      seen.push([...versionsLive(world)].sort() as string[]);
    }
    // SPEC rule 2: never more than two versions live, counting a pod being created.
    expect(seen.filter((live) => live.length > 2)).toEqual([]);
    expect(versionsLive(world)).toEqual(new Set(["3"]));
  });

  it("a create the API server refused leaves nothing to wait for: the next sync plans at once", async () => {
    const { world, ctx } = await evictedPet();
    world.failOn(
      "createPod",
      2,
      apiError(500, "InternalError", "Internal error occurred: admission webhook failed"),
    );
    await expect(syncPetSet(ctx, KEY)).rejects.toThrow("admission webhook");
    await syncPetSet(ctx, KEY);
    expect(world.calls.filter((c) => c.verb === "createPod")).toHaveLength(3);
    expect(world.pods.get("web-0", "default")).toBeDefined();
  });

  it("a create that timed out, and whose every resend timed out, holds the next plan until the expectation expires", async () => {
    const { world, ctx } = await evictedPet();
    const timeout = apiError(
      504,
      "Timeout",
      "the server was unable to return a response in the time allotted, but may still be processing the request",
    );
    // The first send and its four resends (the fake world's policy: four, no wait).
    for (let n = 2; n <= 6; n++) world.failOn("createPod", n, timeout);
    await expect(syncPetSet(ctx, KEY)).rejects.toThrow();
    expect(world.calls.filter((c) => c.verb === "createPod")).toHaveLength(6);
    const held = await syncPetSet(ctx, KEY);
    expect(held.requeueAfterMs).toBeGreaterThan(0);
    expect(world.calls.filter((c) => c.verb === "createPod")).toHaveLength(6);
    world.now += 30_000;
    await syncPetSet(ctx, KEY);
    expect(world.calls.filter((c) => c.verb === "createPod")).toHaveLength(7);
  });

  it("a create that timed out once is resent, lands, and the next sync is not held", async () => {
    const { world, ctx } = await evictedPet();
    world.failOn("createPod", 2, apiError(504, "Timeout", "may still be processing the request"));
    await syncPetSet(ctx, KEY);
    expect(world.calls.filter((c) => c.verb === "createPod")).toHaveLength(3);
    expect(world.pods.get("web-0", "default")).toBeDefined();
  });

  it("a version create whose answer was lost is waited for, not created twice", async () => {
    const world = new FakeWorld();
    world.petSets.put(petSetObject("nginx:1.27", 1));
    const ctx = world.context();
    world.versions.hold();
    world.loseAnswerOn("createVersion", 1);
    // The resend's AlreadyExists says it landed; the sync looks again soon.
    const first = await syncPetSet(ctx, KEY);
    expect(first.requeueAfterMs).toBeGreaterThan(0);
    expect(world.calls.filter((c) => c.verb === "createVersion")).toHaveLength(2);
    const held = await syncPetSet(ctx, KEY);
    expect(held.requeueAfterMs).toBeGreaterThan(0);
    expect(world.calls.filter((c) => c.verb === "createVersion")).toHaveLength(2);
    world.versions.release();
    await syncPetSet(ctx, KEY);
    expect(world.calls.filter((c) => c.verb === "createVersion")).toHaveLength(2);
    expect(world.versions.liveList()).toHaveLength(1);
    expect(world.pods.get("web-0", "default")).toBeDefined();
  });
});
