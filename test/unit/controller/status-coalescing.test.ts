/**
 * Status-write coalescing (src/controller/status-coalescing.ts): progress-only changes wait
 * for the interval, condition changes never do, and a sync that held a status back asks to
 * run again when it may be written.
 */
import { describe, expect, it } from "vitest";
import type { PetSetStatus } from "../../../src/api/index.js";
import { progressOnly, StatusWriteLimiter } from "../../../src/controller/status-coalescing.js";
import { syncPetSet } from "../../../src/controller/sync.js";
import { FakeWorld, petSetObject } from "./fake-world.js";

function status(
  over: Partial<PetSetStatus> = {},
  reason = "RollingOut",
  message = "1 of 3 pets",
): PetSetStatus {
  return {
    replicas: 3,
    readyReplicas: 1,
    availableReplicas: 1,
    currentReplicas: 2,
    updatedReplicas: 1,
    currentVersion: 1,
    updateVersion: 2,
    observedGeneration: 2,
    ready: "1/3",
    conditions: [
      { type: "Available", status: "True", reason: "MinimumReplicasAvailable", message: "2 of 3 available" },
      { type: "Progressing", status: "True", reason, message, lastTransitionTime: "2026-01-01T00:00:00Z" },
    ],
    ...over,
  };
}

describe("progressOnly", () => {
  it("issue 31 item 2: a pet newly named broken is written at once; its restart count is progress", () => {
    const named = status(
      {},
      "RollingOut",
      "1 of 3 pets; broken pet web-2: CrashLoopBackOff, 1 restart, at version 2",
    );
    expect(progressOnly(status(), named)).toBe(false);
    const later = status(
      {},
      "RollingOut",
      "1 of 3 pets; broken pet web-2: CrashLoopBackOff, 4 restarts, at version 2",
    );
    expect(progressOnly(named, later)).toBe(true);
  });

  it("counts, ready and condition messages are progress", () => {
    const next = status({ readyReplicas: 2, updatedReplicas: 2, ready: "2/3" }, "RollingOut", "2 of 3 pets");
    expect(progressOnly(status(), next)).toBe(true);
  });

  it("the same conditions in another order are still progress only", () => {
    const prev = status();
    expect(progressOnly(prev, { ...prev, conditions: [...prev.conditions].reverse() })).toBe(true);
  });

  it("a condition's reason or status, a version or the generation is not", () => {
    expect(progressOnly(status(), status({}, "RolloutComplete"))).toBe(false);
    expect(progressOnly(status(), status({ currentVersion: 2 }))).toBe(false);
    expect(progressOnly(status(), status({ observedGeneration: 3 }))).toBe(false);
    const prev = status();
    const turned = {
      ...prev,
      conditions: prev.conditions.map((c) =>
        c.type === "Available" ? { ...c, status: "False" as const } : c,
      ),
    };
    expect(progressOnly(prev, turned)).toBe(false);
  });

  it("a field or a condition only one side has is not, nor are conditions whose types repeat", () => {
    const prev = status();
    expect(progressOnly(prev, { ...prev, collisionCount: 1 } as typeof prev)).toBe(false);
    expect(progressOnly({ ...prev, collisionCount: 1 } as typeof prev, prev)).toBe(false);
    expect(progressOnly(prev, { ...prev, conditions: prev.conditions.slice(1) })).toBe(false);
    const first = prev.conditions[0];
    if (first === undefined) throw new Error("the fixture has conditions");
    const doubled = { ...prev, conditions: [first, first, ...prev.conditions.slice(2)] };
    expect(progressOnly(prev, doubled)).toBe(false);
    // A condition's time set on one side only is a change, not progress.
    const timed = {
      ...prev,
      conditions: prev.conditions.map((c) => ({ ...c, lastUpdateTime: "2026-12-07T00:00:00Z" })),
    };
    expect(progressOnly(prev, timed as typeof prev)).toBe(false);
  });
});

