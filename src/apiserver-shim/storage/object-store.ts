/**
 * The one source of truth: every object, the global resourceVersion counter, one window of
 * recent events per resource and the subscribers (watches, internal controllers). Writes are
 * synchronous and, with a write-ahead log, durable before they return. Objects handed out
 * are the stored instances: callers must copy before mutating.
 *
 * The windows are per resource as kube's watch caches are (one cacher per group/resource,
 * all fed from etcd's one revision counter): writes to Secrets never expire an idle
 * ConfigMap watch.
 */
import type { KubeObject } from "../types.js";
import { EventLog, type StoreEvent, type StoreEventType } from "./event-log.js";
import { SortedKeys } from "./sorted-keys.js";
import { type RecoveryWarning, WriteAheadLog } from "./wal.js";

export interface ObjectStoreOptions {
  dataDir?: string;
  /** How many recent events of one resource a watch can resume from (default 10,000). */
  watchWindow?: number;
  /** How long an event stays resumable at most (default 5 minutes; EventLog). */
  watchWindowAgeMs?: number;
  /** Log records between snapshots (default 5,000). */
  compactEvery?: number;
  /** Told about a damaged log tail that recovery cut off (file, offset, what was wrong). */
  onRecoveryWarning?: (w: RecoveryWarning) => void;
}

export type StoreListener = (e: StoreEvent) => void;

