/**
 * History recording side by side with kube-controller-manager (issue 29): StatefulSets whose
 * ControllerRevisions kube-controller-manager's StatefulSet controller records, and PetSets
 * whose PetSetVersions petset records, on the same kube-apiserver (bench/support/
 * history-rounds.ts has the rounds):
 * - versions: N sets per side (replicas 0: history writes only); per round and side the
 *   controller is paused, one template change per set written, and the clock runs from its
 *   resumption until every set has its new history object and its status caught up; CPU per
 *   change of the controller's whole process (kube-controller-manager as it runs, petset's
 *   child process). Rounds alternate which side goes first.
 * - GC: one set per side with `gc` excess history objects, then revisionHistoryLimit 0.
 * kube-controller-manager is paused, so this never runs on the shared test cluster: on the real
 * backend it uses the cluster of PETSET_CLUSTER_DIR when that is not the shared one, else a
 * private control plane (as the rollout comparison). On the embedded backend only petset runs
 * (the embedded server's StatefulSet controller is never a peer); with --statefulset the
 * kube-apiserver comparison runs too, on a private control plane, and the record has both.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_STATUS_PROGRESS_INTERVAL_MS } from "../src/controller/status-coalescing.js";
import { GC_DELETES_IN_FLIGHT } from "../src/gc/runner.js";
import {
  type Backend,
  isSharedClusterDir,
  readPid,
  startPrivateStatefulSetCluster,
  statefulSetControllerRunning,
} from "./support/backends.js";
import type { BenchContext, Benchmark, BenchOutput } from "./support/bench.js";
import { median, ratio } from "./support/cpu-per-change.js";
import {
  createSets,
  type GcRound,
  gcRound,
  openWatches,
  type SideWatches,
  type VersionsRound,
  versionsRound,
} from "./support/history-rounds.js";
import { petSetSide, type Side, statefulSetSide } from "./support/history-sides.js";
import { kcmSettings, splitCmdline } from "./support/kcm-flags.js";
import { startController } from "./support/processes.js";
import { type Measurement, m } from "./support/stats.js";

const SCALES = { small: { sets: 200, gc: 2_000 }, full: { sets: 1_000, gc: 10_000 } } as const;

/** petset's client settings: it has no client-side rate limiter; these bound it instead. */
const PETSET_CLIENT = {
  clientQps: "none (no client-side rate limiter)",
  clientBurst: "none",
  syncWorkers: 8,
  keepAliveSocketsPerHost: 16,
  historyGcDeletesInFlight: GC_DELETES_IN_FLIGHT,
  statusProgressWriteIntervalMsPerPetSet: DEFAULT_STATUS_PROGRESS_INTERVAL_MS,
};

/** kube-controller-manager of the cluster in `clusterDir`, checked to be that cluster's own. */
function kcmOf(clusterDir: string) {
  const pid = readPid("kube-controller-manager", clusterDir);
  const args = splitCmdline(readFileSync(`/proc/${pid}/cmdline`, "utf8"));
  // Its flags name files in the state dir ("<dir>/" so that ".../cluster" never matches ".../cluster-kcm").
  if (!args.some((a) => a.includes(`${clusterDir.replace(/\/+$/, "")}/`)))
    throw new Error(`kube-controller-manager pid ${pid} is not the one of ${clusterDir}`);
  if (!statefulSetControllerRunning(clusterDir))
    throw new Error(`kube-controller-manager of ${clusterDir} does not run the statefulset controller`);
  return { pid, settings: kcmSettings(args) };
}

interface SideResult {
  rounds: VersionsRound[];
  gc: GcRound;
}

const med = (rounds: VersionsRound[], f: (r: VersionsRound) => number) => median(rounds.map(f));

function summarize(r: SideResult) {
  const writes = r.rounds.map((x) => (x.writes ? x.writes.total / x.sets : Number.NaN));
  return {
    versionsSeconds: m(
      med(r.rounds, (x) => x.seconds),
      "s",
    ),
    versionsSecondsPerRound: r.rounds.map((x) => m(x.seconds, "s").value),
    historySeconds: m(
      med(r.rounds, (x) => x.historySeconds),
      "s",
    ),
    cpuPerChange: m(
      med(r.rounds, (x) => x.perChange.cpuMs),
      "ms/change",
    ),
    cpuPerChangePerRound: r.rounds.map((x) => m(x.perChange.cpuMs, "ms").value),
    cpuPerChangeAboveIdle: m(
      med(r.rounds, (x) => x.perChange.cpuMsAboveIdle),
      "ms/change",
    ),
    cpuPerChangeUntilQuiet: m(
      med(r.rounds, (x) => x.perChangeUntilQuiet.cpuMs),
      "ms/change",
    ),
    untilQuietSeconds: m(
      med(r.rounds, (x) => x.untilQuietSeconds),
      "s",
    ),
    serverCpuPerChange: m(
      med(r.rounds, (x) => x.serverCpuMsPerChange),
      "ms/change",
    ),
    ...(writes.every(Number.isFinite) ? { writesPerChange: m(median(writes), "writes/change") } : {}),
    gcSeconds: m(r.gc.seconds, "s"),
    gcDeleted: m(r.gc.deleted, "deletions"),
    gcDeletesPerSecond: m(r.gc.deleted / r.gc.seconds, "deletions/s"),
    cpuPerDeletion: m(r.gc.perDeletion.cpuMs, "ms/deletion"),
    cpuPerDeletionAboveIdle: m(r.gc.perDeletion.cpuMsAboveIdle, "ms/deletion"),
    serverCpuPerDeletion: m(r.gc.serverCpuMsPerDeletion, "ms/deletion"),
  };
}

