/** Memory and CPU of a process from /proc (Linux), and a sampler for peaks and averages. */
import { readFileSync } from "node:fs";
import { type Measurement, m } from "./stats.js";

const CLOCK_TICKS = 100; // USER_HZ on Linux

export interface ProcSample {
  rssBytes: number;
  hwmBytes: number;
  /** user + system CPU time since the process started, seconds. */
  cpuSeconds: number;
}

export function readProc(pid: number): ProcSample {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0) * 1024;
  const stat = parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
  return { rssBytes: kib("VmRSS"), hwmBytes: kib("VmHWM"), cpuSeconds: stat.cpuSeconds };
}

/**
 * The state letter (R, S, T stopped, …) and user + system CPU seconds of one /proc/<pid>/stat
 * line. The command name (field 2) is in parentheses and may hold spaces and ")", so fields are
 * counted from the last ")".
 */
export function parseProcStat(stat: string): { state: string; cpuSeconds: number } {
  const close = stat.lastIndexOf(")");
  if (close < 0) throw new Error(`not a /proc/<pid>/stat line: ${stat.slice(0, 80)}`);
  const rest = stat.slice(close + 2).split(" ");
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime))
    throw new Error(`no utime/stime in /proc/<pid>/stat: ${stat.slice(0, 80)}`);
  return { state: rest[0] ?? "", cpuSeconds: (utime + stime) / CLOCK_TICKS };
}

/** The process's state letter from /proc (T: stopped by a signal). */
export function procState(pid: number): string {
  return parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8")).state;
}

const MiB = 1024 * 1024;

/** Samples a process every `intervalMs` between start() and stop(). */
export class ProcSampler {
  private timer: NodeJS.Timeout | undefined;
  private first: ProcSample | undefined;
  private last: ProcSample | undefined;
  private peakRss = 0;
  private startedAt = 0;
  private stoppedAt = 0;

  constructor(
    readonly pid: number,
    private readonly intervalMs = 250,
  ) {}

  start(): this {
    this.first = readProc(this.pid);
    this.peakRss = this.first.rssBytes;
    this.startedAt = performance.now();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    return this;
  }

  private sample(): void {
    try {
      const s = readProc(this.pid);
      this.last = s;
      this.peakRss = Math.max(this.peakRss, s.rssBytes);
    } catch {
      // the process exited; keep what we have
    }
  }

  /** CPU seconds used, average CPU (1.0 = one core), RSS at the end and its peak. */
  stop(): Record<string, Measurement> {
    this.sample();
    clearInterval(this.timer);
    this.stoppedAt = performance.now();
    const first = this.first ?? readProc(this.pid);
    const last = this.last ?? first;
    const cpu = last.cpuSeconds - first.cpuSeconds;
    const wall = (this.stoppedAt - this.startedAt) / 1000;
    return {
      cpuTime: m(cpu, "s"),
      cpuAverage: m(wall > 0 ? cpu / wall : 0, "cores"),
      rssStart: m(first.rssBytes / MiB, "MiB"),
      rssEnd: m(last.rssBytes / MiB, "MiB"),
      rssPeak: m(this.peakRss / MiB, "MiB"),
    };
  }
}

export function rssMiB(pid: number): Measurement {
  return m(readProc(pid).rssBytes / MiB, "MiB");
}
