/**
 * syncPetSet against hand-written fakes (test/unit/controller/fake-world.ts): what one sync
 * writes, and what it does when a write fails — the error paths the planner's table tests
 * cannot reach.
 */
import { describe, expect, it } from "vitest";
import type { PetSetVersion } from "../../../src/api/index.js";
import { syncPetSet } from "../../../src/controller/sync.js";
import { apiError, FakeWorld, petSetObject } from "./fake-world.js";

const KEY = "default/web";

async function settle(world: FakeWorld, rounds = 10): Promise<void> {
  const ctx = world.context();
  for (let i = 0; i < rounds; i++) {
    await syncPetSet(ctx, KEY);
    world.makePodsReady();
  }
}

describe("syncPetSet", () => {
  it("records version 1, then creates pets in order, then reports the rollout complete", async () => {
    const world = new FakeWorld();
    world.petSets.put(petSetObject());
    await settle(world);
    expect(world.calls.filter((c) => c.verb === "createVersion").map((c) => c.name)).toEqual(["web-v1"]);
    expect(world.calls.filter((c) => c.verb === "createPod").map((c) => c.name)).toEqual(["web-0", "web-1"]);
    const last = world.statuses.at(-1);
    expect(last).toMatchObject({
      replicas: 2,
      readyReplicas: 2,
      updateVersion: 1,
      currentVersion: 1,
      ready: "2/2",
    });
    expect(last?.conditions.find((c) => c.type === "Progressing")?.reason).toBe("RolloutComplete");
  });

  it("does not write status when nothing changed", async () => {
    const world = new FakeWorld();
    world.petSets.put(petSetObject());
    await settle(world);
    const writes = world.calls.length;
    await syncPetSet(world.context(), KEY);
    expect(world.calls.length).toBe(writes);
  });

  it("a pod the API refuses (422) becomes Progressing=False/InvalidSpec and a Warning naming the field", async () => {
    const world = new FakeWorld();
    world.petSets.put(petSetObject());
    world.failOn(
      "createPod",
      1,
      apiError(
        422,
        "Invalid",
        'Pod "web-0" is invalid: spec.containers[0].ports[0].hostPort: Invalid value: 99999',
      ),
    );
    const result = await syncPetSet(world.context(), KEY);
    expect(result.requeueAfterMs).toBeGreaterThanOrEqual(10_000);
    const progressing = world.statuses.at(-1)?.conditions.find((c) => c.type === "Progressing");
    expect(progressing).toMatchObject({ status: "False", reason: "InvalidSpec" });
    expect(progressing?.message).toContain("spec.containers[0].ports[0].hostPort");
    expect(world.events.some((e) => e.type === "Warning" && e.message.includes("hostPort"))).toBe(true);
  });

  it("a conflict (409) requeues soon instead of failing", async () => {
    const world = new FakeWorld();
    world.petSets.put(petSetObject());
    await syncPetSet(world.context(), KEY); // version 1 and web-0
    world.makePodsReady();
    world.failOn("createPod", 2, apiError(409, "Conflict", "the object has been modified"));
    const result = await syncPetSet(world.context(), KEY);
    expect(result.requeueAfterMs).toBeLessThanOrEqual(1_000);
  });

  it("an unexpected error fails the sync (the queue backs off) but history GC still runs", async () => {
    const world = new FakeWorld();
    const ps = petSetObject();
    (ps as { spec: { revisionHistoryLimit?: number } }).spec.revisionHistoryLimit = 0;
    world.petSets.put(ps);
    await settle(world, 3);
    // Three old versions nobody runs any more, then a sync that fails.
    for (const n of [2, 3, 4]) {
      const v1 = world.versions.get("web-v1", "default") as unknown as PetSetVersion;
      world.versions.put({
        ...structuredClone(v1),
        metadata: {
          ...v1.metadata,
          name: `web-v${n}`,
          uid: `u${n}`,
          labels: { ...v1.metadata.labels, "petset.dev/version": String(n) },
        },
        spec: {
          ...v1.spec,
          version: n,
          hash: `h${n}`,
          template: { ...v1.spec.template, metadata: { labels: { app: "web", n: String(n) } } },
        },
      } as never);
    }
    world.failOn("createVersion", 2, apiError(500, "InternalError", "etcd is on fire"));
    await expect(syncPetSet(world.context(), KEY)).rejects.toThrow();
    expect(world.calls.filter((c) => c.verb === "deleteVersion").length).toBeGreaterThan(0);
  });

  it("records rollout facts on the version, and a wiped status comes back identical", async () => {
    const world = new FakeWorld();
    world.petSets.put(petSetObject());
    await settle(world);
    const v1 = world.versions.get("web-v1", "default") as unknown as PetSetVersion;
    expect(Object.keys(v1.status ?? {}).sort()).toEqual([
      "becameCurrentAt",
      "completedAt",
      "formatVersion",
      "fullyRolledOutAt",
      "observedAt",
      "rolloutStartedAt",
    ]);
    const before = world.statuses.at(-1);
    const ps = world.petSets.get("web", "default");
    world.petSets.put({ ...ps, status: {} } as never);
    await syncPetSet(world.context(), KEY);
    const after = world.statuses.at(-1);
    const view = (st: typeof before) => ({
      ...st,
      conditions: st?.conditions.map(({ lastTransitionTime: _t, ...c }) => c),
    });
    expect(after).not.toBe(before);
    expect(view(after)).toEqual(view(before));
  });

  it("a version fact the API refuses with 409 requeues soon and writes no status", async () => {
    const world = new FakeWorld();
    world.petSets.put(petSetObject());
    await syncPetSet(world.context(), KEY); // version 1: its facts are recorded by the next sync
    world.failOn("recordVersionStatus", 1, apiError(409, "Conflict", "the object has been modified"));
    const statuses = world.statuses.length;
    const result = await syncPetSet(world.context(), KEY);
    expect(result.requeueAfterMs).toBeLessThanOrEqual(1_000);
    expect(world.statuses.length).toBe(statuses);
    expect(world.calls.at(-1)?.verb).toBe("recordVersionStatus");
  });
});

