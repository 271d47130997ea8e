/**
 * The seeded scenario of one chaos run: a few PetSets in one namespace, each with a list of
 * user actions (rollouts, spec changes mid-rollout, broken images then fixes, scale, pause and
 * resume, partition canaries; autoRollback and hooks on some), and a fault
 * schedule (controller SIGKILLs, a frozen leader, API server and etcd restarts, and network
 * faults on the controllers' requests through the fault proxy: lost answers of applied writes
 * and 429/503 bursts, each scoped to one resource the run exercises). Pure: the same seed and
 * profile give the same scenario.
 */
import { API_VERSION, PETSET_KIND } from "../../src/api/index.js";
import type { NetworkFault } from "./fault-proxy.js";
import { WEBHOOK_RESOURCE } from "./fault-scope.js";
import { hookScript } from "./hook-bodies.js";
import { type Rng, seededRng } from "./prng.js";

export type StepKind =
  | "rollout"
  | "spec-change-mid-rollout"
  | "broken"
  | "fix"
  | "scale"
  | "pause"
  | "resume"
  | "partition"
  | "unpartition";

export interface Step {
  kind: StepKind;
  /** Wait before this step (the schedule of user actions, not a condition). */
  gapMs: number;
  /** JSON merge patch of `spec`. */
  spec: Record<string, unknown>;
}

export interface PetSetPlan {
  name: string;
  manifest: Record<string, unknown>;
  /** What this PetSet exercises besides its steps: "autoRollback", "preUpdate-exec", "Parallel". */
  features: string[];
  steps: Step[];
}

export type FaultKind =
  | "kill"
  | "freeze"
  | "apiserver-restart"
  | "etcd-restart"
  | "lost-answer"
  | "status-burst";

export interface FaultEvent {
  /** Milliseconds after the actions start. */
  atMs: number;
  kind: FaultKind;
  /** lost-answer and status-burst: the fault the proxy is given (scoped, counted). */
  network?: NetworkFault;
}

export interface ChaosProfile {
  petSets: number;
  stepsPerPetSet: number;
  /** How long user actions and faults go on. */
  actionMs: number;
  kills: number;
  /** A leader works at least this long before it is killed (default 0: at once). */
  minLeadMs?: number;
  freezes: number;
  apiServerRestarts: number;
  etcdRestarts: number;
  /** Network faults on the controllers' requests (the fault proxy): indeterminate writes. */
  lostAnswers: number;
  /** ... and 429/503 bursts. */
  statusBursts: number;
  /**
   * Hooks with side effects measured outside the cluster (issue 24): PetSet 1 a preRollout
   * Job (the migration) and a preUpdate exec, PetSet 2 a postUpdate webhook; their bodies log
   * to `HookSinks`. Without it PetSet 1's exec preUpdate is `true` (the slice's scenario).
   */
  hookSideEffects?: boolean;
  /**
   * Node faults (issue 27, node-faults.ts): a PetSet with spec.nodeFailure Fence on nodes of its
   * own, this many node losses and returns, its external fence acked, failed or left hanging.
   */
  nodeLosses?: number;
}

/** Where the hooks' bodies report (hook-bodies.ts): the log file and the babysitter's URL. */
export interface HookSinks {
  logPath: string;
  webhookUrl: string;
}

/** Seconds a Job body and an exec body run (the babysitter takes 0.2–1 s of its own). */
const JOB_BODY_S = 1;
const EXEC_BODY_S = 1;

export interface Scenario {
  seed: number;
  profile: ChaosProfile;
  petSets: PetSetPlan[];
  faults: FaultEvent[];
}

const GOOD_IMAGES = ["nginx:1.25", "nginx:1.26", "nginx:1.27", "nginx:1.28"];
export const BROKEN_IMAGE = "nginx:broken";
/** The image of the last step after faults stop: every PetSet must converge to it. */
export const HEALED_IMAGE = "nginx:healed";

interface State {
  image: string;
  env: number;
  replicas: number;
  paused: boolean;
  partitioned: boolean;
  broken: boolean;
}

function container(s: State): Record<string, unknown> {
  return { name: "app", image: s.image, env: [{ name: "CHAOS_GEN", value: String(s.env) }] };
}

const templatePatch = (s: State) => ({ template: { spec: { containers: [container(s)] } } });

