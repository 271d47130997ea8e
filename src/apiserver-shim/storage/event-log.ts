import type { KubeObject } from "../types.js";

export type StoreEventType = "ADDED" | "MODIFIED" | "DELETED";

/** One committed change. `prev` is the object before the change (for MODIFIED/DELETED). */
export interface StoreEvent {
  type: StoreEventType;
  rv: number;
  /** storage identity `group/resource` */
  gr: string;
  object: KubeObject;
  prev?: KubeObject;
}

/** How long an event stays resumable at most (kube's watch cache aims at 75 s of history). */
export const DEFAULT_WATCH_WINDOW_AGE_MS = 5 * 60_000;

/**
 * The bounded window of recent events of one resource a watch can resume from: at most
 * `capacity` events and none older than `maxAgeMs` (so a busy server's memory stops growing
 * once the window spans that long, instead of holding `capacity` full objects per resource:
 * the hour-long soak showed it). Events older than the window are gone: a watch asking for
 * them gets 410 Expired, as from kube's watch cache (`getAllEventsSinceLocked`), and the
 * client relists.
 */
export class EventLog {
  private events: StoreEvent[] = [];
  /** When each event was appended (ms), parallel to `events`. */
  private times: number[] = [];
  /** Oldest resourceVersion a watch may start from. */
  private floorRv: number;

  /** `startRv`: where the window starts (kube: the resourceVersion of the cache's initial list). */
  constructor(
    private readonly capacity: number,
    startRv: number,
    private readonly maxAgeMs = DEFAULT_WATCH_WINDOW_AGE_MS,
    private readonly now: () => number = Date.now,
  ) {
    this.floorRv = startRv;
  }

  append(e: StoreEvent): void {
    const t = this.now();
    this.events.push(e);
    this.times.push(t);
    // Drop in batches (a sixteenth of the window, at least 16): one splice per event would
    // move the whole window on every write.
    const slack = Math.max(16, this.capacity >> 4);
    let cut = this.events.length > this.capacity + slack ? this.events.length - this.capacity : 0;
    const stale = this.firstYoungerThan(t - this.maxAgeMs);
    if (stale >= Math.max(16, this.events.length >> 4)) cut = Math.max(cut, stale);
    if (cut > 0) {
      const gone = this.events.splice(0, cut);
      this.times.splice(0, cut);
      this.floorRv = (this.events[0]?.rv ?? gone.at(-1)!.rv + 1) - 1;
    }
  }

  /** Index of the first event appended at or after `t`. */
  private firstYoungerThan(t: number): number {
    let lo = 0;
    let hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.times[mid]! < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Oldest resourceVersion a watch may start from: the window's start until an event was
   * dropped, then the one just below the oldest event kept (kube's `oldest-1`).
   */
  oldestResumable(): number {
    return this.floorRv;
  }

  /** Events with rv > `rv`, or undefined when some of them were already dropped. */
  since(rv: number): StoreEvent[] | undefined {
    if (rv < this.oldestResumable()) return undefined;
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.events[mid]!.rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return this.events.slice(lo);
  }
}