describe("syncPetSet on a cache that is behind its own writes (expectations)", () => {
  it("does not plan again until the pod cache shows the pod it created", async () => {
    const world = new FakeWorld();
    world.petSets.put(petSetObject("nginx:1.27", 2));
    const ctx = world.context();
    world.pods.hold();
    await syncPetSet(ctx, KEY); // version 1, creates web-0; the cache does not show it yet
    const creates = () => world.calls.filter((c) => c.verb === "createPod").map((c) => c.name);
    expect(creates()).toEqual(["web-0"]);
    const waiting = await syncPetSet(ctx, KEY);
    expect(creates()).toEqual(["web-0"]);
    expect(waiting.requeueAfterMs).toBeGreaterThan(0);
    world.pods.release();
    world.makePodsReady();
    await syncPetSet(ctx, KEY);
    expect(creates()).toEqual(["web-0", "web-1"]);
  });

  it("waits for a patched pod's new resourceVersion before the next decision", async () => {
    const world = new FakeWorld();
    world.petSets.put(petSetObject("nginx:1.27", 1));
    await settle(world);
    const ctx = world.context();
    world.petSets.put({
      ...petSetObject("nginx:1.28", 1),
      metadata: { ...petSetObject().metadata, generation: 2, resourceVersion: "500" },
    });
    world.pods.hold();
    await syncPetSet(ctx, KEY); // version 2 recorded
    await syncPetSet(ctx, KEY); // announces the target / deletes web-0 for the update
    const podWrites = () => world.calls.filter((c) => c.verb.endsWith("Pod")).length;
    const writes = podWrites();
    expect(writes).toBeGreaterThan(0);
    await syncPetSet(ctx, KEY);
    await syncPetSet(ctx, KEY);
    expect(podWrites()).toBe(writes);
    world.pods.release();
    await syncPetSet(ctx, KEY);
    expect(podWrites()).toBeGreaterThan(writes);
  });

  it("regression (network-faults, embedded): a status write lost on the network leaves no expectation to wait 30 s for", async () => {
    const world = new FakeWorld();
    world.petSets.put(petSetObject("nginx:1.27", 1));
    const ctx = world.context();
    await syncPetSet(ctx, KEY); // version 1
    await syncPetSet(ctx, KEY); // creates web-0
    world.makePodsReady();
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    world.failOn("status", world.calls.filter((c) => c.verb === "status").length + 1, reset);
    await expect(syncPetSet(ctx, KEY)).rejects.toThrow("ECONNRESET");
    // Nothing changed the PetSet: the retry plans and writes the status at once.
    const statusWrites = world.statuses.length;
    const retry = await syncPetSet(ctx, KEY);
    expect(retry.requeueAfterMs ?? 0).toBe(0);
    expect(world.statuses.length).toBe(statusWrites + 1);
    expect(world.statuses.at(-1)?.readyReplicas).toBe(1);
  });

  it("regression (network-faults, embedded, CI of 1afd441): a pod create reset before it landed is resent, so the next pet does not wait 30 s", async () => {
    const world = new FakeWorld();
    world.petSets.put(petSetObject("nginx:1.27", 2));
    const ctx = world.context();
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    world.failOn("createPod", 1, reset);
    await syncPetSet(ctx, KEY); // version 1, web-0: the first send is reset, the resend lands
    const creates = () => world.calls.filter((c) => c.verb === "createPod").map((c) => c.name);
    expect(creates()).toEqual(["web-0", "web-0"]);
    world.makePodsReady();
    await syncPetSet(ctx, KEY); // no expectation of a create that never landed holds it
    expect(creates()).toEqual(["web-0", "web-0", "web-1"]);
  });

  it("gives up waiting after the timeout and plans anyway", async () => {
    const world = new FakeWorld();
    world.petSets.put(petSetObject("nginx:1.27", 2));
    const ctx = world.context();
    world.pods.hold();
    await syncPetSet(ctx, KEY);
    world.now += 31_000;
    await syncPetSet(ctx, KEY);
    // The cache still does not show web-0: after the timeout the planner decides on what it sees.
    expect(world.calls.filter((c) => c.verb === "createPod").length).toBe(2);
  });
});
