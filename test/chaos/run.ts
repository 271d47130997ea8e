/**
 * One chaos run: the seeded scenario's PetSets created in a fresh namespace, an invariant
 * monitor on each, the controller as supervised child processes, user actions and process
 * faults at once; then faults stop, every PetSet gets a healing change (and, once converged,
 * every PetSet with hooks one more, so its per-pet hooks run at least once), and the run is judged
 * (outcome.ts; with `hookSideEffects`, the hooks' side effects too: hook-side-effects.ts). The
 * result names the seed and the command that reproduces the run.
 */
import {
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
} from "@kubernetes/client-node";
import { GROUP, PETSET_PLURAL, VERSION } from "../../src/api/index.js";
import { eventually } from "../support/cluster.js";
import { type InvariantMonitor, startInvariantMonitor } from "../support/invariant-monitor.js";
import type { ChaosCluster } from "./chaos-cluster.js";
import { ControllerFleet, type Crash, type FencingBreach, type FleetCounts } from "./controller-fleet.js";
import { type FaultProxy, startFaultProxy } from "./fault-proxy.js";
import { WEBHOOK_RESOURCE } from "./fault-scope.js";
import type { JudgedHookRecord } from "./hook-outcome.js";
import {
  type HookFindings,
  type HookSideEffects,
  startHookSideEffects,
  type VersionFacts,
} from "./hook-side-effects.js";
import { NodeFaults } from "./node-faults.js";
import type { NodeFindings } from "./node-judge.js";
import { servingIntervals } from "./node-serving.js";
import { convergenceGap, judgeVersions, listVersions } from "./outcome.js";
import { seededRng } from "./prng.js";
import {
  type ChaosProfile,
  type FaultEvent,
  generateScenario,
  healPatch,
  type PetSetPlan,
} from "./scenario.js";

export interface RunOptions {
  seed: number;
  profile: ChaosProfile;
  /** Bound on convergence after faults stop and the healing change is written. */
  convergeMs: number;
  /** How to reproduce this run (printed with a failure). */
  reproduce: string;
  /**
   * The kubeconfig the controllers use, from the cluster's. Without it, a profile with network
   * faults puts a fault proxy of its own (seeded) between the controllers and the cluster.
   */
  controllerKubeConfig?: (target: KubeConfig) => Promise<KubeConfig>;
  log?: (line: string) => void;
}

export interface RunOutcome {
  seed: number;
  backend: string;
  petSets: { name: string; features: string[]; steps: string[] }[];
  faults: {
    kills: number;
    freezes: number;
    apiServerRestarts: number;
    etcdRestarts: number;
    lostAnswers: number;
    statusBursts: number;
  };
  /** The fault proxy's counters (what the network faults hit), when the run had one. */
  proxy?: Record<string, number>;
  /** The babysitter's fault proxy's counters (webhook faults), when the run had one. */
  webhookProxy?: Record<string, number>;
  violations: string[];
  versionsLost: string[];
  versionsDuplicated: string[];
  notConverged: string[];
  crashes: Crash[];
  fencing: FencingBreach[];
  /** A fault the harness could not inject (e.g. no takeover within a minute). */
  harnessErrors: string[];
  controllers: FleetCounts;
  convergedInMs: number;
  durationMs: number;
  /** Hook side effects (each list must be empty); absent without `hookSideEffects`. */
  hooks?: HookFindings;
  /** Node faults (node-faults.ts): twoPodsOneIdentity, unrecovered, errors must be empty. */
  nodes?: NodeFindings;
  /** The controller's last log lines when something was found (else empty). */
  controllerLogTail: string;
  /** The hook log's lines of the hook ids found (else empty). */
  hookLogLines?: string;
  reproduce: string;
}

const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A user's write, retried while the API server restarts (connection refused, 5xx, 429). */
async function userWrite(what: string, f: () => Promise<unknown>): Promise<void> {
  await eventually(what, async () => ((await f()) ? true : undefined), 120_000, 250);
}

