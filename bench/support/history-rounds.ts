/**
 * The timed rounds of the history comparison (bench/history-compare.ts), for one side at a
 * time on one API server:
 * - versions: with every set settled, the side's controller is paused (SIGSTOP), one template
 *   change per set is written, and the clock starts as the controller resumes (SIGCONT); done
 *   when every set has a new history object and a status caught up with it (history-status.ts).
 *   Times are when the benchmark's watches delivered the events; the controller's CPU is read
 *   from /proc at that moment.
 * - GC: one set with `count` excess history objects (limit above them), the controller quiet
 *   again, then revisionHistoryLimit 0; done when at most `keptAfterGc` remain.
 * The controller's idle rate, measured before each round, is reported beside its CPU.
 */
import { auditWrites, countByKind } from "./audit.js";
import type { Backend } from "./backends.js";
import { type CpuSample, coresBetween, type PerUnit, perUnit, quiet } from "./cpu-per-change.js";
import type { Side } from "./history-sides.js";
import {
  caughtUp,
  type HistoryObject,
  historyOwner,
  type SetObject,
  settled,
  updateMarker,
} from "./history-status.js";
import { type KubeObject, type ObjectEvent, ObjectWatch } from "./object-watch.js";
import { pauseProcess } from "./pause.js";
import { imagePatch, MERGE_PATCH } from "./petsets.js";
import { readProc } from "./proc.js";
import { runPool, sleep } from "./stats.js";

/** A controller using at most this much CPU over 2 s is quiet (kube-controller-manager idles at ~0.025). */
const QUIET_CORES = 0.05;

type SetObj = SetObject & KubeObject;
type HistObj = HistoryObject & KubeObject;
type Listener = (what: "set" | "history", type: ObjectEvent, o: KubeObject, at: number) => void;

/** Watches of one side's sets and history objects in one namespace, with history counts per owner. */
export interface SideWatches {
  sets: ObjectWatch<SetObj>;
  history: ObjectWatch<HistObj>;
  historyCount: Map<string, number>;
  listener?: Listener;
  stop(): void;
}

export async function openWatches(b: Backend, side: Side, ns: string): Promise<SideWatches> {
  const w: Partial<SideWatches> & { historyCount: Map<string, number> } = { historyCount: new Map() };
  const sets = new ObjectWatch<SetObj>(b.http, side.setsPath(ns), (type, o, at) =>
    w.listener?.("set", type, o, at),
  );
  const history = new ObjectWatch<HistObj>(b.http, side.historyPath(ns), (type, o, at) => {
    const owner = historyOwner(o);
    if (owner !== undefined && type !== "MODIFIED")
      w.historyCount.set(owner, (w.historyCount.get(owner) ?? 0) + (type === "ADDED" ? 1 : -1));
    w.listener?.("history", type, o, at);
  });
  await sets.start();
  await history.start();
  return Object.assign(w, {
    sets,
    history,
    stop() {
      sets.stop();
      history.stop();
    },
  });
}

/** Average cores `pid` uses over `ms`. */
export async function idleCores(pid: number, ms = 3_000): Promise<number> {
  const a: CpuSample = { atMs: performance.now(), cpuSeconds: readProc(pid).cpuSeconds };
  await sleep(ms);
  return coresBetween([a, { atMs: performance.now(), cpuSeconds: readProc(pid).cpuSeconds }]);
}

/** CPU seconds so far of the API server (and etcd on real). */
function serverCpu(b: Backend): number {
  return [b.apiServerPid, b.storagePid]
    .filter((p): p is number => p !== undefined)
    .reduce((sum, p) => sum + readProc(p).cpuSeconds, 0);
}

const allSettled = (w: SideWatches, names: readonly string[]) => () =>
  names.every((n) => {
    const o = w.sets.live.get(n);
    return o !== undefined && settled(o);
  });

/** Creates the sets (replicas 0), 8 at a time, and waits until the controller settled each. */
export async function createSets(
  b: Backend,
  side: Side,
  w: SideWatches,
  ns: string,
  names: readonly string[],
  revisionHistoryLimit?: number,
): Promise<void> {
  await runPool(names.length, 8, async (i) => {
    const name = names[i] ?? "";
    await b.http.jsonRetry(
      "POST",
      side.setsPath(ns),
      side.manifest(name, "registry.example/app:r0", revisionHistoryLimit),
    );
  });
  const ok = await w.sets.until(allSettled(w, names), 120_000 + names.length * 200);
  if (!ok) throw new Error(`${side.name}: the sets did not settle after creation`);
}

