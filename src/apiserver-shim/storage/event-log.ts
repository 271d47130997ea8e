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
 * The bounded window of recent events of one resource a watch can resume from. Events older
 * than the window are gone: a watch asking for them gets 410 Expired, as from kube's watch
 * cache (`getAllEventsSinceLocked`).
 */
export class EventLog {
  private events: StoreEvent[] = [];
  /** Oldest resourceVersion a watch may start from. */
  private floorRv: number;

  /** `startRv`: where the window starts (kube: the resourceVersion of the cache's initial list). */
  constructor(
    private readonly capacity: number,
    startRv: number,
  ) {
    this.floorRv = startRv;
  }

  append(e: StoreEvent): void {
    this.events.push(e);
    if (this.events.length > this.capacity + Math.max(16, this.capacity >> 4)) {
      const gone = this.events.splice(0, this.events.length - this.capacity);
      this.floorRv = (this.events[0]?.rv ?? gone.at(-1)!.rv + 1) - 1;
    }
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
