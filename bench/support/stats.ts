/** Small statistics for benchmark samples. */

/** A number and its unit, the shape of every value in a result file. */
export interface Measurement {
  value: number;
  unit: string;
}

export const m = (value: number, unit: string): Measurement => ({ value: round(value), unit });

export function round(v: number): number {
  if (!Number.isFinite(v)) return v;
  const abs = Math.abs(v);
  const digits = abs >= 100 ? 1 : abs >= 1 ? 2 : 4;
  return Number(v.toFixed(digits));
}

/** Nearest-rank percentile (p in 0..100) of unsorted samples; NaN when empty. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] ?? Number.NaN;
}

/** p50, p99, max and count of latency samples in milliseconds. */
export function latencySummary(samplesMs: readonly number[]): Record<string, Measurement> {
  return {
    count: m(samplesMs.length, "samples"),
    p50: m(percentile(samplesMs, 50), "ms"),
    p99: m(percentile(samplesMs, 99), "ms"),
    max: m(samplesMs.length ? Math.max(...samplesMs) : Number.NaN, "ms"),
  };
}

/** Runs `task(i)` for i in [0, n) with at most `concurrency` in flight. */
export async function runPool(
  n: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= n) return;
      await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls until `check` returns a value, or throws after `timeoutMs` naming `what`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs: number,
  intervalMs = 100,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}
