import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EventLog } from "../../../src/apiserver-shim/storage/event-log.js";
import { ObjectStore } from "../../../src/apiserver-shim/storage/object-store.js";
import type { KubeObject } from "../../../src/apiserver-shim/types.js";

const cm = (name: string): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "default", uid: `uid-${name}` },
});

describe("object store", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("keeps a bounded window of events to resume watches from", () => {
    const s = new ObjectStore({ watchWindow: 4 });
    for (let i = 0; i < 30; i++) s.write("/configmaps", cm(`c${i}`));
    expect(s.eventsSince("/configmaps", 1)).toBeUndefined();
    const recent = s.eventsSince("/configmaps", 28)!;
    expect(recent.map((e) => e.rv)).toEqual([29, 30]);
  });

  it("drops events older than the window's age even below its capacity (410, then a relist)", () => {
    let now = 0;
    const log = new EventLog(10_000, 0, 60_000, () => now);
    const ev = (rv: number) => ({ type: "ADDED" as const, rv, gr: "/configmaps", object: cm(`c${rv}`) });
    for (let rv = 1; rv <= 20; rv++) log.append(ev(rv));
    now = 61_000; // the first twenty are now over a minute old
    for (let rv = 21; rv <= 40; rv++) log.append(ev(rv));
    expect(log.since(0)).toBeUndefined();
    expect(log.oldestResumable()).toBe(20);
    expect(log.since(20)!.map((e) => e.rv)).toEqual(Array.from({ length: 20 }, (_, i) => 21 + i));
  });

  it("keeps one window per resource under one resourceVersion counter", () => {
    const s = new ObjectStore({ watchWindow: 4 });
    s.write("/configmaps", cm("idle"));
    const idleRv = s.currentRv();
    for (let i = 0; i < 40; i++) s.write("/secrets", cm(`s${i}`));
    s.write("/configmaps", cm("later"));
    expect(s.currentRv()).toBe(42);
    // Secrets churned far past the window; an idle ConfigMap watch still resumes (kube: one watch cache per resource).
    expect(s.eventsSince("/configmaps", idleRv)!.map((e) => `${e.rv} ${e.object.metadata.name}`)).toEqual([
      "42 later",
    ]);
    expect(s.eventsSince("/configmaps", 0)!.map((e) => e.rv)).toEqual([1, 42]);
    expect(s.oldestResumable("/configmaps")).toBe(0);
    // Secrets expire from their own window: the floor is just below the oldest event kept.
    expect(s.eventsSince("/secrets", idleRv)).toBeUndefined();
    const floor = s.oldestResumable("/secrets");
    // (the window drops in batches: it may hold up to 16 events more than asked for)
    expect(s.eventsSince("/secrets", floor)!.map((e) => e.rv)).toEqual([36, 37, 38, 39, 40, 41]);
    expect(s.eventsSince("/secrets", floor - 1)).toBeUndefined();
    // A resource with no events yet resumes from anything since the windows began.
    expect(s.eventsSince("/pods", 3)).toEqual([]);
  });

  it("starts every window at beginWatchWindows, like a watch cache's initial list", () => {
    const s = new ObjectStore({ watchWindow: 100 });
    s.write("/namespaces", cm("default"));
    s.write("/namespaces", cm("kube-system"));
    s.beginWatchWindows();
    s.write("/configmaps", cm("a"));
    expect(s.eventsSince("/configmaps", 1)).toBeUndefined();
    expect(s.eventsSince("/namespaces", 1)).toBeUndefined();
    expect(s.oldestResumable("/configmaps")).toBe(2);
    expect(s.eventsSince("/configmaps", 2)!.map((e) => e.rv)).toEqual([3]);
    expect(s.eventsSince("/secrets", 2)).toEqual([]);
  });

  it("recovers objects and the resourceVersion from snapshot + log, ignoring a torn tail", () => {
    const dir = mkdtempSync(join(tmpdir(), "wal-"));
    dirs.push(dir);
    const a = new ObjectStore({ dataDir: dir, compactEvery: 5 });
    for (let i = 0; i < 12; i++) a.write("/configmaps", cm(`c${i}`));
    a.remove("/configmaps", cm("c3"));
    a.close();
    appendFileSync(join(dir, "wal.jsonl"), '{"rv":99,"op":"put","gr":"/configm');
    const b = new ObjectStore({ dataDir: dir });
    expect(b.currentRv()).toBe(13);
    expect(b.list("/configmaps").map((o) => o.metadata.name)).toHaveLength(11);
    expect(b.get("/configmaps", "default", "c3")).toBeUndefined();
    expect(b.findByUid("uid-c7")?.object.metadata.name).toBe("c7");
    expect(b.eventsSince("/configmaps", 5)).toBeUndefined();
    b.close();
  });
});
