/**
 * The arithmetic of the history comparison (bench/history-compare.ts), kept pure so it is
 * table-tested (test/unit/bench/cpu-per-change.test.ts): a controller's CPU per recorded change
 * or deletion, with and without its idle rate over the same wall time; when a process counts
 * as quiet again; ratios and medians of the runs.
 */

export interface CpuSample {
  /** performance.now(), ms */
  atMs: number;
  /** the process's user + system CPU seconds so far */
  cpuSeconds: number;
}

export interface PerUnit {
  /** CPU ms per unit (change, deletion). */
  cpuMs: number;
  /** The same less the process's idle rate over the timed seconds (never below 0). */
  cpuMsAboveIdle: number;
}

/**
 * CPU per unit of work: `cpuSeconds` used over `seconds` of wall time for `units`; `idleCores`
 * is what the process uses doing nothing (kube-controller-manager runs other controllers, a
 * Node process its timers), measured before the work.
 */
export function perUnit(cpuSeconds: number, seconds: number, units: number, idleCores: number): PerUnit {
  if (units <= 0) return { cpuMs: Number.NaN, cpuMsAboveIdle: Number.NaN };
  const above = Math.max(0, cpuSeconds - idleCores * seconds);
  return { cpuMs: (cpuSeconds * 1000) / units, cpuMsAboveIdle: (above * 1000) / units };
}

/** Average cores between the first and the last sample (0 with fewer than two). */
export function coresBetween(samples: readonly CpuSample[]): number {
  const first = samples[0];
  const last = samples.at(-1);
  if (!first || !last || last.atMs <= first.atMs) return 0;
  return (last.cpuSeconds - first.cpuSeconds) / ((last.atMs - first.atMs) / 1000);
}

/**
 * Quiet: the samples span at least `windowMs` back from the last one, and over that window the
 * process used at most `maxCores` on average. Samples are in time order.
 */
export function quiet(samples: readonly CpuSample[], windowMs: number, maxCores: number): boolean {
  const last = samples.at(-1);
  if (!last) return false;
  let from: CpuSample | undefined;
  for (let i = samples.length - 1; i >= 0; i--) {
    const s = samples[i];
    if (s && last.atMs - s.atMs >= windowMs) {
      from = s;
      break;
    }
  }
  if (!from) return false;
  return coresBetween([from, last]) <= maxCores;
}

/** a / b, NaN when either is not a positive finite number. */
export function ratio(a: number, b: number): number {
  return Number.isFinite(a) && Number.isFinite(b) && b > 0 && a >= 0 ? a / b : Number.NaN;
}

/** Median of the values (NaN when empty); the mean of the middle two for an even count. */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? Number.NaN) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}
