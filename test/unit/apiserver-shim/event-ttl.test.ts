import { describe, expect, it } from "vitest";
import {
  EVENTS_GR,
  expiredEvents,
  lastWriteMs,
  sweepEvents,
} from "../../../src/apiserver-shim/controllers/event-ttl.js";
import type { KubeObject } from "../../../src/apiserver-shim/types.js";
import { testCore } from "./fixtures.js";

const HOUR = 3_600_000;
const t0 = Date.parse("2025-01-01T00:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString();
const ev = (extra: Record<string, unknown>, created = t0): KubeObject =>
  ({
    metadata: { name: "e", namespace: "default", creationTimestamp: iso(created) },
    ...extra,
  }) as KubeObject;

describe("event expiry (kube's --event-ttl)", () => {
  it.each([
    ["created only", ev({}), t0],
    ["lastTimestamp after creation", ev({ lastTimestamp: iso(t0 + 5_000) }), t0 + 5_000],
    ["eventTime (events.k8s.io)", ev({ eventTime: iso(t0 + 7_000) }), t0 + 7_000],
    ["a series seen later", ev({ series: { count: 3, lastObservedTime: iso(t0 + 9_000) } }), t0 + 9_000],
    [
      "a managed-fields write later",
      {
        metadata: {
          name: "e",
          creationTimestamp: iso(t0),
          managedFields: [{ manager: "x", operation: "Update", time: iso(t0 + 11_000) }],
        },
      } as KubeObject,
      t0 + 11_000,
    ],
  ])("last write: %s", (_name, event, want) => {
    expect(lastWriteMs(event)).toBe(want);
  });

  it("expires an Event a TTL after its last write, not after its creation", () => {
    const old = ev({ lastTimestamp: iso(t0) });
    const refreshed = ev({ lastTimestamp: iso(t0 + 30 * 60_000) });
    expect(expiredEvents([old, refreshed], t0 + HOUR, HOUR)).toEqual([old]);
    expect(expiredEvents([old, refreshed], t0 + HOUR - 1, HOUR)).toEqual([]);
  });

  it("a sweep deletes expired Events from the store (watchers see DELETED) and keeps the rest", () => {
    const c = testCore();
    const events = c.def("", "v1", "events");
    const body = (name: string) => ({
      metadata: { name },
      involvedObject: { kind: "Pod", name: "p", namespace: "default" },
      reason: "Test",
      message: name,
      type: "Normal",
    });
    c.store.create(events, "default", body("early"), c.ctx());
    c.clock.advance(40 * 60_000);
    c.store.create(events, "default", body("late"), c.ctx({ now: c.clock.now() }));
    const deleted: string[] = [];
    c.objects.subscribe((e) => {
      if (e.type === "DELETED" && e.gr === EVENTS_GR) deleted.push(e.object.metadata.name!);
    });
    c.clock.advance(20 * 60_000);
    expect(sweepEvents(c.objects, c.clock, HOUR)).toBe(1);
    expect(deleted).toEqual(["early"]);
    expect(c.objects.list(EVENTS_GR).map((e) => e.metadata.name)).toEqual(["late"]);
    c.stop();
  });
});
