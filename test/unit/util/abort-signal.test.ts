/**
 * Regression: a deadline that survives garbage collection. On Node 20,
 * `AbortSignal.any([s, AbortSignal.timeout(ms)])` never fires after a GC (the timeout signal is
 * held weakly), so a fenced write to a server that never answered hung a sync worker for good
 * (network-faults.test.ts, blackhole). `abortAfter` and the fence's `writeSignal` must fire.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { LeaseFence, writeSignal } from "../../../src/controller/lease-guard.js";
import { abortAfter } from "../../../src/util/abort-signal.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Resolves true when `make()`'s signal aborted within `waitMs`, with GCs in between. */
async function firesAfterGc(make: () => AbortSignal, waitMs: number): Promise<boolean> {
  let aborted = false;
  // Only the listener is kept, as node-fetch keeps nothing but its listener on a request's signal.
  make().addEventListener("abort", () => {
    aborted = true;
  });
  const deadline = Date.now() + waitMs;
  while (!aborted && Date.now() < deadline) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
  return aborted;
}

describe("abortAfter: a deadline that survives garbage collection", () => {
  it("fires after ms although nothing else holds it", async () => {
    expect(await firesAfterGc(() => abortAfter([new AbortController().signal], 100), 2_000)).toBe(true);
  });

  it("fires when a source aborts, with the source's reason", () => {
    const source = new AbortController();
    const s = abortAfter([source.signal], 60_000);
    source.abort(new Error("lost"));
    expect(s.aborted).toBe(true);
    expect((s.reason as Error).message).toBe("lost");
    expect(abortAfter([source.signal], 60_000).aborted).toBe(true);
  });

  it("regression: a fenced write's signal aborts when the fence's validity runs out", async () => {
    const fence = new LeaseFence({ now: () => performance.now() }, 150);
    fence.renewed(performance.now());
    expect(await firesAfterGc(() => writeSignal(fence), 2_000)).toBe(true);
  });
});

describe("abortAfter on a source shared by many requests (the Lease fence's signal)", () => {
  it("holds one listener on the source however many requests wait, and aborts each with its reason", async () => {
    const { EventEmitter } = await import("node:events");
    const source = new AbortController();
    const signals = Array.from({ length: 5_000 }, () => abortAfter([source.signal], 60_000));
    expect(EventEmitter.getEventListeners(source.signal, "abort").length).toBe(1);
    source.abort(new Error("lease lost"));
    expect(signals.every((s) => s.aborted && (s.reason as Error).message === "lease lost")).toBe(true);
  });

  it("a request past its deadline is no longer called when the source aborts later", async () => {
    const source = new AbortController();
    const early = abortAfter([source.signal], 1);
    await new Promise<void>((resolve) => early.addEventListener("abort", () => resolve()));
    expect((early.reason as DOMException).name).toBe("TimeoutError");
    const late = abortAfter([source.signal], 60_000);
    source.abort(new Error("lease lost"));
    expect((early.reason as DOMException).name).toBe("TimeoutError");
    expect(late.aborted).toBe(true);
  });
});
