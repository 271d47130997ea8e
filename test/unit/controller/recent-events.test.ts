import { describe, expect, it } from "vitest";
import { RecentEvents } from "../../../src/controller/event-recorder.js";

describe("RecentEvents (what the Event recorder remembers to aggregate repeats)", () => {
  it("a repeat within the window bumps the count of the Event recorded first", () => {
    const r = new RecentEvents(1_000);
    expect(r.hit("k", 0)).toBeUndefined();
    r.remember("k", "web-0.a1", 0);
    expect(r.hit("k", 500)).toEqual({ name: "web-0.a1", count: 2, at: 500 });
    expect(r.hit("k", 1_400)).toMatchObject({ name: "web-0.a1", count: 3 });
  });

  it("a repeat after the window is a new Event", () => {
    const r = new RecentEvents(1_000);
    r.remember("k", "web-0.a1", 0);
    expect(r.hit("k", 1_000)).toBeUndefined();
    expect(r.size).toBe(0);
  });

  it("keeps at most `max` keys however many distinct Events a burst records (client-go: 4,096)", () => {
    const r = new RecentEvents(600_000, 4);
    for (let i = 0; i < 40; i++) r.remember(`create pod web-${i}`, `e${i}`, i);
    expect(r.size).toBe(4);
    expect(r.hit("create pod web-0", 50)).toBeUndefined();
    expect(r.hit("create pod web-39", 50)).toMatchObject({ name: "e39", count: 2 });
  });

  it("drops the least recently used key first: a repeat keeps its key", () => {
    const r = new RecentEvents(600_000, 2);
    r.remember("a", "ea", 0);
    r.remember("b", "eb", 1);
    r.hit("a", 2);
    r.remember("c", "ec", 3);
    expect(r.hit("b", 4)).toBeUndefined();
    expect(r.hit("a", 4)).toMatchObject({ name: "ea", count: 3 });
  });

  it("the default bound is client-go's", () => {
    const r = new RecentEvents(600_000);
    for (let i = 0; i < 5_000; i++) r.remember(String(i), String(i), 0);
    expect(r.size).toBe(4096);
  });
});