export function petSetManifest(
  name: string,
  s: State,
  extra: Record<string, unknown>,
): Record<string, unknown> {
  return {
    apiVersion: API_VERSION,
    kind: PETSET_KIND,
    metadata: { name },
    spec: {
      replicas: s.replicas,
      selector: { matchLabels: { app: name } },
      // No collection in a chaos run: the numbers must then be exactly 1..N (docs/versions.md).
      revisionHistoryLimit: 1000,
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } },
      template: {
        metadata: { labels: { app: name } },
        spec: { terminationGracePeriodSeconds: 1, containers: [container(s)] },
      },
      ...extra,
    },
  };
}

function nextStep(rng: Rng, s: State, gapMs: number): Step {
  const kinds: StepKind[] = ["rollout", "rollout", "spec-change-mid-rollout", "scale"];
  if (s.broken) kinds.push("fix", "fix", "fix");
  else kinds.push("broken");
  kinds.push(s.paused ? "resume" : "pause");
  kinds.push(s.partitioned ? "unpartition" : "partition");
  const kind = rng.pick(kinds);
  switch (kind) {
    case "rollout":
    case "fix":
      s.image = rng.pick(GOOD_IMAGES.filter((i) => i !== s.image));
      s.broken = false;
      return { kind, gapMs, spec: templatePatch(s) };
    case "spec-change-mid-rollout":
      // Right after the previous step: a second template change while the first rolls out.
      s.env += 1;
      return { kind, gapMs: rng.int(0, 300), spec: templatePatch(s) };
    case "broken":
      s.image = BROKEN_IMAGE;
      s.broken = true;
      return { kind, gapMs, spec: templatePatch(s) };
    case "scale":
      s.replicas = rng.pick([1, 2, 3, 4].filter((r) => r !== s.replicas));
      return { kind, gapMs, spec: { replicas: s.replicas } };
    case "pause":
    case "resume":
      s.paused = kind === "pause";
      return { kind, gapMs, spec: { paused: s.paused } };
    case "partition":
    case "unpartition": {
      // A canary: only the highest pet takes new versions until the partition is lowered.
      s.partitioned = kind === "partition";
      const partition = s.partitioned ? Math.max(0, s.replicas - 1) : 0;
      return { kind, gapMs, spec: { updateStrategy: { rollingUpdate: { partition } } } };
    }
  }
}

/** The hooks of a PetSet with side effects: the features it exercises and its `lifecycle`. */
function sideEffectHooks(
  i: number,
  r: Rng,
  sinks: HookSinks,
): { features: string[]; lifecycle: Record<string, unknown> } {
  const features: string[] = [];
  const lifecycle: Record<string, unknown> = {};
  const script = (s: number) => ["sh", "-c", hookScript(sinks.logPath, s)];
  if (i === 1 || (i > 2 && r.chance(0.5))) {
    features.push("preRollout-job", "preUpdate-exec");
    lifecycle.preRollout = {
      job: { command: script(JOB_BODY_S) },
      timeoutSeconds: 60,
      retries: 2,
      failurePolicy: "Ignore",
    };
    lifecycle.preUpdate = {
      exec: { command: script(EXEC_BODY_S) },
      timeoutSeconds: 30,
      retries: 1,
      failurePolicy: "Ignore",
    };
  }
  if (i === 2 || (i > 2 && r.chance(0.5))) {
    features.push("postUpdate-webhook");
    lifecycle.postUpdate = {
      webhook: { url: sinks.webhookUrl },
      timeoutSeconds: 30,
      retries: 1,
      failurePolicy: "Ignore",
    };
  }
  return { features, lifecycle };
}

/** Placeholders for a scenario printed or compared without a run (nothing listens there). */
export const NO_SINKS: HookSinks = { logPath: "/dev/null", webhookUrl: "http://127.0.0.1:9/hooks" };