/** Writes of the side's controller into `ns` between two epoch times (real backend only). */
async function writesOf(b: Backend, side: Side, ns: string, from: number, to: number) {
  if (!b.clusterDir) return undefined;
  const mine = (await auditWrites(b.clusterDir, ns, from, to + 1_000)).filter(
    (x) => x.user === side.auditUser,
  );
  return { total: mine.length, byKind: countByKind(mine) };
}

export interface VersionsRound {
  side: string;
  sets: number;
  /** SIGCONT until every set has its new history object and its status caught up. */
  seconds: number;
  /** SIGCONT until every set's new history object was seen. */
  historySeconds: number;
  notRecorded: number;
  /** How long the controller took to be quiet before the round (not timed). */
  quietSeconds: number;
  controllerCpuSeconds: number;
  controllerIdleCores: number;
  perChange: PerUnit;
  /** SIGCONT until the controller was quiet again (at most 0.05 cores over 2 s), and its CPU per change by then. */
  untilQuietSeconds: number;
  perChangeUntilQuiet: PerUnit;
  serverCpuMsPerChange: number;
  writes?: { total: number; byKind: Record<string, number> };
}

/** One template change per set with the controller paused; timed from its resumption. */
export async function versionsRound(
  b: Backend,
  side: Side,
  w: SideWatches,
  ns: string,
  names: readonly string[],
  image: string,
): Promise<VersionsRound> {
  if (!(await w.sets.until(allSettled(w, names), 300_000))) throw new Error(`${side.name}: sets not settled`);
  // Settled statuses can come before the controller's follow-up work (Events, its own writes'
  // watch events): wait until its CPU is quiet, so that work is not counted in this round.
  const quietSeconds = await secondsUntilCpuQuiet(side.pid, QUIET_CORES, 120_000);
  const idle = await idleCores(side.pid);
  const previous = new Map(
    names.map((n) => [n, updateMarker(w.sets.live.get(n) ?? { metadata: { name: n } })]),
  );
  const known = new Set(w.history.live.keys());
  const generation = new Map<string, number>();
  const statusAt = new Map<string, number>();
  const historyAt = new Map<string, number>();
  let t0 = Number.POSITIVE_INFINITY;
  let end: { at: number; cpu: number; server: number } | undefined;
  let finished: () => void = () => {};
  const done = new Promise<void>((r) => {
    finished = r;
  });
  const check = (at: number) => {
    if (end || statusAt.size < names.length || historyAt.size < names.length) return;
    end = { at, cpu: readProc(side.pid).cpuSeconds, server: serverCpu(b) };
    finished();
  };
  w.listener = (what, type, o, at) => {
    const name = o.metadata.name;
    if (what === "set") {
      const gen = generation.get(name);
      if (gen !== undefined && !statusAt.has(name) && caughtUp(o as SetObj, gen, previous.get(name))) {
        statusAt.set(name, at);
        check(at);
      }
    } else if (type === "ADDED" && !known.has(name)) {
      const owner = historyOwner(o as HistObj);
      if (owner !== undefined && generation.has(owner) && !historyAt.has(owner) && at >= t0) {
        historyAt.set(owner, at);
        check(at);
      }
    }
  };
  const paused = await pauseProcess(side.pid, side.name);
  let cpu0: number;
  let server0: number;
  let epoch0: number;
  try {
    await runPool(names.length, 16, async (i) => {
      const name = names[i] ?? "";
      const written = await b.http.jsonRetry<{ metadata: { generation: number } }>(
        "PATCH",
        `${side.setsPath(ns)}/${name}`,
        imagePatch(name, image),
        MERGE_PATCH,
      );
      generation.set(name, written.metadata.generation);
    });
  } finally {
    cpu0 = readProc(side.pid).cpuSeconds;
    server0 = serverCpu(b);
    epoch0 = Date.now();
    t0 = performance.now();
    paused.resume();
  }
  const ok = await Promise.race([
    done.then(() => true),
    sleep(120_000 + names.length * 200).then(() => false),
  ]);
  w.listener = undefined;
  const stop = end ?? { at: performance.now(), cpu: readProc(side.pid).cpuSeconds, server: serverCpu(b) };
  const seconds = (stop.at - t0) / 1000;
  const cpu = stop.cpu - cpu0;
  // The work a controller does after the statuses caught up (Events, its own writes' events)
  // is part of what a change costs it: CPU from SIGCONT until it is quiet again.
  await secondsUntilCpuQuiet(side.pid, QUIET_CORES, 120_000);
  const tailSeconds = (performance.now() - t0) / 1000;
  const cpuUntilQuiet = readProc(side.pid).cpuSeconds - cpu0;
  const histories = [...historyAt.values()];
  return {
    side: side.name,
    sets: names.length,
    seconds: ok ? seconds : Number.NaN,
    historySeconds: histories.length === names.length ? (Math.max(...histories) - t0) / 1000 : Number.NaN,
    notRecorded: names.length - Math.min(statusAt.size, historyAt.size),
    quietSeconds,
    controllerCpuSeconds: cpu,
    controllerIdleCores: idle,
    perChange: perUnit(cpu, seconds, names.length, idle),
    untilQuietSeconds: tailSeconds,
    perChangeUntilQuiet: perUnit(cpuUntilQuiet, tailSeconds, names.length, idle),
    serverCpuMsPerChange: ((stop.server - server0) * 1000) / names.length,
    writes: await writesOf(b, side, ns, epoch0, epoch0 + seconds * 1000),
  };
}

