/** The JSON record every benchmark writes: machine, load, parameters, results with units. */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { cpus, freemem, loadavg, totalmem } from "node:os";
import { join } from "node:path";

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  freeMemoryGiB: number;
  node: string;
  platform: string;
  loadavg: number[];
}

export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    cpus: list.length,
    cpuModel: list[0]?.model ?? "unknown",
    memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)),
    freeMemoryGiB: Number((freemem() / 2 ** 30).toFixed(1)),
    node: process.version,
    platform: `${process.platform}/${process.arch}`,
    loadavg: loadavg().map((l) => Number(l.toFixed(2))),
  };
}

export interface BenchRecord {
  benchmark: string;
  backend: string;
  scale: string;
  command: string;
  /** The last commit that changed the code measured (src/, bench/ but its results); "-dirty" with local changes. */
  commit?: string;
  startedAt: string;
  durationSeconds: number;
  machine: { start: MachineInfo; loadavgEnd: number[] };
  /** `node --version` of the binary that ran the controller (`--controller-node`). */
  controllerNode?: string;
  /** What the backend was (server version, how it ran). */
  server: Record<string, unknown>;
  parameters: Record<string, unknown>;
  results: Record<string, unknown>;
  notes: string[];
}

/** Writes `<out>/<benchmark>-<backend>.json` atomically (a tmp file, then rename). */
export function writeRecord(outDir: string, record: BenchRecord): string {
  mkdirSync(outDir, { recursive: true });
  const path = join(outDir, `${record.benchmark}-${record.backend}.json`);
  const tmp = `${path.slice(0, -".json".length)}.tmp.json`;
  writeFileSync(tmp, `${JSON.stringify(record, null, 2)}\n`);
  renameSync(tmp, path);
  return path;
}

export function readRecord(path: string): BenchRecord {
  return JSON.parse(readFileSync(path, "utf8")) as BenchRecord;
}