export function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ""}/${name}`;
}

export class ObjectStore {
  private readonly data = new Map<string, Map<string, KubeObject>>();
  /** Per resource: its keys in list order. */
  private readonly order = new Map<string, SortedKeys>();
  private readonly byUid = new Map<string, { gr: string; key: string }>();
  private readonly listeners = new Set<StoreListener>();
  private rv = 0;
  /** Per resource (`group/resource`): the events a watch can resume from. */
  private readonly logs = new Map<string, EventLog>();
  private readonly watchWindow: number;
  private readonly watchWindowAgeMs: number | undefined;
  /** Resource versions at or below this one are outside every window (a fresh log starts here). */
  private windowStart: number;
  private readonly wal: WriteAheadLog | undefined;

  constructor(opts: ObjectStoreOptions = {}) {
    if (opts.dataDir) {
      const { wal, state, warnings } = WriteAheadLog.open(opts.dataDir, opts.compactEvery);
      for (const w of warnings) opts.onRecoveryWarning?.(w);
      this.wal = wal;
      this.rv = state.rv;
      for (const o of state.objects) this.put(o.gr, o.key, o.obj);
    }
    this.watchWindow = opts.watchWindow ?? 10_000;
    this.watchWindowAgeMs = opts.watchWindowAgeMs;
    this.windowStart = this.rv;
  }

  /**
   * Starts every resource's window at the current resourceVersion, as kube's watch caches
   * start from a list when the server starts: a watch from an older resourceVersion (from
   * before a restart, or from the server's own bootstrap writes) gets 410 Expired.
   */
  beginWatchWindows(): void {
    this.windowStart = this.rv;
    this.logs.clear();
  }

  currentRv(): number {
    return this.rv;
  }

  get(gr: string, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.data.get(gr)?.get(objectKey(namespace, name));
  }

  /** Objects of one resource, optionally one namespace, sorted by namespace/name. */
  list(gr: string, namespace?: string): KubeObject[] {
    return [...this.scan(gr, namespace)];
  }

  /**
   * Objects of one resource (optionally one namespace) in list order, strictly after the key
   * `after` when given, read lazily: a page stops reading where it is full.
   */
  scan(gr: string, namespace?: string, after?: string): Iterable<KubeObject> {
    return this.mergeUndone(gr, namespace, after, new Map(), []);
  }

  /**
   * Objects of one resource as they were at `rv` (sorted as `list`), strictly after the key
   * `after` when given (a continue page): the current ones with
   * every later event of the resource undone, newest first. Undefined once the resource's
   * window no longer reaches back to `rv` (kube: the continue token of a compacted revision).
   * What makes the pages of one list a consistent snapshot, as etcd's revisions do for kube.
   */
  scanAt(
    gr: string,
    namespace: string | undefined,
    rv: number,
    after?: string,
  ): Iterable<KubeObject> | undefined {
    if (rv >= this.rv) return this.scan(gr, namespace, after);
    const later = this.eventsSince(gr, rv);
    if (later === undefined) return undefined;
    if (later.length === 0) return this.scan(gr, namespace, after);
    // What each key changed since rv held at rv (null: it did not exist yet).
    const undo = new Map<string, KubeObject | null>();
    for (let i = later.length - 1; i >= 0; i--) {
      const e = later[i]!;
      if (namespace !== undefined && e.object.metadata.namespace !== namespace) continue;
      const key = objectKey(e.object.metadata.namespace, e.object.metadata.name!);
      undo.set(key, e.type === "ADDED" ? null : (e.prev ?? e.object));
    }
    const current = this.data.get(gr);
    // Keys deleted since rv: not in the current order, merged back in.
    const gone = [...undo.keys()]
      .filter((k) => undo.get(k) !== null && !current?.has(k) && (after === undefined || k > after))
      .sort();
    return this.mergeUndone(gr, namespace, after, undo, gone);
  }

  private *mergeUndone(
    gr: string,
    namespace: string | undefined,
    after: string | undefined,
    undo: ReadonlyMap<string, KubeObject | null>,
    gone: readonly string[],
  ): Generator<KubeObject> {
    const m = this.data.get(gr);
    const prefix = namespace === undefined ? "" : `${namespace}/`;
    let g = 0;
    const emit = (k: string): KubeObject | undefined => {
      const o = undo.has(k) ? undo.get(k) : m?.get(k);
      return o ?? undefined;
    };
    for (const k of this.order.get(gr)?.range(prefix, after) ?? []) {
      while (g < gone.length && gone[g]! < k) {
        const o = emit(gone[g++]!);
        if (o) yield o;
      }
      const o = emit(k);
      if (o) yield o;
    }
    while (g < gone.length) {
      const o = emit(gone[g++]!);
      if (o) yield o;
    }
  }

  /** All storage identities holding at least one object. */
  groupResources(): string[] {
    return [...this.data.entries()].filter(([, m]) => m.size > 0).map(([gr]) => gr);
  }

  /** Stored objects per group/resource (kube's apiserver_storage_objects gauge). */
  counts(): Map<string, number> {
    return new Map([...this.data.entries()].map(([gr, m]) => [gr, m.size]));
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
    this.order.get(gr)?.delete(key);
    if (prev.metadata.uid) this.byUid.delete(prev.metadata.uid);
    const last = finalState ?? prev;
    const gone: KubeObject = { ...last, metadata: { ...last.metadata, resourceVersion: String(rv) } };
    this.emit({ type: "DELETED", rv, gr, object: gone, prev });
    return gone;
  }

  /** Events of one resource with rv > `rv`, or undefined when some of them left its window. */
  eventsSince(gr: string, rv: number): StoreEvent[] | undefined {
    const log = this.logs.get(gr);
    if (log) return log.since(rv);
    return rv < this.windowStart ? undefined : [];
  }

  /** Oldest resourceVersion a watch of one resource may start from. */
  oldestResumable(gr: string): number {
    return this.logs.get(gr)?.oldestResumable() ?? this.windowStart;
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
    if (!m.has(key)) {
      let order = this.order.get(gr);
      if (!order) {
        order = new SortedKeys();
        this.order.set(gr, order);
      }
      order.add(key);
    }
    m.set(key, obj);
    if (obj.metadata.uid) this.byUid.set(obj.metadata.uid, { gr, key });
  }

  private emit(e: StoreEvent): void {
    let log = this.logs.get(e.gr);
    if (!log) {
      log = new EventLog(this.watchWindow, this.windowStart, this.watchWindowAgeMs);
      this.logs.set(e.gr, log);
    }
    log.append(e);
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
