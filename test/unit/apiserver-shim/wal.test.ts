/**
 * What recovery makes of a damaged data dir: a torn or garbage tail is cut with a warning that
 * names the file and offset and keeps every complete record; damage with complete records after
 * it refuses to start, saying where and what to do.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ObjectStore } from "../../../src/apiserver-shim/storage/object-store.js";
import { type RecoveryWarning, WalCorruptError } from "../../../src/apiserver-shim/storage/wal.js";
import type { KubeObject } from "../../../src/apiserver-shim/types.js";

const cm = (name: string, v = "1"): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "default", uid: `uid-${name}` },
  data: { v },
});

describe("write-ahead log recovery", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const freshDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "wal-"));
    dirs.push(dir);
    return dir;
  };
  /** A log of `n` ConfigMap creates; returns the dir and the byte offset where each line starts. */
  const logOf = (n: number, compactEvery = 10_000) => {
    const dir = freshDir();
    const s = new ObjectStore({ dataDir: dir, compactEvery });
    for (let i = 1; i <= n; i++) s.write("/configmaps", cm(`c${i}`, `value-${i}`));
    s.close();
    const log = join(dir, "wal.jsonl");
    const bytes = readFileSync(log);
    const starts = [0];
    for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x0a && i + 1 < bytes.length) starts.push(i + 1);
    return { dir, log, bytes, starts };
  };
  const reopen = (dir: string) => {
    const warnings: RecoveryWarning[] = [];
    const store = new ObjectStore({ dataDir: dir, onRecoveryWarning: (w) => warnings.push(w) });
    return { store, warnings };
  };
  const names = (s: ObjectStore) =>
    s
      .list("/configmaps")
      .map((o) => o.metadata.name!)
      .sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));

  it("keeps exactly the complete records wherever the log was cut", () => {
    const { dir, log, bytes, starts } = logOf(4);
    // Around every line boundary, and every 17th byte between them.
    const cuts = new Set<number>([bytes.length]);
    for (const s of [...starts, bytes.length]) for (const d of [-2, -1, 0, 1, 2]) cuts.add(s + d);
    for (let c = 0; c < bytes.length; c += 17) cuts.add(c);
    for (const cut of [...cuts].filter((c) => c >= 0 && c <= bytes.length)) {
      writeFileSync(log, bytes.subarray(0, cut));
      const complete = starts.filter((s, i) => (starts[i + 1] ?? bytes.length) <= cut && s < cut).length;
      const { store, warnings } = reopen(dir);
      expect(store.currentRv(), `cut at ${cut}`).toBe(complete);
      expect(names(store)).toEqual(Array.from({ length: complete }, (_, i) => `c${i + 1}`));
      const torn = cut !== (starts[complete] ?? bytes.length);
      expect(warnings.length, `cut at ${cut}`).toBe(torn ? 1 : 0);
      store.close();
    }
  });

  it("cuts a torn tail with a warning naming the file and offset, and later writes survive", () => {
    const { dir, log, bytes, starts } = logOf(5);
    truncateSync(log, starts[4]! + 7);
    const first = reopen(dir);
    expect(first.warnings).toEqual([expect.objectContaining({ file: log, offset: starts[4] })]);
    expect(first.warnings[0]!.message).toContain(`wal.jsonl: cut 7 byte(s) at byte offset ${starts[4]}`);
    expect(first.warnings[0]!.message).toContain("kept every record up to resourceVersion 4");
    // Before the cut, a record appended after half a line was glued to it and lost next time.
    first.store.write("/configmaps", cm("after"));
    first.store.close();
    const second = reopen(dir);
    expect(second.warnings).toEqual([]);
    expect(second.store.currentRv()).toBe(5);
    expect(second.store.get("/configmaps", "default", "after")?.data).toEqual({ v: "1" });
    expect(readFileSync(log).length).toBeLessThan(bytes.length + 200);
    second.store.close();
  });

  it("cuts garbage bytes after the last complete record (no complete record among them)", () => {
    const { dir, log, starts } = logOf(3);
    appendFileSync(
      log,
      Buffer.from('\u0000\u0000\u0000garbage\n{"rv":4,"op":"put"}\tdeadbeef\n\u00ff\u00fe'),
    );
    const { store, warnings } = reopen(dir);
    expect(store.currentRv()).toBe(3);
    expect(names(store)).toEqual(["c1", "c2", "c3"]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.offset).toBe(readFileSync(log).length);
    expect(warnings[0]!.offset).toBeGreaterThan(starts[2]!);
    store.close();
  });

  it("cuts a zero-filled tail (a file extended but never written)", () => {
    const { dir, log, bytes } = logOf(3);
    appendFileSync(log, Buffer.alloc(4096));
    const { store, warnings } = reopen(dir);
    expect(store.currentRv()).toBe(3);
    expect(warnings.map((w) => w.offset)).toEqual([bytes.length]);
    store.close();
  });

  it("refuses a damaged record in the middle, naming the file, line, offset and the way out", () => {
    const { dir, log, bytes, starts } = logOf(5);
    const damaged = Buffer.from(bytes);
    damaged[starts[2]! + 30] = "#".charCodeAt(0);
    writeFileSync(log, damaged);
    let err: unknown;
    try {
      new ObjectStore({ dataDir: dir });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(WalCorruptError);
    const e = err as WalCorruptError;
    expect(e.offset).toBe(starts[2]);
    expect(e.file).toBe(log);
    expect(e.message).toContain(`line 3 at byte offset ${starts[2]} is damaged (checksum mismatch)`);
    expect(e.message).toContain("2 complete record(s) follow it (up to resourceVersion 5)");
    expect(e.message).toContain(`truncate -s ${starts[2]} ${log}`);
    // The refusal changed nothing: following its advice keeps the records before the damage.
    expect(readFileSync(log)).toEqual(damaged);
    truncateSync(log, starts[2]!);
    const { store, warnings } = reopen(dir);
    expect(names(store)).toEqual(["c1", "c2"]);
    expect(warnings).toEqual([]);
    store.close();
  });

  it("refuses a missing record (a gap in resourceVersions), even as the last line", () => {
    const { dir, log, bytes, starts } = logOf(4);
    writeFileSync(log, Buffer.concat([bytes.subarray(0, starts[2]!), bytes.subarray(starts[3]!)]));
    expect(() => new ObjectStore({ dataDir: dir })).toThrow(
      /line 3 at byte offset \d+ is damaged \(resourceVersion 4 follows 2: records are missing\)/,
    );
  });

  it("refuses an unreadable snapshot", () => {
    const { dir } = logOf(12, 5);
    writeFileSync(join(dir, "snapshot.json"), '{"rv": 10, "objects": [');
    expect(() => new ObjectStore({ dataDir: dir })).toThrow(/snapshot\.json: the snapshot is not valid JSON/);
  });

  it("replays over the snapshot, skipping records it already holds (a crash before the log was emptied)", () => {
    const { dir, log } = logOf(7, 5);
    const tail = readFileSync(log);
    const s = new ObjectStore({ dataDir: dir, compactEvery: 5 });
    s.remove("/configmaps", cm("c1"));
    for (let i = 8; i <= 11; i++) s.write("/configmaps", cm(`c${i}`));
    s.close(); // compacted at rv 12 (5 records since opening): the log is empty now
    expect(readFileSync(log).length).toBe(0);
    writeFileSync(log, tail); // records 6 and 7 again, below the snapshot
    const { store, warnings } = reopen(dir);
    expect(warnings).toEqual([]);
    expect(store.currentRv()).toBe(12);
    expect(names(store)).toEqual(["c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9", "c10", "c11"]);
    store.close();
  });

  it("reads logs written before records carried a checksum", () => {
    const dir = freshDir();
    writeFileSync(
      join(dir, "wal.jsonl"),
      `${JSON.stringify({ rv: 1, op: "put", gr: "/configmaps", key: "default/old", obj: cm("old") })}\n`,
    );
    const { store, warnings } = reopen(dir);
    expect(warnings).toEqual([]);
    expect(store.get("/configmaps", "default", "old")?.metadata.resourceVersion).toBeUndefined();
    expect(store.currentRv()).toBe(1);
    store.close();
  });
});