/** All rounds of both sides (or petset alone) on one server. */
async function compareOn(
  ctx: BenchContext,
  b: Backend,
  withKcm: boolean,
  sets: number,
  gc: number,
  runs: number,
) {
  const kcm = withKcm && b.clusterDir ? kcmOf(b.clusterDir) : undefined;
  const controller = await startController(
    b.controllerKubeconfigPath,
    undefined,
    join(b.workDir, "controller-history.log"),
    ctx.controllerNodeArgs,
  );
  const sides: Side[] = [...(kcm ? [statefulSetSide(kcm.pid)] : []), petSetSide(controller.pid)];
  const ns = await b.namespace("hist");
  const gcNs = await b.namespace("hist-gc");
  const watches: SideWatches[] = [];
  try {
    const open = async (side: Side, n: string) => {
      const w = await openWatches(b, side, n);
      watches.push(w);
      return w;
    };
    const names = (side: Side) => Array.from({ length: sets }, (_, i) => `${side.prefix}${i}`);
    const results = new Map<Side, SideResult>();
    const w = new Map<Side, SideWatches>();
    for (const side of sides) {
      w.set(side, await open(side, ns));
      ctx.log(`${b.name}: create ${sets} ${side.name === "petset" ? "PetSets" : "StatefulSets"}`);
      await createSets(b, side, w.get(side) as SideWatches, ns, names(side));
      results.set(side, { rounds: [], gc: undefined as unknown as GcRound });
    }
    // A Go binary needs no warm-up; a Node process just started compiles its hot paths in its
    // first rounds (as the rollout comparison, one unrecorded round of petset first).
    const petset = sides.find((x) => x.name === "petset") as Side;
    ctx.log(`${b.name}: warm-up round of the petset controller (not recorded)`);
    await versionsRound(
      b,
      petset,
      w.get(petset) as SideWatches,
      ns,
      names(petset),
      "registry.example/app:warm-up",
    );
    for (let r = 0; r < runs; r++) {
      for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
        const round = await versionsRound(
          b,
          side,
          w.get(side) as SideWatches,
          ns,
          names(side),
          `registry.example/app:r${r + 1}`,
        );
        results.get(side)?.rounds.push(round);
        ctx.log(
          `${b.name}: round ${r + 1} ${side.name}: ${round.seconds.toFixed(2)} s (history ${round.historySeconds.toFixed(2)} s), ${round.perChange.cpuMs.toFixed(2)} ms CPU/change (idle ${round.controllerIdleCores.toFixed(3)} cores)${round.writes ? `, ${round.writes.total} writes` : ""}`,
        );
      }
    }
    for (const side of sides) {
      ctx.log(`${b.name}: ${side.name} GC of ${gc}`);
      const g = await gcRound(b, side, await open(side, gcNs), gcNs, gc);
      (results.get(side) as SideResult).gc = g;
      ctx.log(
        `${b.name}: ${side.name} GC: ${g.deleted} deleted in ${g.seconds.toFixed(1)} s, ${g.perDeletion.cpuMs.toFixed(2)} ms CPU/deletion`,
      );
    }
    const out: Record<string, unknown> = {};
    for (const [side, r] of results) out[side.name] = { summary: summarize(r), rounds: r.rounds, gc: r.gc };
    return {
      server: {
        ...b.describe,
        ...(b.clusterDir ? { clusterDirShared: isSharedClusterDir(b.clusterDir) } : {}),
      },
      clients: {
        ...(kcm
          ? {
              kubeControllerManager: {
                ...kcm.settings,
                note: "--use-service-account-credentials gives each controller its own client, each with this QPS and burst",
              },
            }
          : {}),
        petset: PETSET_CLIENT,
      },
      ...out,
    };
  } finally {
    for (const x of watches) x.stop();
    await controller.stop();
    await b.deleteNamespace(ns);
    await b.deleteNamespace(gcNs);
  }
}

type Compared = Awaited<ReturnType<typeof compareOn>>;
type Summary = ReturnType<typeof summarize>;
const summaryOf = (c: Compared | undefined, side: string) =>
  (c?.[side as keyof Compared] as { summary?: Summary } | undefined)?.summary;

