/**
 * The one source of truth: every object, the global resourceVersion counter, the recent
 * event window and the subscribers (watches, internal controllers). Writes are synchronous
 * and, with a write-ahead log, durable before they return. Objects handed out are the
 * stored instances: callers must copy before mutating.
 */
import type { KubeObject } from "../types.js";
import { EventLog, type StoreEvent, type StoreEventType } from "./event-log.js";
import { WriteAheadLog } from "./wal.js";

export interface ObjectStoreOptions {
  dataDir?: string;
  /** How many recent events a watch can resume from (default 10,000). */
  watchWindow?: number;
  /** Log records between snapshots (default 5,000). */
  compactEvery?: number;
}

export type StoreListener = (e: StoreEvent) => void;

export function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ""}/${name}`;
}

export class ObjectStore {
  private readonly data = new Map<string, Map<string, KubeObject>>();
  private readonly byUid = new Map<string, { gr: string; key: string }>();
  private readonly listeners = new Set<StoreListener>();
  private rv = 0;
  private readonly log: EventLog;
  private readonly wal: WriteAheadLog | undefined;

  constructor(opts: ObjectStoreOptions = {}) {
    if (opts.dataDir) {
      const { wal, state } = WriteAheadLog.open(opts.dataDir, opts.compactEvery);
      this.wal = wal;
      this.rv = state.rv;
      for (const o of state.objects) this.put(o.gr, o.key, o.obj);
    }
    this.log = new EventLog(opts.watchWindow ?? 10_000, this.rv);
  }

  currentRv(): number {
    return this.rv;
  }

  get(gr: string, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.data.get(gr)?.get(objectKey(namespace, name));
  }

  /** Objects of one resource, optionally one namespace, sorted by namespace/name. */
  list(gr: string, namespace?: string): KubeObject[] {
    const m = this.data.get(gr);
    if (!m) return [];
    const keys = [...m.keys()].sort();
    const out: KubeObject[] = [];
    for (const k of keys) {
      if (namespace !== undefined && !k.startsWith(`${namespace}/`)) continue;
      out.push(m.get(k)!);
    }
    return out;
  }

  /** All storage identities holding at least one object. */
  groupResources(): string[] {
    return [...this.data.entries()].filter(([, m]) => m.size > 0).map(([gr]) => gr);
  }

  findByUid(uid: string): { gr: string; object: KubeObject } | undefined {
    const loc = this.byUid.get(uid);
    if (!loc) return undefined;
    const object = this.data.get(loc.gr)?.get(loc.key);
    return object ? { gr: loc.gr, object } : undefined;
  }

  /** Stores a new or changed object under a fresh resourceVersion and returns it. */
  write(gr: string, obj: KubeObject): KubeObject {
    const key = objectKey(obj.metadata.namespace, obj.metadata.name!);
    const prev = this.data.get(gr)?.get(key);
    const rv = this.rv + 1;
    obj.metadata.resourceVersion = String(rv);
    this.wal?.append({ rv, op: "put", gr, key, obj });
    this.rv = rv;
    this.put(gr, key, obj);
    this.emit({ type: prev ? "MODIFIED" : "ADDED", rv, gr, object: obj, ...(prev ? { prev } : {}) });
    return obj;
  }

  /**
   * Removes an object; the DELETED event carries `finalState` (default: the stored
   * object) under a fresh resourceVersion.
   */
  remove(gr: string, obj: KubeObject, finalState?: KubeObject): KubeObject | undefined {
    const key = objectKey(obj.metadata.namespace, obj.metadata.name!);
    const prev = this.data.get(gr)?.get(key);
    if (!prev) return undefined;
    const rv = this.rv + 1;
    this.wal?.append({ rv, op: "del", gr, key });
    this.rv = rv;
    this.data.get(gr)!.delete(key);
    if (prev.metadata.uid) this.byUid.delete(prev.metadata.uid);
    const last = finalState ?? prev;
    const gone: KubeObject = { ...last, metadata: { ...last.metadata, resourceVersion: String(rv) } };
    this.emit({ type: "DELETED", rv, gr, object: gone, prev });
    return gone;
  }

  eventsSince(rv: number): StoreEvent[] | undefined {
    return this.log.since(rv);
  }

  oldestResumable(): number {
    return this.log.oldestResumable();
  }

  subscribe(fn: StoreListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  close(): void {
    this.wal?.close();
  }

  private put(gr: string, key: string, obj: KubeObject): void {
    let m = this.data.get(gr);
    if (!m) {
      m = new Map();
      this.data.set(gr, m);
    }
    m.set(key, obj);
    if (obj.metadata.uid) this.byUid.set(obj.metadata.uid, { gr, key });
  }

  private emit(e: StoreEvent): void {
    this.log.append(e);
    if (this.wal?.needsCompaction()) this.wal.compact(this.snapshot());
    for (const l of [...this.listeners]) l(e);
  }

  private snapshot(): { rv: number; objects: { gr: string; key: string; obj: KubeObject }[] } {
    const objects: { gr: string; key: string; obj: KubeObject }[] = [];
    for (const [gr, m] of this.data) for (const [key, obj] of m) objects.push({ gr, key, obj });
    return { rv: this.rv, objects };
  }
}

export type { StoreEvent, StoreEventType };