describe("StatusWriteLimiter", () => {
  const progress = status({ readyReplicas: 2 });

  it("writes the first progress at once, then holds progress until the interval ends", () => {
    const limiter = new StatusWriteLimiter(1_000);
    expect(limiter.decide("ns/a", 10_000, status(), progress)).toEqual({ write: true });
    limiter.wrote("ns/a", 10_000);
    expect(limiter.decide("ns/a", 10_300, status(), progress)).toEqual({ write: false, retryInMs: 700 });
    expect(limiter.decide("ns/a", 11_000, status(), progress)).toEqual({ write: true });
    // Another PetSet has its own interval.
    expect(limiter.decide("ns/b", 10_300, status(), progress)).toEqual({ write: true });
  });

  it("never holds a condition change, nor anything when the interval is 0", () => {
    const limiter = new StatusWriteLimiter(1_000);
    limiter.wrote("ns/a", 10_000);
    expect(limiter.decide("ns/a", 10_001, status(), status({}, "RolloutComplete"))).toEqual({ write: true });
    const off = new StatusWriteLimiter(0);
    off.wrote("ns/a", 10_000);
    expect(off.decide("ns/a", 10_001, status(), progress)).toEqual({ write: true });
  });

  it("tells the echo of a status write once: the first event at another resourceVersion than it was based on", () => {
    const limiter = new StatusWriteLimiter(1_000);
    expect(limiter.takeEcho("ns/a", "5")).toBe(false);
    limiter.wrote("ns/a", 10_000, "5");
    // An event of the state the write was based on (a relist) is not its echo.
    expect(limiter.takeEcho("ns/a", "5")).toBe(false);
    expect(limiter.takeEcho("ns/b", "6")).toBe(false);
    expect(limiter.takeEcho("ns/a", "6")).toBe(true);
    // Only once: the next event is someone else's.
    expect(limiter.takeEcho("ns/a", "7")).toBe(false);
    // A write that failed has no echo.
    limiter.wrote("ns/a", 11_000, "7");
    limiter.noEcho("ns/a");
    expect(limiter.takeEcho("ns/a", "8")).toBe(false);
  });

  it("forgets a deleted PetSet", () => {
    const limiter = new StatusWriteLimiter(1_000);
    limiter.wrote("ns/a", 1, "3");
    limiter.forget("ns/a");
    expect(limiter.size).toBe(0);
    expect(limiter.takeEcho("ns/a", "4")).toBe(false);
  });
});

describe("syncPetSet with coalescing", () => {
  it("holds progress-only status back, requeues for it, and ends with the same status as without", async () => {
    const run = async (limiter: StatusWriteLimiter | undefined) => {
      const world = new FakeWorld();
      world.petSets.put(petSetObject("nginx:1.27", 4));
      const ctx = { ...world.context(), ...(limiter ? { statusWrites: limiter } : {}) };
      const requeues: number[] = [];
      for (let i = 0; i < 12; i++) {
        const r = await syncPetSet(ctx, "default/web");
        if (r.requeueAfterMs !== undefined) requeues.push(r.requeueAfterMs);
        world.makePodsReady();
        world.now += 100;
      }
      // Past the interval: the held status is written by the requeued sync.
      world.now += 1_000;
      await syncPetSet(ctx, "default/web");
      return { statuses: world.statuses, requeues };
    };
    const plain = await run(undefined);
    const coalesced = await run(new StatusWriteLimiter(1_000));
    expect(coalesced.statuses.length).toBeLessThan(plain.statuses.length);
    expect(coalesced.requeues.some((ms) => ms > 0 && ms <= 1_000)).toBe(true);
    const final = (s: PetSetStatus[]) => s.at(-1);
    expect(final(coalesced.statuses)).toMatchObject({ readyReplicas: 4, ready: "4/4" });
    expect(final(coalesced.statuses)?.conditions).toEqual(final(plain.statuses)?.conditions);
  });
});
