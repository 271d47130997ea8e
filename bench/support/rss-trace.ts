/**
 * A process's RSS over a whole run, sampled from /proc every 250 ms (issue 29: "≤ 300 MiB in
 * every sample of the run, not one"). The process may be replaced (a controller stopped and
 * started again): `follow(pid, phase)` moves the trace to it, and each phase keeps its own
 * count, maximum and samples above the limit, so a record states the maximum over the whole
 * run, not one reading after the fact. The kernel's high-water mark (VmHWM, the peak RSS of the
 * process's whole life) is read with every sample too: it covers what happened before the
 * trace could follow the process (a controller is followed once it is ready) and between
 * samples.
 */
import { readProc } from "./proc.js";
import { type Measurement, m } from "./stats.js";

const MiB = 1024 * 1024;

interface Phase {
  samples: number;
  maxBytes: number;
  hwmBytes: number;
  aboveLimit: number;
  startedAt: number;
  seconds: number;
}

export class RssTrace {
  private timer: NodeJS.Timeout | undefined;
  private pid: number | undefined;
  private phase: Phase | undefined;
  private readonly phases = new Map<string, Phase>();

  constructor(
    private readonly limitMiB: number,
    private readonly intervalMs = 250,
  ) {}

  /** Samples `pid` from now on, counted under `phase` (a phase may be followed again). */
  follow(pid: number, phase: string): void {
    this.close();
    this.pid = pid;
    let p = this.phases.get(phase);
    if (p === undefined) {
      p = { samples: 0, maxBytes: 0, hwmBytes: 0, aboveLimit: 0, startedAt: 0, seconds: 0 };
      this.phases.set(phase, p);
    }
    p.startedAt = performance.now();
    this.phase = p;
    this.sample();
    this.timer ??= setInterval(() => this.sample(), this.intervalMs);
  }

  private sample(): void {
    if (this.pid === undefined || this.phase === undefined) return;
    let rss: number;
    let hwm: number;
    try {
      ({ rssBytes: rss, hwmBytes: hwm } = readProc(this.pid));
    } catch {
      return; // the process exited; the next follow() names its successor
    }
    if (rss === 0) return; // a zombie between exit and reaping reports no VmRSS
    this.phase.samples++;
    this.phase.hwmBytes = Math.max(this.phase.hwmBytes, hwm);
    this.phase.maxBytes = Math.max(this.phase.maxBytes, rss);
    if (rss > this.limitMiB * MiB) this.phase.aboveLimit++;
  }

  private close(): void {
    if (this.phase !== undefined) this.phase.seconds += (performance.now() - this.phase.startedAt) / 1000;
    this.phase = undefined;
  }

  /** Stops sampling; per phase and over the whole run: samples, max RSS, samples above the limit. */
  stop(): Record<string, unknown> {
    if (this.timer !== undefined) {
      this.sample();
      this.close();
      clearInterval(this.timer);
      this.timer = undefined;
      this.pid = undefined;
    }
    const out: Record<string, unknown> = {};
    let all: Phase = { samples: 0, maxBytes: 0, hwmBytes: 0, aboveLimit: 0, startedAt: 0, seconds: 0 };
    for (const [name, p] of this.phases) {
      out[name] = summary(p, this.limitMiB);
      all = {
        samples: all.samples + p.samples,
        maxBytes: Math.max(all.maxBytes, p.maxBytes),
        hwmBytes: Math.max(all.hwmBytes, p.hwmBytes),
        aboveLimit: all.aboveLimit + p.aboveLimit,
        startedAt: 0,
        seconds: all.seconds + p.seconds,
      };
    }
    return {
      intervalMs: this.intervalMs,
      limit: m(this.limitMiB, "MiB"),
      wholeRun: summary(all, this.limitMiB),
      ...out,
    };
  }
}

function summary(p: Phase, limitMiB: number): Record<string, Measurement | number> {
  return {
    samples: p.samples,
    seconds: m(p.seconds, "s"),
    maxRss: m(p.maxBytes / MiB, "MiB"),
    peakRssHwm: m(p.hwmBytes / MiB, "MiB"),
    [`samplesAbove${limitMiB}MiB`]: p.aboveLimit,
  };
}
