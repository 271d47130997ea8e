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

/**
 * The bounded window of recent events a watch can resume from. Events older than the
 * window are gone: a watch asking for them gets 410 Expired, as from kube's watch cache.
 */
export class EventLog {
  private events: StoreEvent[] = [];
  /** Highest resourceVersion no longer available (events at or below it were dropped). */
  private compactedRv: number;

  constructor(
    private readonly capacity: number,
    startRv: number,
  ) {
    this.compactedRv = startRv;
  }

  append(e: StoreEvent): void {
    this.events.push(e);
    if (this.events.length > this.capacity + Math.max(16, this.capacity >> 4)) {
      const drop = this.events.length - this.capacity;
      this.compactedRv = this.events[drop - 1]!.rv;
      this.events.splice(0, drop);
    }
  }

  /** Oldest resourceVersion a watch may start from. */
  oldestResumable(): number {
    return this.compactedRv;
  }

  /** Events with rv > `rv`, or undefined when some of them were already dropped. */
  since(rv: number): StoreEvent[] | undefined {
    if (rv < this.compactedRv) return undefined;
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
