/**
 * Durability for the object store: an append-only JSON-lines write-ahead log, fsynced
 * before a write is acknowledged, compacted into a snapshot (write temp, fsync, rename,
 * fsync dir). Recovery loads the snapshot and replays the log; a torn last line (crash
 * mid-append) is ignored because its write was never acknowledged.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { KubeObject } from "../types.js";

export interface WalRecord {
  rv: number;
  op: "put" | "del";
  gr: string;
  key: string;
  obj?: KubeObject;
}

export interface RecoveredState {
  rv: number;
  objects: { gr: string; key: string; obj: KubeObject }[];
}

interface Snapshot {
  rv: number;
  objects: { gr: string; key: string; obj: KubeObject }[];
}

const SNAPSHOT = "snapshot.json";
const LOG = "wal.jsonl";

export class WriteAheadLog {
  private fd: number;
  private appended = 0;

  private constructor(
    private readonly dir: string,
    private readonly compactEvery: number,
  ) {
    this.fd = openSync(join(dir, LOG), "a");
  }

  /** Opens (creating) `dir` and returns the log plus the state it holds. */
  static open(dir: string, compactEvery = 5000): { wal: WriteAheadLog; state: RecoveredState } {
    mkdirSync(dir, { recursive: true });
    const state = recover(dir);
    const wal = new WriteAheadLog(dir, compactEvery);
    return { wal, state };
  }

  /** Appends and fsyncs; when this returns the record survives a crash. */
  append(rec: WalRecord): void {
    const line = `${JSON.stringify(rec)}\n`;
    writeSync(this.fd, line);
    fsyncSync(this.fd);
    this.appended++;
  }

  needsCompaction(): boolean {
    return this.appended >= this.compactEvery;
  }

  /** Writes a snapshot of the full state and starts an empty log. */
  compact(state: RecoveredState): void {
    const tmp = join(this.dir, `${SNAPSHOT}.tmp`);
    const snap: Snapshot = { rv: state.rv, objects: state.objects };
    writeFileSync(tmp, JSON.stringify(snap));
    const tfd = openSync(tmp, "r+");
    fsyncSync(tfd);
    closeSync(tfd);
    renameSync(tmp, join(this.dir, SNAPSHOT));
    syncDir(this.dir);
    closeSync(this.fd);
    // The snapshot covers everything in the old log, so truncating it now is safe.
    this.fd = openSync(join(this.dir, LOG), "w");
    fsyncSync(this.fd);
    syncDir(this.dir);
    this.appended = 0;
  }

  close(): void {
    closeSync(this.fd);
  }
}

function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    fsyncSync(fd);
    closeSync(fd);
  } catch {
    // Some filesystems refuse fsync on directories; the rename is still atomic there.
  }
}

function recover(dir: string): RecoveredState {
  const objects = new Map<string, { gr: string; key: string; obj: KubeObject }>();
  let rv = 0;
  const snapPath = join(dir, SNAPSHOT);
  if (existsSync(snapPath)) {
    const snap = JSON.parse(readFileSync(snapPath, "utf8")) as Snapshot;
    rv = snap.rv;
    for (const o of snap.objects) objects.set(`${o.gr}|${o.key}`, o);
  }
  const logPath = join(dir, LOG);
  if (existsSync(logPath)) {
    const lines = readFileSync(logPath, "utf8").split("\n");
    for (const line of lines) {
      if (!line.trim()) continue;
      let rec: WalRecord;
      try {
        rec = JSON.parse(line) as WalRecord;
      } catch {
        break; // torn tail: never acknowledged
      }
      if (rec.rv <= rv && rec.rv !== 0) continue;
      rv = Math.max(rv, rec.rv);
      const id = `${rec.gr}|${rec.key}`;
      if (rec.op === "put" && rec.obj) objects.set(id, { gr: rec.gr, key: rec.key, obj: rec.obj });
      else objects.delete(id);
    }
  }
  return { rv, objects: [...objects.values()] };
}
