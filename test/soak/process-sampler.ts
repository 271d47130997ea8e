/**
 * Samples of a process from /proc (resident memory, open file descriptors) and least-squares
 * slopes over time: what `make soak` reports to show that nothing grows without bound.
 */
import { readdirSync, readFileSync } from "node:fs";

export interface ProcessSample {
  rssKiB: number;
  fds: number;
}

export function sampleProcess(pid: number): ProcessSample | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const rss = /^VmRSS:\s+(\d+) kB/m.exec(status);
    return { rssKiB: Number(rss?.[1] ?? 0), fds: readdirSync(`/proc/${pid}/fd`).length };
  } catch {
    return undefined; // the process is gone
  }
}

/** Slope of y over t (t in ms) in units per hour, by least squares. */
export function slopePerHour(points: { t: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mt = points.reduce((a, p) => a + p.t, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.t - mt) * (p.y - my);
    den += (p.t - mt) ** 2;
  }
  return den === 0 ? 0 : (num / den) * 3_600_000;
}

export interface SeriesSummary {
  first: number;
  last: number;
  min: number;
  max: number;
  mean: number;
  /** Per hour, over the samples after warm-up. */
  slopePerHour: number;
}

export function summarize(points: { t: number; y: number }[], warmUpFraction: number): SeriesSummary {
  const ys = points.map((p) => p.y);
  const steady = points.slice(Math.floor(points.length * warmUpFraction));
  return {
    first: ys[0] ?? 0,
    last: ys.at(-1) ?? 0,
    min: Math.min(...ys),
    max: Math.max(...ys),
    mean: ys.reduce((a, b) => a + b, 0) / Math.max(1, ys.length),
    slopePerHour: Math.round(slopePerHour(steady) * 100) / 100,
  };
}
