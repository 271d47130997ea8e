/**
 * Several chaos runs on one backend (seeds SEED, SEED+1, ...), their totals, one line per run,
 * and the JSON results file. The profiles: `make chaos` (long, every fault) and the slice that
 * runs inside `make test` (short, fixed seed).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { KubeConfig } from "@kubernetes/client-node";
import { type ChaosBackend, startChaosCluster } from "./chaos-cluster.js";
import { failed, type RunOutcome, runChaos } from "./run.js";
import type { ChaosProfile } from "./scenario.js";

export function chaosProfile(kind: "campaign" | "slice", backend: ChaosBackend): ChaosProfile {
  if (kind === "slice")
    return {
      petSets: 2,
      stepsPerPetSet: 4,
      actionMs: 16_000,
      kills: 3,
      freezes: 1,
      // The slice never restarts an API server: it runs on the shared test cluster.
      apiServerRestarts: 0,
      etcdRestarts: 0,
      lostAnswers: 0,
      statusBursts: 0,
      // PetSet 1's preRollout Job and preUpdate exec, logged and judged (no webhook: no PetSet 2).
      hookSideEffects: true,
    };
  return {
    petSets: 3,
    stepsPerPetSet: 8,
    actionMs: 60_000,
    kills: 10,
    // Under load a replacement took ~10 s to start: kills without a pause starved the PetSets
    // of any controller for the whole fault window (controller-fleet.ts).
    minLeadMs: 4_000,
    freezes: 1,
    apiServerRestarts: 1,
    etcdRestarts: backend === "real" ? 1 : 0,
    lostAnswers: 3,
    statusBursts: 3,
    hookSideEffects: true,
    nodeLosses: Number(process.env.CHAOS_NODE_LOSSES ?? 2),
  };
}

export interface Totals {
  runs: number;
  kills: number;
  freezes: number;
  apiServerRestarts: number;
  etcdRestarts: number;
  lostAnswers: number;
  statusBursts: number;
  violations: number;
  versionsLost: number;
  versionsDuplicated: number;
  notConverged: number;
  crashes: number;
  fencing: number;
  harnessErrors: number;
  /** Hook side effects (hook-side-effects.ts): each must be 0. */
  hookOverlaps: number;
  hooksForSkippedVersions: number;
  hooksSucceededWithoutRun: number;
  /** Executions judged (job, exec, webhook) and hook records read. */
  hookRuns: { job: number; exec: number; webhook: number; records: number };
  /** Node faults (node-judge.ts): twoPodsOneIdentity and unrecovered must be 0. */
  nodeLosses: number;
  fences: { acked: number; failed: number; hung: number };
  twoPodsOneIdentity: number;
  unrecovered: number;
  moved: number;
  nodeHarnessErrors: number;
  slowestRecoveryMs: number;
  failedSeeds: number[];
}

export function totalsOf(outcomes: RunOutcome[]): Totals {
  const sum = (f: (o: RunOutcome) => number) => outcomes.reduce((n, o) => n + f(o), 0);
  return {
    runs: outcomes.length,
    kills: sum((o) => o.faults.kills),
    freezes: sum((o) => o.faults.freezes),
    apiServerRestarts: sum((o) => o.faults.apiServerRestarts),
    etcdRestarts: sum((o) => o.faults.etcdRestarts),
    lostAnswers: sum((o) => o.faults.lostAnswers),
    statusBursts: sum((o) => o.faults.statusBursts),
    violations: sum((o) => o.violations.length),
    versionsLost: sum((o) => o.versionsLost.length),
    versionsDuplicated: sum((o) => o.versionsDuplicated.length),
    notConverged: sum((o) => o.notConverged.length),
    crashes: sum((o) => o.crashes.length),
    fencing: sum((o) => o.fencing.length),
    harnessErrors: sum((o) => o.harnessErrors.length),
    hookOverlaps: sum((o) => o.hooks?.hookOverlaps.length ?? 0),
    hooksForSkippedVersions: sum((o) => o.hooks?.hooksForSkippedVersions.length ?? 0),
    hooksSucceededWithoutRun: sum((o) => o.hooks?.hooksSucceededWithoutRun.length ?? 0),
    hookRuns: {
      job: sum((o) => o.hooks?.hookRuns.job ?? 0),
      exec: sum((o) => o.hooks?.hookRuns.exec ?? 0),
      webhook: sum((o) => o.hooks?.hookRuns.webhook ?? 0),
      records: sum((o) => o.hooks?.hookRuns.records ?? 0),
    },
    nodeLosses: sum((o) => o.nodes?.nodeLosses ?? 0),
    fences: {
      acked: sum((o) => o.nodes?.fences.acked ?? 0),
      failed: sum((o) => o.nodes?.fences.failed ?? 0),
      hung: sum((o) => o.nodes?.fences.hung ?? 0),
    },
    twoPodsOneIdentity: sum((o) => o.nodes?.twoPodsOneIdentity.length ?? 0),
    unrecovered: sum((o) => o.nodes?.unrecovered.length ?? 0),
    moved: sum((o) => o.nodes?.moved ?? 0),
    nodeHarnessErrors: sum((o) => o.nodes?.errors.length ?? 0),
    slowestRecoveryMs: Math.max(0, ...outcomes.map((o) => o.nodes?.slowestRecoveryMs ?? 0)),
    failedSeeds: outcomes.filter(failed).map((o) => o.seed),
  };
}

