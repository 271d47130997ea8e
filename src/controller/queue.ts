/**
 * A work queue of keys ("namespace/name"), as client-go's: a key is queued at most once, is
 * never processed by two workers at once (a key added while in flight is re-queued when
 * done), and failing keys back off exponentially per key. Keys, not object snapshots: the
 * sync re-reads the current object from the cache, so a late event never acts on stale data.
 *
 * Two lanes: `add(key, { urgent: true })` puts a key ahead of the others (a PetSet whose spec
 * the controller has not yet seen: its new version is what its user waits for). Among urgent
 * keys, and among the others, first in first out. A key already queued moves to the urgent
 * lane; one in flight is re-queued urgent when done. Urgent keys can delay the rest only while
 * spec changes arrive faster than the workers record them.
 *
 * Latency (`observeWait`, the metric petset_queue_duration_seconds): from the add that made a
 * key pending (queued, or dirty while in flight) to a worker picking it up, on the injected
 * clock; later adds of a pending key and a move to the urgent lane keep the first time, and
 * the delay of `addAfter` is not counted (the key is added when it is due), as client-go's.
 *
 * `addSoon(key, ms)`: the key is added within `ms` unless a worker picks it up first; that
 * sync reads the caches as they are then, newer than the event that asked, so the pending add
 * is dropped (wake-policy.ts: events that cannot let a sync act sooner share the next one).
 *
 * `minIntervalMs` (the controller's `SYNC_SPACING_MS`, wake-policy.ts): a key is handed to a
 * worker at most once per interval, from the start of one sync to the next. An add within the
 * interval after the key's last pickup waits for the rest of it (the key counts as pending
 * meanwhile: its wait is measured from the add, and later adds join it); an add after a quiet
 * interval goes at once. Urgent adds never wait. A burst of events for one PetSet (ten pods of
 * a rollout turning Ready a few ms apart) then shares a sync or two instead of one each.
 */
import type { Clock } from "../util/clock.js";

export interface QueueOptions {
  clock: Clock;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Called with the seconds a key waited each time a worker picks it up. */
  observeWait?: (seconds: number) => void;
  /** Least time between two pickups of one key (non-urgent adds wait); 0 or none: no spacing. */
  minIntervalMs?: number;
}

export class KeyQueue {
  private readonly queue: string[] = [];
  private readonly urgent: string[] = [];
  private readonly queued = new Set<string>();
  private readonly urgentWhenDone = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly dirtyWhileProcessing = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  /** Pending `addSoon`s, dropped when a worker picks the key up. */
  private readonly soon = new Map<string, NodeJS.Timeout>();
  /** When each pending key was first added (clock ms), for observeWait. */
  private readonly addedAt = new Map<string, number>();
  /**
   * When keys were last picked up (clock ms), oldest first; only those within `minIntervalMs`
   * (older ones are pruned as keys are picked up, so 10,000 quiet keys hold nothing here).
   */
  private readonly lastPickup = new Map<string, number>();
  /** Adds held back by `minIntervalMs`, each added when its interval ends. */
  private readonly spaced = new Map<string, NodeJS.Timeout>();
  private readonly waiters: ((key: string | undefined) => void)[] = [];
  private shuttingDown = false;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(private readonly opts: QueueOptions) {
    this.baseDelayMs = opts.baseDelayMs ?? 50;
    this.maxDelayMs = opts.maxDelayMs ?? 60_000;
  }

  get length(): number {
    return this.queue.length + this.urgent.length;
  }

  add(key: string, opts: { urgent?: boolean } = {}): void {
    if (this.shuttingDown) return;
    if (!this.addedAt.has(key)) this.addedAt.set(key, this.opts.clock.now());
    if (!opts.urgent && !this.processing.has(key) && !this.queued.has(key) && this.hold(key)) return;
    this.enter(key, opts);
  }

