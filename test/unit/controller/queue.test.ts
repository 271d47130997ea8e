import { describe, expect, it } from "vitest";
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