export function describeRun(o: RunOutcome): string {
  const head =
    `chaos ${o.backend} seed ${o.seed}: ${failed(o) ? "FAILED" : "ok"} in ${Math.round(o.durationMs / 1000)} s ` +
    `(kills ${o.faults.kills}, freezes ${o.faults.freezes}, apiserver restarts ${o.faults.apiServerRestarts}, ` +
    `etcd restarts ${o.faults.etcdRestarts}, lost answers ${o.faults.lostAnswers}, ` +
    `status bursts ${o.faults.statusBursts}${o.proxy ? ` ${JSON.stringify(o.proxy)}` : ""}` +
    `${o.webhookProxy ? ` webhook ${JSON.stringify(o.webhookProxy)}` : ""}, ` +
    `converged in ${o.convergedInMs} ms)` +
    (o.hooks
      ? `; hooks ${JSON.stringify(o.hooks.hookRuns)}: hookOverlaps ${o.hooks.hookOverlaps.length}, ` +
        `hooksForSkippedVersions ${o.hooks.hooksForSkippedVersions.length}, ` +
        `hooksSucceededWithoutRun ${o.hooks.hooksSucceededWithoutRun.length}`
      : "") +
    (o.nodes
      ? `; nodes: losses ${o.nodes.nodeLosses}, fences ${JSON.stringify(o.nodes.fences)}, ` +
        `moved ${o.nodes.moved}, twoPodsOneIdentity ${o.nodes.twoPodsOneIdentity.length}, unrecovered ${o.nodes.unrecovered.length}, ` +
        `slowest recovery ${o.nodes.slowestRecoveryMs} ms`
      : "");
  if (!failed(o)) return head;
  const lines = [
    ...o.violations.map((v) => `  violation: ${v}`),
    ...o.versionsLost.map((v) => `  version lost: ${v}`),
    ...o.versionsDuplicated.map((v) => `  version duplicated: ${v}`),
    ...o.notConverged.map((v) => `  not converged: ${v}`),
    ...o.crashes.map((c) => `  controller crash: ${c.identity} exit ${c.code}\n${c.logTail}`),
    ...o.fencing.map((f) => `  fencing: ${f.identity} ${f.message}`),
    ...o.harnessErrors.map((e) => `  harness: ${e}`),
    ...(o.hooks?.hookOverlaps ?? []).map((h) => `  hook overlap: ${h}`),
    ...(o.hooks?.hooksForSkippedVersions ?? []).map((h) => `  hook for a skipped version: ${h}`),
    ...(o.hooks?.hooksSucceededWithoutRun ?? []).map((h) => `  hook succeeded without a run: ${h}`),
    ...(o.hookLogLines ? [`  hook log (those ids):\n${o.hookLogLines}`] : []),
    ...(o.nodes?.twoPodsOneIdentity ?? []).map((t) => `  two pods of one pet: ${t}`),
    ...(o.nodes?.unrecovered ?? []).map((u) => `  not recovered: ${u}`),
    ...(o.nodes?.errors ?? []).map((e) => `  node harness: ${e}`),
    `  controller log (last lines):\n${o.controllerLogTail}`,
    `  reproduce: ${o.reproduce}`,
  ];
  return [head, ...lines].join("\n");
}

export interface CampaignOptions {
  backend: ChaosBackend;
  kind: "campaign" | "slice";
  seed: number;
  runs: number;
  convergeMs: number;
  resultsFile?: string;
  controllerKubeConfig?: (target: KubeConfig) => Promise<KubeConfig>;
  log?: (line: string) => void;
}

export async function runCampaign(o: CampaignOptions): Promise<{ outcomes: RunOutcome[]; totals: Totals }> {
  const log = o.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const profile = chaosProfile(o.kind, o.backend);
  const cluster = await startChaosCluster(o.backend, o.kind === "campaign");
  const outcomes: RunOutcome[] = [];
  try {
    for (let i = 0; i < o.runs; i++) {
      const seed = o.seed + i;
      const reproduce =
        o.kind === "slice"
          ? `PETSET_TEST_BACKEND=${o.backend} npx vitest run --project integration test/integration/chaos-slice.test.ts`
          : `CHAOS_SEED=${seed} CHAOS_RUNS=1 CHAOS_BACKEND=${o.backend} make chaos`;
      const outcome = await runChaos(cluster, {
        seed,
        profile,
        convergeMs: o.convergeMs,
        reproduce,
        log,
        ...(o.controllerKubeConfig ? { controllerKubeConfig: o.controllerKubeConfig } : {}),
      });
      outcomes.push(outcome);
      log(describeRun(outcome));
    }
  } finally {
    await cluster.stop();
  }
  const totals = totalsOf(outcomes);
  log(`chaos ${o.backend} totals: ${JSON.stringify(totals)}`);
  if (o.resultsFile) {
    mkdirSync(dirname(o.resultsFile), { recursive: true });
    const body = { backend: o.backend, kind: o.kind, firstSeed: o.seed, profile, totals, runs: outcomes };
    writeFileSync(o.resultsFile, `${JSON.stringify(body, null, 2)}\n`);
  }
  return { outcomes, totals };
}