export function hookFindingCount(h: HookFindings | undefined): number {
  return h ? h.hookOverlaps.length + h.hooksForSkippedVersions.length + h.hooksSucceededWithoutRun.length : 0;
}

export function nodeFindingCount(n: NodeFindings | undefined): number {
  return n ? n.twoPodsOneIdentity.length + n.unrecovered.length + n.errors.length : 0;
}

export function failed(o: RunOutcome): boolean {
  return (
    nodeFindingCount(o.nodes) > 0 ||
    o.violations.length + o.versionsLost.length + o.versionsDuplicated.length + o.notConverged.length > 0 ||
    o.crashes.length + o.fencing.length + o.harnessErrors.length + hookFindingCount(o.hooks) > 0
  );
}

/** The log lines of the hook ids a finding names (`<id>: …`). */
function linesOf(h: HookFindings, log: string): string {
  const ids = new Set(
    [...h.hookOverlaps, ...h.hooksForSkippedVersions, ...h.hooksSucceededWithoutRun].map(
      (f) => f.split(":")[0],
    ),
  );
  return log
    .split("\n")
    .filter((l) => [...ids].some((id) => id && l.includes(` ${id} `)))
    .join("\n");
}

export async function runChaos(cluster: ChaosCluster, opts: RunOptions): Promise<RunOutcome> {
  const started = Date.now();
  const log = opts.log ?? (() => {});
  const networkFaults = opts.profile.lostAnswers + opts.profile.statusBursts > 0;
  let proxy: FaultProxy | undefined;
  let webhookProxy: FaultProxy | undefined;
  let sideEffects: HookSideEffects | undefined;
  if (opts.profile.hookSideEffects)
    sideEffects = await startHookSideEffects(cluster.backend, seededRng(opts.seed).fork("babysitter"));
  let controllerKubeConfig = cluster.controllerKubeConfig;
  if (opts.controllerKubeConfig) controllerKubeConfig = await opts.controllerKubeConfig(controllerKubeConfig);
  else if (networkFaults) {
    const random = seededRng(opts.seed).fork("proxy");
    proxy = await startFaultProxy(controllerKubeConfig, { random: () => random.next() });
    controllerKubeConfig = proxy.kubeconfig;
    if (sideEffects) {
      const r = seededRng(opts.seed).fork("webhook-proxy");
      webhookProxy = await startFaultProxy({ url: sideEffects.babysitterUrl }, { random: () => r.next() });
    }
  }
  const scenario = generateScenario(
    opts.seed,
    opts.profile,
    sideEffects && {
      logPath: sideEffects.logPath,
      webhookUrl: webhookProxy ? `${webhookProxy.url}/hooks` : sideEffects.babysitterUrl,
    },
  );
  const namespace = await cluster.namespace("chaos");
  const kc = cluster.kubeConfig;
  const custom = kc.makeApiClient(CustomObjectsApi);
  const ps = { group: GROUP, version: VERSION, plural: PETSET_PLURAL, namespace };
  sideEffects?.watch(kc, namespace);
  const fleet = new ControllerFleet({
    controllerKubeConfig,
    kubeConfig: kc,
    namespace,
    replicas: 1,
    writesBy: (ua, since) => cluster.writesBy(ua, since),
    ...(opts.profile.minLeadMs !== undefined ? { minLeadMs: opts.profile.minLeadMs } : {}),
  });
  const harnessErrors: string[] = [];
  const injected = {
    kills: 0,
    freezes: 0,
    apiServerRestarts: 0,
    etcdRestarts: 0,
    lostAnswers: 0,
    statusBursts: 0,
  };
  const monitors = new Map<string, InvariantMonitor>();
  const nodeFaults =
    (opts.profile.nodeLosses ?? 0) > 0 && cluster.nodeGraceSeconds !== undefined
      ? new NodeFaults({
          kubeConfig: kc,
          kubeconfigPath: cluster.kubeconfigPath,
          namespace,
          rng: seededRng(opts.seed).fork("nodes"),
          losses: opts.profile.nodeLosses ?? 0,
          windowMs: opts.profile.actionMs,
          graceSeconds: cluster.nodeGraceSeconds,
          log,
          serving: () => servingIntervals(fleet.history, Date.now()),
        })
      : undefined;
  fleet.start();
  try {
    for (const p of scenario.petSets) {
      await userWrite(`create ${p.name}`, () =>
        custom.createNamespacedCustomObject({ ...ps, body: p.manifest }),
      );
      monitors.set(p.name, await startInvariantMonitor({ kubeConfig: kc, namespace, petSet: p.name }));
    }
    await nodeFaults?.start();
    log(`seed ${opts.seed}: ${scenario.petSets.map((p) => `${p.name} [${p.features.join(",")}]`).join(" ")}`);
    const t0 = Date.now();
    const actions = scenario.petSets.map(async (p: PetSetPlan) => {
      for (const step of p.steps) {
        await sleep(step.gapMs);
        await userWrite(`${p.name} ${step.kind}`, () =>
          custom.patchNamespacedCustomObject({ ...ps, name: p.name, body: { spec: step.spec } }, merge),
        );
      }
    });
    const inject = async (f: FaultEvent) => {
      const wait = t0 + f.atMs - Date.now();
      if (wait > 0) await sleep(wait);
      log(`  +${Date.now() - t0} ms ${f.kind}${f.network ? ` ${JSON.stringify(f.network)}` : ""}`);
      try {
        if (f.kind === "kill") await fleet.kill();
        else if (f.kind === "freeze") await fleet.freeze();
        else if (f.kind === "apiserver-restart") await cluster.restartApiServer();
        else if (f.kind === "etcd-restart") await cluster.restartEtcd();
        else if (f.network && "resources" in f.network && f.network.resources?.includes(WEBHOOK_RESOURCE)) {
          if (!webhookProxy) throw new Error("a webhook fault without a webhook fault proxy");
          webhookProxy.add(f.network);
        } else if (f.network && proxy) proxy.add(f.network);
        else throw new Error("a network fault without a fault proxy (controllerKubeConfig was given)");
        const key = {
          kill: "kills",
          freeze: "freezes",
          "apiserver-restart": "apiServerRestarts",
          "etcd-restart": "etcdRestarts",
          "lost-answer": "lostAnswers",
          "status-burst": "statusBursts",
        } as const;
        injected[key[f.kind]]++;
      } catch (err) {
        harnessErrors.push(`${f.kind} at +${f.atMs} ms: ${err instanceof Error ? err.message : String(err)}`);
      }
    };
    // Network faults keep their own time: the process faults before them wait for leaders
    // and would push them past the user actions they are meant to meet.
    const timeline = (network: boolean) =>
      (async () => {
        for (const f of scenario.faults) if ((f.network !== undefined) === network) await inject(f);
      })();
    await Promise.all([...actions, timeline(false), timeline(true), nodeFaults?.lossTimeline()]);

    // Faults stop: heal every PetSet, then judge convergence within the bound.
    proxy?.clear();
    webhookProxy?.clear();
    for (const p of scenario.petSets)
      await userWrite(`${p.name} heal`, () =>
        custom.patchNamespacedCustomObject({ ...ps, name: p.name, body: { spec: healPatch() } }, merge),
      );
    const healedAt = Date.now();
    const converge = async (petSets: readonly { name: string }[]): Promise<string[]> => {
      const deadline = Date.now() + opts.convergeMs;
      const gaps: string[] = [];
      for (const p of petSets) {
        let last: string | undefined;
        for (;;) {
          last = await convergenceGap(kc, namespace, p.name).catch((err: unknown) => String(err));
          if (last === undefined || Date.now() >= deadline) break;
          await sleep(250);
        }
        if (last !== undefined) gaps.push(`${last} (after ${opts.convergeMs} ms)`);
      }
      return gaps;
    };
    const notConverged = await converge(scenario.petSets);
    // A PetSet whose pets were all unready when healed (a broken image under Parallel) moves
    // without its preUpdate hook (hooks run before a *Ready* pet moves): one more change once
    // healed, so every hooked PetSet runs its per-pet hooks at least once (seed 7004).
    const hooked = scenario.petSets.filter((p) => p.features.some((f) => /-(job|exec|webhook)$/.test(f)));
    if (notConverged.length === 0 && hooked.length > 0) {
      for (const p of hooked)
        await userWrite(`${p.name} heal again`, () =>
          custom.patchNamespacedCustomObject(
            { ...ps, name: p.name, body: { spec: healPatch("healed-again") } },
            merge,
          ),
        );
      notConverged.push(...(await converge(hooked)));
    }
    const convergedInMs = Date.now() - healedAt;
    const nodes = await nodeFaults?.finish(opts.convergeMs);

    const violations: string[] = [];
    for (const [name, m] of monitors)
      for (const v of await m.stop()) violations.push(`${name} ${v.at} ${v.rule}: ${v.message}`);
    monitors.clear();
    const versionsLost: string[] = [];
    const versionsDuplicated: string[] = [];
    const records: JudgedHookRecord[] = [];
    const facts: VersionFacts[] = [];
    for (const p of scenario.petSets) {
      const versions = await listVersions(kc, namespace, p.name);
      const found = judgeVersions(p.name, versions);
      versionsLost.push(...found.lost);
      versionsDuplicated.push(...found.duplicated);
      for (const v of versions) {
        records.push(...(v.status?.hooks ?? []));
        facts.push({
          petSet: p.name,
          version: v.spec.version,
          ...(v.status?.rolloutStartedAt ? { rolloutStartedAt: v.status.rolloutStartedAt } : {}),
        });
      }
    }
    // Hooks are judged once the controllers are gone: no execution starts after the verdict.
    const controllerLogTail0 = await fleet.logTail(40);
    await fleet.stop();
    const hooks = sideEffects?.judge(records, facts);
    // A run whose hooks never ran measured nothing: the harness's error, not a pass.
    if (hooks)
      for (const handler of ["job", "exec", "webhook"] as const)
        if (
          scenario.petSets.some((p) => p.features.some((f) => f.endsWith(`-${handler}`))) &&
          hooks.hookRuns[handler] === 0
        )
          harnessErrors.push(`no ${handler} hook ran: the run measured none of its side effects`);
    const found =
      violations.length + versionsLost.length + versionsDuplicated.length + notConverged.length > 0 ||
      fleet.crashes.length + fleet.fencing.length + harnessErrors.length + hookFindingCount(hooks) > 0 ||
      nodeFindingCount(nodes) > 0;
    const controllerLogTail = found ? controllerLogTail0 : "";
    return {
      controllerLogTail,
      seed: opts.seed,
      backend: cluster.backend,
      petSets: scenario.petSets.map((p) => ({
        name: p.name,
        features: p.features,
        steps: p.steps.map((s) => s.kind),
      })),
      faults: injected,
      ...(proxy ? { proxy: proxy.stats() } : {}),
      ...(webhookProxy ? { webhookProxy: webhookProxy.stats() } : {}),
      ...(hooks ? { hooks } : {}),
      ...(nodes ? { nodes } : {}),
      ...(hooks && sideEffects && hookFindingCount(hooks) > 0
        ? { hookLogLines: linesOf(hooks, sideEffects.logText()) }
        : {}),
      violations,
      versionsLost,
      versionsDuplicated,
      notConverged,
      crashes: fleet.crashes,
      fencing: fleet.fencing,
      harnessErrors,
      controllers: fleet.counts,
      convergedInMs,
      durationMs: Date.now() - started,
      reproduce: opts.reproduce,
    };
  } finally {
    await nodeFaults?.cleanup();
    await fleet.stop();
    await proxy?.stop();
    await webhookProxy?.stop();
    await sideEffects?.stop();
    for (const m of monitors.values()) await m.stop();
    await kc
      .makeApiClient(CoreV1Api)
      .deleteNamespace({ name: namespace })
      .catch(() => undefined);
  }
}
