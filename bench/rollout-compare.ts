/**
 * The rollout side by side with the built-in StatefulSet controller (issue 13), on one private
 * control plane started for it (test/cluster/up.sh, PETSET_CLUSTER_PROFILE=statefulset-bench:
 * kube-controller-manager runs only the controllers a StatefulSet needs, the
 * MaxUnavailableStatefulSet gate is on). Same pod template, same kwok stages, Parallel pod
 * management, maxUnavailable 1 and 10. For each maxUnavailable, `runs` rounds; each round runs
 * both, the order alternating, each in a fresh namespace deleted (and gone) before the next.
 * Both controllers are long-running, as deployed: kube-controller-manager runs throughout, and
 * one petset controller (every namespace) is started before the runs and warmed by unrecorded
 * runs (`--compare-warmups`, default 1; a Node process just started spends CPU compiling its
 * hot paths, a Go binary does not; that start-up is not what a user's long-running controller
 * costs per pet).
 * API writes per pet update and the kubelet's own time come from kube-apiserver's audit log
 * by user; CPU from /proc of the petset controller process and of kube-controller-manager.
 */
import { join } from "node:path";
import { AUDIT_USERS, auditWrites, countByKind, kubeletSeconds } from "./support/audit.js";
import { type Backend, readPid, startPrivateStatefulSetCluster } from "./support/backends.js";
import type { BenchContext } from "./support/bench.js";
import { imagePatch, MERGE_PATCH, petSetsPath, podTemplate } from "./support/petsets.js";
import { ProcSampler, readProc } from "./support/proc.js";
import { type ControllerProcess, metricIn, startController } from "./support/processes.js";
import { monotonicMicros, recordProfileWindow } from "./support/profile-windows.js";
import { secondsUntilSettled } from "./support/settled.js";
import { type Measurement, m, waitFor } from "./support/stats.js";

const FROM = "nginx:1.26";
const TO = "nginx:1.27";
const NAME = "web";

type Kind = "petset" | "statefulset";

interface RunResult {
  wallSeconds: number;
  writes: number;
  writesByKind: Record<string, number>;
  cpuSeconds: number;
  kubeletSeconds: number;
  /** petset only: syncs the controller ran over the rollout (petset_syncs_total). */
  syncs?: number;
  /** petset only: watch events its caches took over the rollout, by resource (petset_watch_events_total). */
  watchEvents?: Record<string, number>;
}

function manifest(kind: Kind, pets: number, maxUnavailable: number, image: string) {
  const spec = {
    replicas: pets,
    serviceName: NAME,
    selector: { matchLabels: { app: NAME } },
    podManagementPolicy: "Parallel",
    updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable } },
    template: podTemplate(NAME, image),
  };
  return kind === "petset"
    ? { apiVersion: "petset.dev/v1alpha1", kind: "PetSet", metadata: { name: NAME }, spec }
    : { apiVersion: "apps/v1", kind: "StatefulSet", metadata: { name: NAME }, spec };
}

function collection(kind: Kind, ns: string): string {
  return kind === "petset" ? petSetsPath(ns) : `/apis/apps/v1/namespaces/${ns}/statefulsets`;
}

async function namespaceGone(backend: Backend, ns: string): Promise<void> {
  await backend.deleteNamespace(ns);
  await waitFor(
    `namespace ${ns} gone`,
    async () =>
      (await backend.http.request("GET", `/api/v1/namespaces/${ns}`)).status === 404 ? true : undefined,
    180_000,
    250,
  );
}