export interface GcRound {
  side: string;
  excess: number;
  before: number;
  deleted: number;
  seconds: number;
  completed: boolean;
  /** How long the controller took to be quiet again after the copies were made (not timed). */
  digestSeconds: number;
  controllerCpuSeconds: number;
  controllerIdleCores: number;
  perDeletion: PerUnit;
  serverCpuMsPerDeletion: number;
  writes?: { total: number; byKind: Record<string, number> };
}

/** Seconds until `pid` used at most `maxCores` over 2 s (sampled every 250 ms), up to `deadlineMs`. */
async function secondsUntilCpuQuiet(pid: number, maxCores: number, deadlineMs: number): Promise<number> {
  const t0 = performance.now();
  const samples: CpuSample[] = [];
  while (performance.now() - t0 < deadlineMs) {
    samples.push({ atMs: performance.now(), cpuSeconds: readProc(pid).cpuSeconds });
    if (quiet(samples, 2_000, maxCores)) break;
    await sleep(250);
  }
  return (performance.now() - t0) / 1000;
}

/** GC of `excess` history objects of one set, from the moment revisionHistoryLimit goes to 0. */
export async function gcRound(
  b: Backend,
  side: Side,
  w: SideWatches,
  ns: string,
  excess: number,
): Promise<GcRound> {
  const name = `${side.prefix}gc`;
  await createSets(b, side, w, ns, [name], excess + 10);
  await secondsUntilCpuQuiet(side.pid, QUIET_CORES, 120_000);
  const idle = await idleCores(side.pid);
  await side.makeHistoryCopies(b, ns, name, excess);
  const owned = () => w.historyCount.get(name) ?? 0;
  if (!(await w.history.until(() => owned() >= excess + 1, 120_000)))
    throw new Error(`${side.name}: ${owned()} of ${excess + 1} history objects seen`);
  const digestSeconds = await secondsUntilCpuQuiet(side.pid, Math.max(QUIET_CORES, idle * 1.5), 600_000);
  const before = owned();
  let end: { at: number; cpu: number; server: number } | undefined;
  let finished: () => void = () => {};
  const done = new Promise<void>((r) => {
    finished = r;
  });
  w.listener = (what, type, _o, at) => {
    if (what !== "history" || type !== "DELETED" || end || owned() > side.keptAfterGc) return;
    end = { at, cpu: readProc(side.pid).cpuSeconds, server: serverCpu(b) };
    finished();
  };
  const cpu0 = readProc(side.pid).cpuSeconds;
  const server0 = serverCpu(b);
  const epoch0 = Date.now();
  const t0 = performance.now();
  await b.http.json(
    "PATCH",
    `${side.setsPath(ns)}/${name}`,
    { spec: { revisionHistoryLimit: 0 } },
    MERGE_PATCH,
  );
  const completed = await Promise.race([done.then(() => true), sleep(900_000).then(() => false)]);
  w.listener = undefined;
  const stop = end ?? { at: performance.now(), cpu: readProc(side.pid).cpuSeconds, server: serverCpu(b) };
  const seconds = (stop.at - t0) / 1000;
  const deleted = before - owned();
  return {
    side: side.name,
    excess,
    before,
    deleted,
    seconds,
    completed,
    digestSeconds,
    controllerCpuSeconds: stop.cpu - cpu0,
    controllerIdleCores: idle,
    perDeletion: perUnit(stop.cpu - cpu0, seconds, deleted, idle),
    serverCpuMsPerDeletion: ((stop.server - server0) * 1000) / Math.max(1, deleted),
    writes: await writesOf(b, side, ns, epoch0, epoch0 + seconds * 1000),
  };
}
