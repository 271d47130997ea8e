/**
 * Waiters on a watch's events: `until(done)` checks `done()` after every event the owner
 * reports with `notify()`, and gives up after a timeout. Shared by the benchmark's watches
 * (petsets.ts, object-watch.ts).
 */
export class EventWaiters {
  private waiters: Array<() => void> = [];

  /** Call after every event: each waiter checks its condition again. */
  notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Resolves true when `done()` holds (checked after every event), false after timeoutMs. */
  until(done: () => boolean, timeoutMs: number): Promise<boolean> {
    if (done()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      const check = () => {
        if (done()) {
          clearTimeout(timer);
          resolve(true);
        } else this.waiters.push(check);
      };
      this.waiters.push(check);
    });
  }
}