export function generateScenario(seed: number, profile: ChaosProfile, sinks: HookSinks = NO_SINKS): Scenario {
  const rng = seededRng(seed);
  const petSets: PetSetPlan[] = [];
  for (let i = 0; i < profile.petSets; i++) {
    const r = rng.fork(`petset-${i}`);
    const name = `chaos-${i}`;
    const s: State = {
      image: r.pick(GOOD_IMAGES),
      env: 0,
      replicas: r.int(2, 3),
      paused: false,
      partitioned: false,
      broken: false,
    };
    const features: string[] = [];
    const extra: Record<string, unknown> = {};
    // The first PetSet always rolls back on its own, the second always runs an exec hook;
    // the others draw them.
    if (i === 0 || (i > 1 && r.chance(0.5))) {
      features.push("autoRollback");
      Object.assign(extra, { autoRollback: true, progressDeadlineSeconds: 8 });
    }
    if (profile.hookSideEffects) {
      const hooks = sideEffectHooks(i, r, sinks);
      features.push(...hooks.features);
      if (hooks.features.length > 0) extra.lifecycle = hooks.lifecycle;
    } else if (i === 1 || (i > 1 && r.chance(0.5))) {
      features.push("preUpdate-exec");
      extra.lifecycle = {
        preUpdate: { exec: { command: ["sh", "-c", "true"] }, timeoutSeconds: 30, failurePolicy: "Ignore" },
      };
    }
    if (r.chance(0.4)) {
      features.push("Parallel");
      extra.podManagementPolicy = "Parallel";
    }
    const manifest = petSetManifest(name, { ...s }, extra);
    const meanGap = profile.actionMs / (profile.stepsPerPetSet + 1);
    const steps: Step[] = [];
    for (let k = 0; k < profile.stepsPerPetSet; k++)
      steps.push(nextStep(r, s, r.int(Math.floor(meanGap / 2), Math.floor(meanGap * 1.5))));
    petSets.push({ name, manifest, features, steps });
  }
  const scopes = networkScopes(petSets);
  const faults = faultSchedule(rng.fork("faults"), profile).map((f) =>
    f.kind === "lost-answer" || f.kind === "status-burst"
      ? { ...f, network: networkFault(rng.fork(`network-${f.atMs}`), f.kind, scopes) }
      : f,
  );
  return { seed, profile, petSets, faults };
}

/**
 * The resources a network fault may be scoped to: the controller's writes a run makes (pods,
 * versions, status, Events), pods/exec when a PetSet has an exec hook, jobs when one has a
 * Job hook, the babysitter (`webhook`) when one has a webhook hook. Never the Lease: its faults are network-faults.test.ts's.
 */
export function networkScopes(petSets: readonly PetSetPlan[]): string[] {
  const scopes = ["pods", "petsetversions", "petsets/status", "events"];
  const features = petSets.flatMap((p) => p.features);
  if (features.some((f) => f.endsWith("-exec"))) scopes.push("pods/exec");
  if (features.some((f) => f.endsWith("-job"))) scopes.push("jobs");
  if (features.some((f) => f.endsWith("-webhook"))) scopes.push(WEBHOOK_RESOURCE);
  return scopes;
}

function networkFault(rng: Rng, kind: "lost-answer" | "status-burst", scopes: string[]): NetworkFault {
  const resources = [rng.pick(scopes)];
  if (kind === "status-burst")
    return { kind, code: rng.pick([429, 503] as const), count: rng.int(2, 6), resources };
  // Dropped, or delayed past the controller's 15 s request timeout as often as not.
  return rng.chance(0.5)
    ? { kind, resources, count: rng.int(1, 3), answer: "drop" }
    : { kind, resources, count: rng.int(1, 3), answer: "delay", delayMs: rng.int(2_000, 25_000) };
}

/** Faults spread over the action time, in order; the kinds shuffled among the slots. */
function faultSchedule(rng: Rng, p: ChaosProfile): FaultEvent[] {
  const kinds: FaultKind[] = [
    ...Array<FaultKind>(p.kills).fill("kill"),
    ...Array<FaultKind>(p.freezes).fill("freeze"),
    ...Array<FaultKind>(p.apiServerRestarts).fill("apiserver-restart"),
    ...Array<FaultKind>(p.etcdRestarts).fill("etcd-restart"),
    ...Array<FaultKind>(p.lostAnswers).fill("lost-answer"),
    ...Array<FaultKind>(p.statusBursts).fill("status-burst"),
  ];
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [kinds[i], kinds[j]] = [kinds[j] as FaultKind, kinds[i] as FaultKind];
  }
  const slot = p.actionMs / (kinds.length + 1);
  return kinds.map((kind, i) => ({ kind, atMs: Math.round(slot * (i + 0.5) + rng.next() * slot) }));
}

/** The spec every PetSet gets once faults stop: running, unpartitioned, a good new image. */
export function healPatch(generation = "healed"): Record<string, unknown> {
  return {
    paused: false,
    updateStrategy: { rollingUpdate: { partition: 0 } },
    template: {
      spec: {
        containers: [{ name: "app", image: HEALED_IMAGE, env: [{ name: "CHAOS_GEN", value: generation }] }],
      },
    },
  };
}