async function oneRun(
  ctx: BenchContext,
  cluster: Backend,
  kind: Kind,
  pets: number,
  maxUnavailable: number,
  petset: ControllerProcess,
): Promise<RunResult> {
  const petsetPid = petset.pid;
  const clusterDir = cluster.clusterDir ?? "";
  const ns = await cluster.namespace(`cmp-${kind === "petset" ? "ps" : "sts"}-${maxUnavailable}`);
  const pid = kind === "petset" ? petsetPid : readPid("kube-controller-manager", clusterDir);
  const base = collection(kind, ns);
  const path = `${base}/${NAME}`;
  try {
    await cluster.http.json("POST", base, manifest(kind, pets, maxUnavailable, FROM));
    await secondsUntilSettled(cluster, path, pets, { perPetMs: 5_000, pollMs: 50 });
    const from = Date.now();
    const before = kind === "petset" ? await petset.metricsText() : "";
    const syncs0 = metricIn(before, "petset_syncs_total");
    const cpu0 = readProc(pid).cpuSeconds;
    const windowStart = monotonicMicros();
    const sampler = new ProcSampler(pid).start();
    await cluster.http.json("PATCH", path, imagePatch(NAME, TO), MERGE_PATCH);
    const wallSeconds = await secondsUntilSettled(cluster, path, pets, { perPetMs: 5_000, pollMs: 50 });
    sampler.stop();
    if (ctx.controllerCpuProfDir !== undefined && kind === "petset")
      recordProfileWindow(ctx.controllerCpuProfDir, `${kind} maxUnavailable ${maxUnavailable}`, windowStart);
    const cpuSeconds = readProc(pid).cpuSeconds - cpu0;
    const after = kind === "petset" ? await petset.metricsText() : undefined;
    const syncs = after !== undefined ? metricIn(after, "petset_syncs_total") - syncs0 : undefined;
    const watchEvents = after !== undefined ? watchEventsBetween(before, after) : undefined;
    // Writes that land after the status said "done" (a last status write) count too.
    await new Promise((r) => setTimeout(r, 2_000));
    const all = await auditWrites(clusterDir, ns, from, Date.now());
    const user = kind === "petset" ? AUDIT_USERS.petset : AUDIT_USERS.statefulset;
    const mine = all.filter((w) => w.user === user);
    const r: RunResult = {
      wallSeconds,
      writes: mine.length,
      writesByKind: countByKind(mine),
      cpuSeconds,
      kubeletSeconds: kubeletSeconds(all, user),
      ...(syncs !== undefined ? { syncs } : {}),
      ...(watchEvents !== undefined ? { watchEvents } : {}),
    };
    ctx.log(
      `${kind} maxUnavailable ${maxUnavailable}: ${wallSeconds.toFixed(1)} s, ${r.writes} writes (${(r.writes / pets).toFixed(2)}/pet), cpu ${cpuSeconds.toFixed(2)} s`,
    );
    return r;
  } finally {
    await namespaceGone(cluster, ns);
  }
}

