/**
 * Reading a data dir back: the snapshot, then every complete log record after it. What to do
 * with a damaged log follows etcd (`wal.Repair` cuts a torn tail; a bad record with good ones
 * after it stops the server):
 * - a damaged tail (a torn last write, or bytes after the last good record that hold no good
 *   record) was never acknowledged: it is cut off, with a warning naming the file and offset;
 * - a damaged record, or a missing one (a gap in resourceVersions), with good records after it
 *   means acknowledged writes would be lost or reordered: recovery refuses, saying where.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { KubeObject } from "../types.js";
import { decodeRecord, SnapshotSchema, type WalRecord } from "./wal-record.js";

export const SNAPSHOT_FILE = "snapshot.json";
export const LOG_FILE = "wal.jsonl";

export interface StoredObject {
  gr: string;
  key: string;
  obj: KubeObject;
}

export interface RecoveredState {
  rv: number;
  objects: StoredObject[];
}

export interface RecoveryWarning {
  message: string;
  file: string;
  offset: number;
}

export interface Recovery {
  state: RecoveredState;
  warnings: RecoveryWarning[];
  /** Bytes of the log that hold complete records: the log is cut to this before appending. */
  validLength: number;
  logLength: number;
}

/** The data dir cannot be read back without losing or reordering acknowledged writes. */
export class WalCorruptError extends Error {
  readonly reason = "StorageCorrupt";
  constructor(
    message: string,
    readonly file: string,
    readonly offset: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "WalCorruptError";
  }
}

interface Line {
  offset: number;
  lineNo: number;
  /** Set when the line holds a good record. */
  record?: WalRecord;
  problem?: string;
}

function readSnapshot(path: string): RecoveredState {
  if (!existsSync(path)) return { rv: 0, objects: [] };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new WalCorruptError(
      `${path}: the snapshot is not valid JSON (${(err as Error).message}); refusing to start: restore the data dir from a backup`,
      path,
      0,
      { cause: err },
    );
  }
  const snap = SnapshotSchema.safeParse(raw);
  if (!snap.success)
    throw new WalCorruptError(
      `${path}: the snapshot is not a petset data snapshot (${snap.error.issues[0]?.message ?? "invalid"}); refusing to start: restore the data dir from a backup`,
      path,
      0,
    );
  return { rv: snap.data.rv, objects: snap.data.objects as StoredObject[] };
}

function splitLines(buf: Buffer): { lines: Line[]; tornAt?: number } {
  const lines: Line[] = [];
  let pos = 0;
  let lineNo = 0;
  while (pos < buf.length) {
    lineNo++;
    const nl = buf.indexOf(0x0a, pos);
    if (nl < 0) return { lines, tornAt: pos };
    const text = buf.toString("utf8", pos, nl);
    if (text.trim() !== "") {
      const decoded = decodeRecord(text);
      lines.push(
        "record" in decoded
          ? { offset: pos, lineNo, record: decoded.record }
          : { offset: pos, lineNo, problem: decoded.problem },
      );
    }
    pos = nl + 1;
  }
  return { lines };
}

export function recover(dir: string): Recovery {
  const state = readSnapshot(join(dir, SNAPSHOT_FILE));
  const objects = new Map<string, StoredObject>();
  for (const o of state.objects) objects.set(`${o.gr}|${o.key}`, o);
  let rv = state.rv;
  const logPath = join(dir, LOG_FILE);
  const buf = existsSync(logPath) ? readFileSync(logPath) : Buffer.alloc(0);
  const { lines, tornAt } = splitLines(buf);
  const warnings: RecoveryWarning[] = [];
  let validLength = buf.length;
  let lastRv = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const rec = line.record;
    // Records at or below the snapshot's resourceVersion are in it already (a crash between
    // writing the snapshot and emptying the log leaves them).
    const gap = rec !== undefined && rec.rv > rv && rec.rv !== rv + 1;
    const backwards = rec !== undefined && rec.rv <= lastRv;
    if (rec && !gap && !backwards) {
      lastRv = rec.rv;
      if (rec.rv <= rv) continue;
      rv = rec.rv;
      const id = `${rec.gr}|${rec.key}`;
      if (rec.op === "put" && rec.obj) objects.set(id, { gr: rec.gr, key: rec.key, obj: rec.obj });
      else objects.delete(id);
      continue;
    }
    const problem = gap
      ? `resourceVersion ${rec!.rv} follows ${rv}: records are missing`
      : backwards
        ? `resourceVersion ${rec!.rv} does not follow ${lastRv}`
        : line.problem!;
    const later = lines.slice(i + 1).filter((l) => l.record !== undefined);
    if (rec !== undefined || later.length > 0) {
      const cut = rec === undefined ? later.length : later.length + 1;
      throw new WalCorruptError(
        `${logPath}: line ${line.lineNo} at byte offset ${line.offset} is damaged (${problem}) and ${cut} complete record(s) follow it (up to resourceVersion ${(later.at(-1)?.record ?? rec)!.rv}); refusing to start rather than lose acknowledged writes. Restore the data dir from a backup, or keep only the records before it with: truncate -s ${line.offset} ${logPath}`,
        logPath,
        line.offset,
      );
    }
    validLength = line.offset;
    warnings.push({
      file: logPath,
      offset: line.offset,
      message: `${logPath}: cut ${buf.length - line.offset} byte(s) at byte offset ${line.offset} (line ${line.lineNo}: ${problem}) with no complete record after them: a write torn by a crash, never acknowledged; kept every record up to resourceVersion ${rv}`,
    });
    break;
  }
  if (tornAt !== undefined && validLength === buf.length) {
    validLength = tornAt;
    warnings.push({
      file: logPath,
      offset: tornAt,
      message: `${logPath}: cut ${buf.length - tornAt} byte(s) at byte offset ${tornAt}: a last line without its end (a write torn by a crash, never acknowledged); kept every record up to resourceVersion ${rv}`,
    });
  }
  return { state: { rv, objects: [...objects.values()] }, warnings, validLength, logLength: buf.length };
}
