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
