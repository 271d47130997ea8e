import { describe, expect, it, vi } from "vitest";
import {
  isLeaseLost,
  LeaseFence,
  LeaseLostError,
  unfencedGuard,
  writeSignal,
} from "../../../src/controller/lease-guard.js";

function fence(validForMs = 10_000) {
  let now = 0;
  const f = new LeaseFence({ now: () => now }, validForMs);
  return { f, advance: (ms: number) => (now += ms), at: (t: number) => (now = t) };
}

describe("LeaseFence", () => {
  it("refuses writes before the Lease is first held", () => {
    const { f } = fence();
    expect(() => f.check()).toThrow(LeaseLostError);
    expect(f.remainingMs()).toBe(0);
  });

  it("lets writes through until validFor after the renew was sent, measured from sending", () => {
    const { f, at } = fence(10_000);
    at(1_000);
    f.renewed(500); // the renew request left at t=500 and returned at t=1000
    at(10_499);
    expect(() => f.check()).not.toThrow();
    expect(f.remainingMs()).toBe(1);
    at(10_500);
    expect(() => f.check()).toThrow(/not sure the Lease is held/);
  });

  it("a frozen process that wakes after validFor writes nothing, even before its elector runs", () => {
    const { f, at } = fence(3_000);
    f.renewed(0);
    at(60_000); // SIGSTOP for a minute, then SIGCONT
    expect(() => f.check()).toThrow(LeaseLostError);
  });

  it("an older renew never extends a newer one", () => {
    const { f, at } = fence(1_000);
    f.renewed(500);
    f.renewed(100);
    at(1_400);
    expect(() => f.check()).not.toThrow();
  });

  it("losing aborts the signal and refuses for good, even after a late renew", () => {
    const { f } = fence();
    f.renewed(0);
    f.lose("renew deadline passed");
    expect(f.signal.aborted).toBe(true);
    expect(isLeaseLost(f.signal.reason)).toBe(true);
    f.renewed(1);
    expect(() => f.check()).toThrow(/renew deadline passed/);
  });
});

describe("writeSignal", () => {
  // On fake timers: with real ones, a timer armed from libuv's cached loop time fired a few ms
  // before performance.now() said the fence had run out (a fresh-clone make test, under load).
  it("aborts a write still waiting when the time the fence allowed runs out", () => {
    vi.useFakeTimers();
    try {
      const clock = { now: () => Date.now() };
      const f = new LeaseFence(clock, 40);
      f.renewed(clock.now());
      const signal = writeSignal(f);
      vi.advanceTimersByTime(39);
      expect(signal.aborted).toBe(false);
      expect(() => f.check()).not.toThrow();
      vi.advanceTimersByTime(1);
      expect(signal.aborted).toBe(true);
      expect(() => f.check()).toThrow(LeaseLostError);
    } finally {
      vi.useRealTimers();
    }
  });

  it("aborts at once on lease loss; never without leader election", () => {
    const f = new LeaseFence({ now: () => 0 }, 10_000);
    f.renewed(0);
    const signal = writeSignal(f);
    f.lose("renew deadline passed");
    expect(signal.aborted).toBe(true);
    expect(writeSignal(unfencedGuard)).toBe(unfencedGuard.signal);
  });

  // Seen in `petset demo` (its output must be clean): 11 writes in flight printed Node's
  // MaxListenersExceededWarning on the user's terminal.
  it("many writes in flight at once print no MaxListenersExceededWarning", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    try {
      const f = new LeaseFence({ now: () => 0 }, 10_000);
      f.renewed(0);
      const signals = Array.from({ length: 50 }, () => writeSignal(f));
      await new Promise((resolve) => setImmediate(resolve));
      expect(signals.every((s) => !s.aborted)).toBe(true);
      expect(warnings).toEqual([]);
      f.lose("done");
      expect(signals.every((s) => s.aborted)).toBe(true);
      // Without leader election (petset dev, petset demo) every write shares one signal.
      for (let i = 0; i < 50; i++) writeSignal(unfencedGuard).addEventListener("abort", () => {});
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });
});
