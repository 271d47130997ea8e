import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { KeyQueue } from "../../../src/controller/queue.js";
import { systemClock } from "../../../src/util/clock.js";

describe("KeyQueue", () => {
  it("hands out no more keys once shut down: a stopping controller finishes its running syncs only", async () => {
    const queue = new KeyQueue({ clock: systemClock });
    for (const k of ["ns/a", "ns/b", "ns/c"]) queue.add(k);
    expect(await queue.get()).toBe("ns/a");
    queue.shutDown();
    expect(await queue.get()).toBeUndefined();
    queue.done("ns/a");
  });
});

describe("KeyQueue urgent lane", () => {
  const drain = async (queue: KeyQueue, n: number) => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const k = await queue.get();
      if (k === undefined) break;
      out.push(k);
      queue.done(k);
    }
    return out;
  };

  it("hands out urgent keys first, each lane in order", async () => {
    const queue = new KeyQueue({ clock: systemClock });
    queue.add("ns/a");
    queue.add("ns/b");
    queue.add("ns/u1", { urgent: true });
    queue.add("ns/c");
    queue.add("ns/u2", { urgent: true });
    expect(queue.length).toBe(5);
    expect(await drain(queue, 5)).toEqual(["ns/u1", "ns/u2", "ns/a", "ns/b", "ns/c"]);
  });

  it("moves a queued key to the urgent lane once, never queues it twice", async () => {
    const queue = new KeyQueue({ clock: systemClock });
    for (const k of ["ns/a", "ns/b", "ns/c"]) queue.add(k);
    queue.add("ns/c", { urgent: true });
    queue.add("ns/c", { urgent: true });
    queue.add("ns/c");
    expect(queue.length).toBe(3);
    expect(await drain(queue, 3)).toEqual(["ns/c", "ns/a", "ns/b"]);
  });

  it("a key made urgent while in flight is re-queued urgent when done", async () => {
    const queue = new KeyQueue({ clock: systemClock });
    queue.add("ns/a");
    queue.add("ns/b");
    const first = await queue.get();
    expect(first).toBe("ns/a");
    queue.add("ns/a", { urgent: true });
    expect(queue.length).toBe(1);
    queue.done("ns/a");
    expect(await drain(queue, 2)).toEqual(["ns/a", "ns/b"]);
  });
});

describe("KeyQueue latency (petset_queue_duration_seconds)", () => {
  /** A queue on a clock the test moves, and the waits it reported, in seconds. */
  function timedQueue() {
    const clock = { now: 1_000_000 };
    const waits: number[] = [];
    const queue = new KeyQueue({ clock: { now: () => clock.now }, observeWait: (s) => waits.push(s) });
    const advance = (ms: number) => {
      clock.now += ms;
    };
    return { queue, waits, advance };
  }

  it("issue 30: reports the time from a key's first add to a worker picking it up", async () => {
    const { queue, waits, advance } = timedQueue();
    queue.add("ns/a");
    advance(1_000);
    queue.add("ns/b");
    queue.add("ns/a"); // already queued: keeps its first add
    queue.add("ns/a", { urgent: true }); // moved ahead: still the first add
    advance(1_500);
    expect(await queue.get()).toBe("ns/a");
    advance(500);
    expect(await queue.get()).toBe("ns/b");
    expect(waits).toEqual([2.5, 2]);
  });

  it("issue 30: a key added while in flight waits from that add until it is picked up again", async () => {
    const { queue, waits, advance } = timedQueue();
    queue.add("ns/a");
    expect(await queue.get()).toBe("ns/a");
    advance(3_000);
    queue.add("ns/a");
    advance(4_000);
    queue.done("ns/a");
    advance(1_000);
    expect(await queue.get()).toBe("ns/a");
    expect(waits).toEqual([0, 5]);
  });

  it("issue 30: a key handed straight to an idle worker waited 0 s; a done key with no new add reports nothing", async () => {
    const { queue, waits, advance } = timedQueue();
    const next = queue.get();
    advance(10_000);
    queue.add("ns/a");
    expect(await next).toBe("ns/a");
    queue.done("ns/a");
    advance(10_000);
    queue.add("ns/b");
    advance(250);
    expect(await queue.get()).toBe("ns/b");
    expect(waits).toEqual([0, 0.25]);
  });
});

describe("KeyQueue addSoon (wake-policy.ts)", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("adds the key after the delay when nothing picks it up first", async () => {
    const queue = new KeyQueue({ clock: systemClock });
    queue.addSoon("ns/a", 200);
    expect(queue.length).toBe(0);
    vi.advanceTimersByTime(199);
    expect(queue.length).toBe(0);
    vi.advanceTimersByTime(1);
    expect(queue.length).toBe(1);
    expect(await queue.get()).toBe("ns/a");
  });

  it("a sync that starts first takes the pending add along: no second sync", async () => {
    const queue = new KeyQueue({ clock: systemClock });
    queue.addSoon("ns/a", 200);
    queue.add("ns/a");
    expect(await queue.get()).toBe("ns/a");
    queue.done("ns/a");
    vi.advanceTimersByTime(1_000);
    expect(queue.length).toBe(0);
  });

  it("an event during a sync still gets a sync after it (the running one may have read the cache before)", async () => {
    const queue = new KeyQueue({ clock: systemClock });
    queue.add("ns/a");
    expect(await queue.get()).toBe("ns/a");
    queue.addSoon("ns/a", 200);
    queue.done("ns/a");
    expect(queue.length).toBe(0);
    vi.advanceTimersByTime(200);
    expect(queue.length).toBe(1);
  });

  it("a pending addSoon stays as it is (the delay is one constant), and a queued key is not queued twice", () => {
    const queue = new KeyQueue({ clock: systemClock });
    queue.addSoon("ns/a", 100);
    queue.addSoon("ns/a", 50);
    vi.advanceTimersByTime(60);
    expect(queue.length).toBe(0);
    vi.advanceTimersByTime(40);
    expect(queue.length).toBe(1);
    queue.addSoon("ns/a", 10);
    vi.advanceTimersByTime(100);
    expect(queue.length).toBe(1);
    queue.shutDown();
  });
});

