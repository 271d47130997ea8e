/**
 * Durability for the object store: an append-only write-ahead log of checksummed JSON lines
 * (wal-record.ts), compacted into a snapshot now and then.
 *
 * fsync policy (docs/reliability.md, "Durability"): every record is written with one write
 * and fsynced before the store applies it, so before the client gets its answer; there is no
 * batching and no timer. A snapshot is written to a temporary file, fsynced, renamed over the
 * old one and the directory fsynced; only then is the log emptied (and fsynced). Recovery and
 * what it does with a damaged log: wal-recovery.ts.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { encodeRecord, type WalRecord } from "./wal-record.js";
import {
  LOG_FILE,
  type RecoveredState,
  type RecoveryWarning,
  recover,
  SNAPSHOT_FILE,
} from "./wal-recovery.js";

export type { WalRecord } from "./wal-record.js";
export { type RecoveredState, type RecoveryWarning, WalCorruptError } from "./wal-recovery.js";

export class WriteAheadLog {
  private fd: number;
  /** Where the next record goes: the end of the complete records. */
  private position: number;
  private appended = 0;

  private constructor(
    private readonly dir: string,
    private readonly compactEvery: number,
    validLength: number,
  ) {
    const path = join(dir, LOG_FILE);
    const created = !existsSync(path);
    this.fd = openSync(path, created ? "w+" : "r+");
    // Cut a torn tail before appending: a new record written after half a line would be
    // glued to it and lost at the next recovery.
    ftruncateSync(this.fd, validLength);
    fsyncSync(this.fd);
    if (created) syncDir(dir);
    this.position = validLength;
  }

  /**
   * Opens (creating) `dir` and returns the log plus the state it holds. A damaged tail is cut
   * (reported in `warnings`); damage with good records after it throws WalCorruptError.
   */
  static open(
    dir: string,
    compactEvery = 5000,
  ): { wal: WriteAheadLog; state: RecoveredState; warnings: RecoveryWarning[] } {
    mkdirSync(dir, { recursive: true });
    rmSync(join(dir, `${SNAPSHOT_FILE}.tmp`), { force: true });
    const { state, warnings, validLength } = recover(dir);
    const wal = new WriteAheadLog(dir, compactEvery, validLength);
    return { wal, state, warnings };
  }

  /** Appends and fsyncs; when this returns the record survives a crash. */
  append(rec: WalRecord): void {
    const bytes = encodeRecord(rec);
    let done = 0;
    while (done < bytes.length)
      done += writeSync(this.fd, bytes, done, bytes.length - done, this.position + done);
    fsyncSync(this.fd);
    this.position += bytes.length;
    this.appended++;
  }

  needsCompaction(): boolean {
    return this.appended >= this.compactEvery;
  }

  /** Writes a snapshot of the full state and starts an empty log. */
  compact(state: RecoveredState): void {
    const tmp = join(this.dir, `${SNAPSHOT_FILE}.tmp`);
    writeFileSync(tmp, JSON.stringify({ rv: state.rv, objects: state.objects }));
    const tfd = openSync(tmp, "r+");
    fsyncSync(tfd);
    closeSync(tfd);
    renameSync(tmp, join(this.dir, SNAPSHOT_FILE));
    syncDir(this.dir);
    // The snapshot covers everything in the log, so emptying it now is safe.
    ftruncateSync(this.fd, 0);
    fsyncSync(this.fd);
    this.position = 0;
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