  /**
   * True when `key` was picked up less than `minIntervalMs` ago: its add is held until the
   * interval ends (once; later adds join it). The timer adds it without asking again, so a
   * clock that does not move (tests) cannot hold a key forever.
   */
  private hold(key: string): boolean {
    if (this.spaced.has(key)) return true;
    const min = this.opts.minIntervalMs ?? 0;
    const last = this.lastPickup.get(key);
    if (min <= 0 || last === undefined) return false;
    const wait = last + min - this.opts.clock.now();
    if (wait <= 0) return false;
    const timer = setTimeout(() => {
      this.spaced.delete(key);
      this.enter(key, {});
    }, wait);
    timer.unref?.();
    this.spaced.set(key, timer);
    return true;
  }

  private enter(key: string, opts: { urgent?: boolean }): void {
    if (this.shuttingDown) return;
    if (this.processing.has(key)) {
      this.dirtyWhileProcessing.add(key);
      if (opts.urgent) this.urgentWhenDone.add(key);
      return;
    }
    if (this.queued.has(key)) {
      if (!opts.urgent) return;
      const at = this.queue.indexOf(key);
      if (at < 0) return; // already urgent
      this.queue.splice(at, 1);
      this.urgent.push(key);
      return;
    }
    const waiter = this.waiters.shift();
    if (waiter) {
      this.pickedUp(key);
      waiter(key);
      return;
    }
    this.queued.add(key);
    (opts.urgent ? this.urgent : this.queue).push(key);
  }

  /** Adds the key after `delayMs`; an earlier pending add of the same key wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const at = this.opts.clock.now() + delayMs;
    const existing = this.timers.get(key);
    if (existing && existing.at <= at) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref?.();
    this.timers.set(key, { at, timer });
  }

  /**
   * Adds the key after at most `delayMs`, unless a worker picks it up before (that sync sees
   * what the caller saw). A key already queued, or with a pending `addSoon`, is left as it is.
   */
  addSoon(key: string, delayMs: number): void {
    if (this.shuttingDown || this.queued.has(key) || this.soon.has(key) || this.spaced.has(key)) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const timer = setTimeout(() => {
      this.soon.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref?.();
    this.soon.set(key, timer);
  }

  /** Re-queues a failed key with per-key exponential backoff; returns the delay used. */
  addRateLimited(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    const delay = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** n);
    this.addAfter(key, delay);
    return delay;
  }

  /** Forgets the failure count of a key after a successful sync. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  /** Resolves with the next key to process, or undefined once the queue shuts down. */
  get(): Promise<string | undefined> {
    // Shutting down: running syncs finish, queued keys wait for the next process (or leader).
    if (this.shuttingDown) return Promise.resolve(undefined);
    const key = this.urgent.shift() ?? this.queue.shift();
    if (key !== undefined) {
      this.queued.delete(key);
      this.pickedUp(key);
      return Promise.resolve(key);
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private pickedUp(key: string): void {
    this.processing.add(key);
    const soon = this.soon.get(key);
    if (soon !== undefined) {
      clearTimeout(soon);
      this.soon.delete(key);
    }
    // An urgent add may pass a held one: the sync it starts sees what the held add would.
    const held = this.spaced.get(key);
    if (held !== undefined) {
      clearTimeout(held);
      this.spaced.delete(key);
    }
    const min = this.opts.minIntervalMs ?? 0;
    if (min > 0) {
      const now = this.opts.clock.now();
      this.lastPickup.delete(key);
      this.lastPickup.set(key, now);
      for (const [k, at] of this.lastPickup) {
        if (now - at < min) break;
        this.lastPickup.delete(k);
      }
    }
    const at = this.addedAt.get(key);
    this.addedAt.delete(key);
    if (at !== undefined) this.opts.observeWait?.(Math.max(0, this.opts.clock.now() - at) / 1000);
  }

  /** Marks a key processed; if it changed meanwhile, it is queued again. */
  done(key: string): void {
    this.processing.delete(key);
    const urgent = this.urgentWhenDone.delete(key);
    if (this.dirtyWhileProcessing.delete(key)) this.add(key, { urgent });
  }

  get isShutDown(): boolean {
    return this.shuttingDown;
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const timer of this.soon.values()) clearTimeout(timer);
    this.soon.clear();
    for (const timer of this.spaced.values()) clearTimeout(timer);
    this.spaced.clear();
    this.lastPickup.clear();
    this.addedAt.clear();
    for (const w of this.waiters.splice(0)) w(undefined);
  }
}
