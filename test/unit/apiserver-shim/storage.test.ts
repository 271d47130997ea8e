import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
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
    expect(s.eventsSince(1)).toBeUndefined();
    const recent = s.eventsSince(28)!;
    expect(recent.map((e) => e.rv)).toEqual([29, 30]);
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
    expect(b.eventsSince(5)).toBeUndefined();
    b.close();
  });
});