describe("KeyQueue minIntervalMs (wake-policy.ts SYNC_SPACING_MS)", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A queue spacing pickups 25 ms apart, with `key` picked up (its sync running). */
  async function inOneSync(key = "ns/a", waits: number[] = []) {
    const queue = new KeyQueue({ clock: systemClock, minIntervalMs: 25, observeWait: (s) => waits.push(s) });
    queue.add(key);
    expect(await queue.get()).toBe(key);
    return queue;
  }

  /** The same, that sync done. */
  async function afterOneSync(key = "ns/a", waits: number[] = []) {
    const queue = await inOneSync(key, waits);
    queue.done(key);
    return queue;
  }

  it("a burst of adds within the interval after a sync shares one sync when the interval ends", async () => {
    const queue = await afterOneSync();
    vi.advanceTimersByTime(10);
    queue.add("ns/a");
    queue.add("ns/a");
    vi.advanceTimersByTime(5);
    queue.add("ns/a");
    queue.addSoon("ns/a", 200);
    vi.advanceTimersByTime(9);
    expect(queue.length).toBe(0);
    vi.advanceTimersByTime(1);
    expect(queue.length).toBe(1);
    expect(await queue.get()).toBe("ns/a");
    queue.done("ns/a");
    vi.advanceTimersByTime(1_000);
    expect(queue.length).toBe(0);
  });

  it("the first add after a quiet interval goes at once, as does every add of another key", async () => {
    const queue = await afterOneSync();
    queue.add("ns/b");
    expect(queue.length).toBe(1);
    vi.advanceTimersByTime(25);
    queue.add("ns/a");
    expect(queue.length).toBe(2);
  });

  it("an urgent add (a spec the controller has not recorded) never waits, and takes a held add along", async () => {
    const queue = await afterOneSync();
    queue.add("ns/a");
    expect(queue.length).toBe(0);
    queue.add("ns/a", { urgent: true });
    expect(queue.length).toBe(1);
    expect(await queue.get()).toBe("ns/a");
    queue.done("ns/a");
    vi.advanceTimersByTime(1_000);
    expect(queue.length).toBe(0);
  });

  it("an event during a sync is queued again after it, spaced from the sync's start", async () => {
    const queue = await inOneSync();
    vi.advanceTimersByTime(5);
    queue.add("ns/a");
    queue.done("ns/a");
    expect(queue.length).toBe(0);
    vi.advanceTimersByTime(19);
    expect(queue.length).toBe(0);
    vi.advanceTimersByTime(1);
    expect(queue.length).toBe(1);
  });

  it("a sync slower than the interval is followed at once by the sync its events asked for", async () => {
    const queue = await inOneSync();
    vi.advanceTimersByTime(40);
    queue.add("ns/a");
    queue.done("ns/a");
    expect(queue.length).toBe(1);
  });

  it("the wait counts the hold (petset_queue_duration_seconds is what a user's change waited)", async () => {
    const waits: number[] = [];
    const queue = await afterOneSync("ns/a", waits);
    vi.advanceTimersByTime(10);
    queue.add("ns/a");
    vi.advanceTimersByTime(15);
    expect(await queue.get()).toBe("ns/a");
    expect(waits).toEqual([0, 0.015]);
  });

  it("a clock that does not move cannot hold a key forever: the held add enters when its timer fires", async () => {
    const queue = new KeyQueue({ clock: { now: () => 5_000 }, minIntervalMs: 25 });
    queue.add("ns/a");
    expect(await queue.get()).toBe("ns/a");
    queue.done("ns/a");
    queue.add("ns/a");
    expect(queue.length).toBe(0);
    vi.advanceTimersByTime(25);
    expect(queue.length).toBe(1);
  });

  it("shutDown drops held adds", async () => {
    const queue = await afterOneSync();
    queue.add("ns/a");
    queue.shutDown();
    vi.advanceTimersByTime(1_000);
    expect(queue.length).toBe(0);
    expect(await queue.get()).toBeUndefined();
  });

  it("without minIntervalMs every add goes at once (the default)", async () => {
    const queue = new KeyQueue({ clock: systemClock });
    queue.add("ns/a");
    expect(await queue.get()).toBe("ns/a");
    queue.done("ns/a");
    queue.add("ns/a");
    expect(queue.length).toBe(1);
  });
});