/** petset_watch_events_total between two scrapes, by resource (whatever caches the controller has). */
function watchEventsBetween(before: string, after: string): Record<string, number> {
  const byResource = (text: string) => {
    const sums: Record<string, number> = {};
    for (const m of text.matchAll(/^petset_watch_events_total\{resource="([^"]+)"[^}]*\} (\S+)$/gm))
      sums[m[1] ?? ""] = (sums[m[1] ?? ""] ?? 0) + Number(m[2]);
    return sums;
  };
  const was = byResource(before);
  const out: Record<string, number> = {};
  for (const [resource, n] of Object.entries(byResource(after)))
    if (n - (was[resource] ?? 0) > 0) out[resource] = n - (was[resource] ?? 0);
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? Number.NaN) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

/** Median, min and max of one quantity over the runs. */
function summary(xs: number[], unit: string): Record<string, Measurement | number[]> {
  return {
    median: m(median(xs), unit),
    min: m(Math.min(...xs), unit),
    max: m(Math.max(...xs), unit),
    runs: xs.map((x) => m(x, unit).value),
  };
}

function summarize(runs: RunResult[], pets: number, maxUnavailable: number) {
  const perPet = (f: (r: RunResult) => number) => runs.map((r) => f(r) / pets);
  // Overhead: the controller's share of the wall time per pet above what the kubelet (kwok's
  // stage delays, summed per pet) took; pets move maxUnavailable at a time.
  const overhead = runs.map(
    (r) => ((r.wallSeconds - r.kubeletSeconds / Math.min(maxUnavailable, pets)) / pets) * 1000,
  );
  return {
    wallTime: summary(
      runs.map((r) => r.wallSeconds),
      "s",
    ),
    writesPerPet: summary(
      perPet((r) => r.writes),
      "writes/pet",
    ),
    cpuPerPet: summary(
      perPet((r) => r.cpuSeconds * 1000),
      "ms/pet",
    ),
    overheadPerPet: summary(overhead, "ms/pet"),
    kubeletPerPet: summary(
      perPet((r) => r.kubeletSeconds * 1000),
      "ms/pet",
    ),
    writesByKindLastRun: runs.at(-1)?.writesByKind ?? {},
    ...(runs.at(-1)?.watchEvents !== undefined
      ? {
          watchEventsPerPetLastRun: Object.fromEntries(
            Object.entries(runs.at(-1)?.watchEvents ?? {}).map(([k, v]) => [
              k,
              Math.round((v / pets) * 100) / 100,
            ]),
          ),
        }
      : {}),
    ...(runs.every((r) => r.syncs !== undefined)
      ? {
          syncsPerPet: summary(
            perPet((r) => r.syncs ?? 0),
            "syncs/pet",
          ),
        }
      : {}),
  };
}

type Summary = ReturnType<typeof summarize>;
const med = (s: Summary, k: "wallTime" | "writesPerPet" | "cpuPerPet" | "overheadPerPet") =>
  (s[k].median as Measurement).value;

export async function compareWithStatefulSet(ctx: BenchContext, pets: number, runs: number, warmups = 1) {
  ctx.log("starting a private control plane (profile statefulset-bench)");
  const cluster = await startPrivateStatefulSetCluster();
  const scenarios: Record<string, unknown> = {};
  let controller: Awaited<ReturnType<typeof startController>> | undefined;
  try {
    controller = await startController(
      cluster.controllerKubeconfigPath,
      undefined,
      join(cluster.workDir, "controller-compare.log"),
      ctx.controllerNodeArgs,
    );
    // A Go binary needs no warm-up; a Node process compiles its hot paths in its first runs.
    for (let i = 0; i < warmups; i++) {
      const maxUnavailable = i % 2 === 0 ? 1 : 10;
      ctx.log(`warm-up run ${i + 1} of ${warmups} of the petset controller (not recorded)`);
      await oneRun(ctx, cluster, "petset", pets, maxUnavailable, controller);
    }
    for (const maxUnavailable of [1, 10]) {
      const results: Record<Kind, RunResult[]> = { petset: [], statefulset: [] };
      for (let i = 0; i < runs; i++) {
        const order: Kind[] = i % 2 === 0 ? ["petset", "statefulset"] : ["statefulset", "petset"];
        for (const kind of order)
          results[kind].push(await oneRun(ctx, cluster, kind, pets, maxUnavailable, controller));
      }
      const ps = summarize(results.petset, pets, maxUnavailable);
      const sts = summarize(results.statefulset, pets, maxUnavailable);
      const ratio = (k: "wallTime" | "writesPerPet" | "cpuPerPet") => m(med(ps, k) / med(sts, k), "×");
      scenarios[`maxUnavailable${maxUnavailable}`] = {
        maxUnavailable,
        petset: ps,
        statefulset: sts,
        ratio: {
          wallTime: ratio("wallTime"),
          writesPerPet: ratio("writesPerPet"),
          cpuPerPet: ratio("cpuPerPet"),
        },
        goals: {
          writesPerPet: med(ps, "writesPerPet") <= med(sts, "writesPerPet"),
          cpuPerPet: med(ps, "cpuPerPet") <= med(sts, "cpuPerPet"),
          wallTime: med(ps, "wallTime") <= med(sts, "wallTime"),
          overheadPerPetAtMost50ms: med(ps, "overheadPerPet") <= 50,
        },
      };
    }
    return {
      cluster: {
        ...cluster.describe,
        profile: "statefulset-bench",
        kubeControllerManager: "controllers statefulset, namespace, serviceaccount, nodelifecycle only",
      },
      runsPerController: runs,
      controllers: `both long-running through every run (one petset controller for all namespaces, warmed by ${warmups} unrecorded run${warmups === 1 ? "" : "s"})`,
      warmups,
      pets,
      podManagementPolicy: "Parallel",
      scenarios,
    };
  } finally {
    await controller?.stop();
    await cluster.stop();
  }
}
