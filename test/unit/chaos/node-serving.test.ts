/** When a controller served (test/chaos/node-serving.ts), from planted replica logs. */
import { describe, expect, it } from "vitest";
import type { ReplicaHistory } from "../../chaos/controller-fleet.js";
import { coveredMs, servingIntervals } from "../../chaos/node-serving.js";

const line = (time: number, msg: string) => JSON.stringify({ level: 30, time, msg });
const replica = (lines: string[], more: Partial<ReplicaHistory> = {}): ReplicaHistory => ({
  identity: "r",
  log: () => lines.join("\n"),
  ...more,
});

describe("servingIntervals", () => {
  it("serves from caches synced after leading until lost leadership, exit or freeze", () => {
    const served = servingIntervals(
      [
        replica(
          [line(0, "petset controller starting"), line(10, "became leader"), line(12, "caches synced")],
          {
            exitedAt: 50,
          },
        ),
        replica([line(60, "became leader"), line(70, "caches synced"), line(90, "lost leadership")]),
        replica([line(100, "became leader"), line(101, "caches synced")], { frozenAt: 120, exitedAt: 150 }),
        // Led, but its caches synced only after it lost the Lease: never served.
        replica([line(200, "became leader"), line(210, "lost leadership"), line(211, "caches synced")]),
        // Never led.
        replica([line(300, "caches synced")]),
        replica([line(400, "became leader"), line(402, "caches synced")]),
      ],
      500,
    );
    expect(served).toEqual([
      { from: 12, to: 50 },
      { from: 70, to: 90 },
      { from: 101, to: 120 },
      { from: 402, to: 500 },
    ]);
  });

  it("coveredMs counts overlapping intervals once, clipped to the window", () => {
    const i = [
      { from: 0, to: 10 },
      { from: 5, to: 20 },
      { from: 30, to: 40 },
    ];
    expect(coveredMs(i, 0, 100)).toBe(30);
    expect(coveredMs(i, 8, 35)).toBe(17);
    expect(coveredMs([], 0, 100)).toBe(0);
  });
});