/** The figures `make bench-quick` prints: each side's, and petset's over kube-controller-manager's. */
function headline(real: Compared | undefined, embedded: Compared | undefined): Record<string, Measurement> {
  const out: Record<string, Measurement> = {};
  const ps = summaryOf(real, "petset");
  const sts = summaryOf(real, "statefulset");
  if (ps && sts) {
    const x = (k: keyof Summary) =>
      m(ratio((ps[k] as Measurement).value, (sts[k] as Measurement).value), "×");
    Object.assign(out, {
      versionsSecondsPetSet: ps.versionsSeconds,
      versionsSecondsStatefulSet: sts.versionsSeconds,
      versionsTimeRatio: x("versionsSeconds"),
      cpuPerChangePetSet: ps.cpuPerChange,
      cpuPerChangeStatefulSet: sts.cpuPerChange,
      cpuPerChangeRatio: x("cpuPerChange"),
      cpuPerChangeUntilQuietRatio: x("cpuPerChangeUntilQuiet"),
      gcSecondsPetSet: ps.gcSeconds,
      gcSecondsStatefulSet: sts.gcSeconds,
      gcTimeRatio: x("gcSeconds"),
      cpuPerDeletionRatio: x("cpuPerDeletion"),
    });
  }
  const em = summaryOf(embedded, "petset");
  if (em)
    Object.assign(out, {
      embeddedVersionsSeconds: em.versionsSeconds,
      embeddedCpuPerChange: em.cpuPerChange,
      embeddedServerCpuPerChange: em.serverCpuPerChange,
      embeddedGcSeconds: em.gcSeconds,
      embeddedCpuPerDeletion: em.cpuPerDeletion,
    });
  return out;
}

export const historyCompareBenchmark: Benchmark = {
  name: "history-compare",
  description: "template changes and history GC: petset vs kube-controller-manager's StatefulSet controller",
  backends: ["embedded", "real"],
  async run(ctx): Promise<BenchOutput> {
    const sets = ctx.sizes.historySets ?? ctx.sizes.petSets ?? SCALES[ctx.scale].sets;
    const gc = ctx.sizes.historyGc ?? ctx.sizes.gcVersions ?? SCALES[ctx.scale].gc;
    const runs = ctx.sizes.runs ?? 2;
    let embedded: Compared | undefined;
    let real: Compared | undefined;
    // --compare-only (bench-quick): the side by side alone, not petset's figures on the embedded server.
    if (ctx.backend.name === "embedded" && !(ctx.compareOnly && ctx.statefulSet))
      embedded = await compareOn(ctx, ctx.backend, false, sets, gc, runs);
    if (ctx.backend.name === "real" || ctx.statefulSet) {
      const own = ctx.backend.clusterDir && !isSharedClusterDir(ctx.backend.clusterDir);
      if (!own)
        ctx.log(
          "starting a private control plane (profile statefulset-bench): kube-controller-manager is paused",
        );
      const cluster = own ? ctx.backend : await startPrivateStatefulSetCluster();
      try {
        real = await compareOn(ctx, cluster, true, sets, gc, runs);
      } finally {
        if (!own) await cluster.stop();
      }
    }
    return {
      parameters: {
        setsPerSide: sets,
        replicas: 0,
        roundsPerSide: runs,
        gcExcessHistory: gc,
        patchesInFlightWhilePaused: 16,
        petsetController:
          "node dist/src/cli/petset.js controller --no-leader-elect (every namespace, as deployed; child process; one unrecorded warm-up round of petset before the recorded ones)",
      },
      results: {
        headline: headline(real, embedded),
        ...(real ? { kubeApiserver: real } : {}),
        ...(embedded ? { embedded } : {}),
      },
      notes: [
        "Versions: per round and side, with every set settled, the side's controller is SIGSTOPped, one image change per set is written (16 in flight), and the clock starts at SIGCONT; done when every set has a new history object (ControllerRevision / PetSetVersion) and its status caught up (observedGeneration, update = current = the new one), as the benchmark's watches delivered them.",
        "CPU per change: the controller's whole process (kube-controller-manager with every controller it runs; the petset controller) from /proc between SIGCONT and done, over the changes; Before each round the controller is left until quiet (at most 0.05 cores over 2 s; quietSeconds), then its idle rate is measured for 3 s; 'aboveIdle' subtracts that rate over the timed seconds. 'untilQuiet': CPU from SIGCONT until the controller is quiet again, so work after the statuses caught up (Events, its own writes' events) counts too.",
        "While paused, the controller's watches are not read: kube-apiserver may close them as unresponsive, and the controller re-lists on resume; both sides pay this alike.",
        "GC: one set per side with revisionHistoryLimit above the excess; the excess history objects (copies of its first, owned by it) are created directly, the controller left until its CPU is quiet (2 s at most max(0.05 cores, 1.5x idle); digestSeconds), then revisionHistoryLimit 0; done when at most 1 ControllerRevision (current = update) / 3 PetSetVersions (current/update, newest) remain.",
        "kube-controller-manager's client: --kube-api-qps/--kube-api-burst as in clients.kubeControllerManager (per controller with --use-service-account-credentials); its StatefulSet controller deletes revisions one at a time, so its GC is bound by that QPS. petset has no client-side limiter (clients.petset).",
      ],
    };
  },
};
