import type { Clock } from "../../util/clock.js";

/** A clock that can also wake us later; `setTimer` returns a function that cancels. */
export interface TimerClock extends Clock {
  setTimer(delayMs: number, fn: () => void): () => void;
}

export const systemTimerClock: TimerClock = {
  now: () => Date.now(),
  setTimer(delayMs, fn) {
    const t = setTimeout(fn, delayMs);
    return () => clearTimeout(t);
  },
};

interface FakeTimer {
  due: number;
  seq: number;
  fn: () => void;
}

/**
 * Virtual time for tests: timers fire only when `advance` moves time past them, in due
 * order, and pending promise chains settle between timers (so async writes land in order).
 */
export class FakeClock implements TimerClock {
  private t: number;
  private seq = 0;
  private readonly timers = new Set<FakeTimer>();

  constructor(start = Date.UTC(2025, 0, 1)) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimer(delayMs: number, fn: () => void): () => void {
    const timer = { due: this.t + Math.max(0, delayMs), seq: this.seq++, fn };
    this.timers.add(timer);
    return () => this.timers.delete(timer);
  }

  pending(): number {
    return this.timers.size;
  }

  /** Moves time forward by `ms`, firing every timer due on the way. */
  async advance(ms: number): Promise<void> {
    const target = this.t + ms;
    for (;;) {
      await settle();
      let next: FakeTimer | undefined;
      for (const timer of this.timers) {
        if (
          timer.due <= target &&
          (!next || timer.due < next.due || (timer.due === next.due && timer.seq < next.seq))
        ) {
          next = timer;
        }
      }
      if (!next) break;
      this.timers.delete(next);
      this.t = Math.max(this.t, next.due);
      next.fn();
    }
    this.t = target;
    await settle();
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
