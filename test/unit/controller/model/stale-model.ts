/**
 * A model of the controller in a world that is not fresh, for the model checker
 * (stale-model.test.ts). The truth is the planner simulator's World (simulate.ts); around it:
 *
 * - Feeds: every object (each pod and claim by name, the PetSet, the version list) has the
 *   ordered list of states the truth went through, as a watch would deliver them. A replica's
 *   view is, per object, how far it has read that object's feed: watch order is preserved per
 *   object and interleaving across objects is arbitrary (the scheduler chooses).
 * - Replicas: each records versions on its own view with the real version recorder
 *   (planVersionSync, src/versions/plan-sync.ts: a user's change only edits the spec, so the
 *   numbers the rule-1 check reads are the recorder's), plans with the real planner
 *   (planRollout), keeps the real ExpectationStore (src/controller/expectations.ts) and
 *   executes its sync one step at a time, so other things can happen between two steps of
 *   one sync. Steps meet the API's preconditions (uid/resourceVersion → 409, NotFound,
 *   AlreadyExists: a version name taken) like the executor.
 * - The Lease: the leader renews every tick unless frozen; a standby takes over once the
 *   record is older than the lease duration. With fencing, each replica holds the real
 *   LeaseFence (src/controller/lease-guard.ts) on the model's clock, told of every renew and
 *   of the loss as the elector tells it; a step is executed only when the fence's check()
 *   passes, and a new leader's caches start on leadership (a fresh view). Without (the code
 *   before the safety issue), a frozen leader resumes and finishes its sync, and a standby
 *   plans on its lagging view.
 * - Restarts: a replica crashes at any point (its in-flight plan, view and expectations are
 *   gone) and a fresh one takes its place.
 *
 * Invariants (SPEC rules 1–3, 7), checked on the truth after every change: at most two
 * contents live (terminating pods count), an update never makes more than maxUnavailable pets
 * unavailable except through disruptions the acting replica could not have seen, no pet moved
 * below the partition or while paused (as the acting replica's view of the spec says), version
 * numbers 1..N with matching names, no change recorded twice (two consecutive versions of one
 * content, older content repeated without rollbackOf), the newest version holding the spec
 * once faults stop (no change lost), and no two replicas writing within one tick of each
 * other's lease (one writer). With spec.roles, steps and External (SPEC rule 11, issue 24 item
 * 11), judged on the acting replica's view: a Ready leader never moves for an update while a
 * Ready follower at or above the partition still runs its content, and no pet moves to a
 * version held at an unpromoted pause step (invariants.ts).
 */
import type { PetSetStatus, PetSetVersion } from "../../../../src/api/index.js";
import { type Expectation, ExpectationStore } from "../../../../src/controller/expectations.js";
import { isLeaseLost, LeaseFence } from "../../../../src/controller/lease-guard.js";
import { planRollout, type Step } from "../../../../src/controller/planner/index.js";
import type { NodeView } from "../../../../src/controller/planner/node-failure.js";
import type { ClaimView, PodView } from "../../../../src/controller/planner/views.js";
import { planVersionSync } from "../../../../src/versions/plan-sync.js";
import { tick as kubeletTick, type World } from "../planner/simulate.js";
import { deliverAll, lookupFor, record, viewOf } from "./feeds.js";
import { type Nodes, nodesTick } from "./nodes.js";
import { perform } from "./perform.js";

export { deliver, deliverAll, feedKeys, laggingKeys, record } from "./feeds.js";

export interface ModelOptions {
  /** Syncs wait until the view shows the replica's own writes. */
  expectations: boolean;
  /** Writes checked against the Lease; caches start on leadership. */
  fencing: boolean;
  leaseTicks: number;
  /** Writes stop this many ticks before the lease could expire. */
  marginTicks: number;
  expectationsTimeoutTicks: number;
  /**
   * A create's or delete's expectation is recorded before the request and kept when the answer
   * is lost (expectBefore); false: recorded only on an answer, as before issue 24 item 3.
   */
  intentBeforeRequest: boolean;
  /** The version recorder (default the real planVersionSync; a planted-fault test swaps it). */
  recorder?: typeof planVersionSync;
  /** The planner (default the real planRollout; a planted-fault test wraps it). */
  planner?: typeof planRollout;
}

export const fixedCode: ModelOptions = {
  expectations: true,
  fencing: true,
  leaseTicks: 4,
  marginTicks: 1,
  expectationsTimeoutTicks: 30,
  intentBeforeRequest: true,
};
export const codeBeforeSafetyIssue: ModelOptions = { ...fixedCode, expectations: false, fencing: false };

export type FeedState =
  | PodView
  | ClaimView
  | NodeView
  | World["petSet"]
  | World["versions"][number]
  | undefined;

/** A version the sync's recorder decided to create: POSTed before the planner's steps. */
export interface CreateVersionStep {
  kind: "createVersion";
  version: PetSetVersion;
}

export type ModelStep = Step | CreateVersionStep;

export interface InFlight {
  steps: ModelStep[];
  status: PetSetStatus;
  petSetIndex: number;
  view: View;
  /** The versions the plan saw: the view's, and the one this sync records first. */
  versions: World["versions"];
  /** The clock the plan read. */
  plannedAt: number;
  /** Pods this sync moved so far (deleted or patched for an update). */
  moved: Set<string>;
}

export interface View {
  petSet: World["petSet"];
  versions: World["versions"];
  pods: PodView[];
  claims: ClaimView[];
  /** Nodes (lost-node failover, nodes.ts); undefined when the model has none. */
  nodes?: NodeView[];
}

export interface Replica {
  id: number;
  read: Map<string, number>;
  expectations: ExpectationStore;
  /** The real fence, on the model's clock (used only with `fencing`). */
  fence: LeaseFence;
  inflight: InFlight | undefined;
  lastRenewAt: number | undefined;
  /** When it took the Lease: the planner judges no time before (planner/takeover.ts). */
  drivingSince: number | undefined;
  leading: boolean;
  frozen: boolean;
  crashed: boolean;
  /** With nodes: false until its node cache synced (a node event delivered; nodes.ts). */
  nodesSynced?: boolean;
}

export interface Model {
  world: World;
  opts: ModelOptions;
  feeds: Map<string, FeedState[]>;
  replicas: Replica[];
  lease: { holder: number | undefined; renewAt: number };
  /** uids of pods a user deleted (disruptions a replica may not have seen yet). */
  userDeleted: Set<string>;
  /** Last write per replica (time), for the one-writer check. */
  lastWrite: Map<number, number>;
  /** Write requests per replica, successful or not (what an audit log counts). */
  attempts: Map<number, number>;
  violations: string[];
  nextId: number;
  /** Nodes, a scheduler and lost-node truth (nodes.ts); undefined: pods have no node. */
  nodes?: Nodes;
}

export const tickMs = (m: Model) => m.world.options.tickMs;

export function createModel(world: World, opts: ModelOptions, replicas = 2): Model {
  const m: Model = {
    world,
    opts,
    feeds: new Map(),
    replicas: [],
    lease: { holder: undefined, renewAt: 0 },
    userDeleted: new Set(),
    lastWrite: new Map(),
    attempts: new Map(),
    violations: [],
    nextId: 0,
  };
  record(m);
  for (let i = 0; i < replicas; i++) m.replicas.push(newReplica(m));
  electLeader(m);
  return m;
}

function newReplica(m: Model): Replica {
  const r: Replica = {
    id: m.nextId++,
    read: new Map(),
    expectations: new ExpectationStore(m.opts.expectationsTimeoutTicks * tickMs(m)),
    fence: new LeaseFence({ now: () => m.world.now }, (m.opts.leaseTicks - m.opts.marginTicks) * tickMs(m)),
    inflight: undefined,
    lastRenewAt: undefined,
    drivingSince: undefined,
    leading: false,
    frozen: false,
    crashed: false,
  };
  deliverAll(m, r);
  return r;
}

// ------------------------------------------------------------------ the Lease

function electLeader(m: Model): void {
  const now = m.world.now;
  const expired = m.lease.holder === undefined || now - m.lease.renewAt >= m.opts.leaseTicks * tickMs(m);
  if (!expired) return;
  const next =
    m.replicas.find((r) => !r.frozen && !r.crashed && r.id !== m.lease.holder) ??
    m.replicas.find((r) => !r.frozen && !r.crashed);
  if (next === undefined) return;
  m.lease = { holder: next.id, renewAt: now };
  next.leading = true;
  next.lastRenewAt = now;
  next.fence.renewed(now);
  next.drivingSince = now;
  // Caches start on leadership: the first list is a consistent read (the node cache may sync
  // after the first sync: nodes.ts).
  if (m.opts.fencing) deliverAll(m, next, false);
}

/** The Lease part of a tick: the holder renews; a replica that finds it lost stops. */
function leaseTick(m: Model): void {
  for (const r of m.replicas) {
    if (r.frozen || r.crashed || !r.leading) continue;
    if (m.lease.holder === r.id) {
      m.lease.renewAt = m.world.now;
      r.lastRenewAt = m.world.now;
      r.fence.renewed(m.world.now);
    } else {
      r.leading = false; // lost: it never writes again (with fencing its in-flight plan stops)
      r.fence.lose(`replica ${m.lease.holder} holds the Lease`);
      // The controller exits on a lost Lease (exit 1) and is restarted: a fresh replica.
      if (m.opts.fencing) crash(m, r);
    }
  }
  electLeader(m);
}

/** With fencing, the real LeaseFence decides (its check() throws LeaseLostError). */
function mayWrite(m: Model, r: Replica): boolean {
  if (r.frozen || r.crashed) return false;
  if (!m.opts.fencing) return r.leading || r.inflight !== undefined;
  try {
    r.fence.check();
    return true;
  } catch (err) {
    if (isLeaseLost(err)) return false;
    throw err;
  }
}

// ------------------------------------------------------------------ actions

export function tick(m: Model): void {
  if (m.nodes !== undefined) nodesTick(m, () => kubeletTick(m.world));
  else kubeletTick(m.world);
  record(m);
  leaseTick(m);
}

export function freeze(_m: Model, r: Replica, frozen: boolean): void {
  r.frozen = frozen;
}

/** The replica's process dies; a fresh one (empty memory, fresh caches) takes its place. */
export function crash(m: Model, r: Replica): void {
  r.crashed = true;
  r.leading = false;
  r.inflight = undefined;
  const fresh = newReplica(m);
  if (m.nodes !== undefined) fresh.nodesSynced = false;
  m.replicas[m.replicas.indexOf(r)] = fresh;
}

export function userDelete(m: Model, name: string): void {
  const pod = m.world.pods.get(name);
  if (pod === undefined || pod.view.deletionTimestamp !== undefined) return;
  m.userDeleted.add(pod.view.uid);
  const grace = m.world.options.terminateTicks * tickMs(m);
  pod.view = {
    ...pod.view,
    deletionTimestamp: m.world.now + grace,
    deletionRequestedAt: m.world.now,
    ready: false,
    resourceVersion: String(++m.world.serial),
  };
  pod.goneAt = m.world.now + grace;
  record(m);
}

/** One sync starts: wait for expectations, then plan on the view. */
export function startSync(m: Model, r: Replica): void {
  if (r.inflight !== undefined || r.crashed || r.frozen || !r.leading) return;
  const now = m.world.now;
  if (m.opts.expectations) {
    const check = r.expectations.check("web", lookupFor(m, r), now);
    if (check.pending.length > 0) return;
  }
  const view = viewOf(m, r);
  const steps: ModelStep[] = [];
  let versions = view.versions;
  if (m.world.options.versionsByController) {
    // As sync.ts: record the spec's content first, then plan with the new version.
    const recorded = (m.opts.recorder ?? planVersionSync)(view.petSet, view.versions);
    if (recorded.action === "create") {
      steps.push({ kind: "createVersion", version: recorded.version });
      versions = [...versions, recorded.version];
    }
  }
  if (versions.length === 0) return;
  const plan = (m.opts.planner ?? planRollout)({
    petSet: view.petSet,
    versions,
    pods: view.pods,
    claims: view.claims,
    ...(view.nodes !== undefined ? { nodes: view.nodes } : {}),
    now,
    ...(r.drivingSince !== undefined ? { drivingSince: r.drivingSince } : {}),
  });
  steps.push(...plan.steps);
  r.inflight = {
    steps,
    status: plan.status,
    petSetIndex: r.read.get("petset") ?? -1,
    view,
    versions,
    plannedAt: now,
    moved: new Set(),
  };
}

/**
 * What the API answers to one request, besides the normal answer:
 * - "refused": a 429/503 burst; nothing applied, the intent of a create or delete withdrawn,
 *   the sync fails and is retried later;
 * - "lost": applied, the answer lost (timeout, reset); the sync fails; a create's or delete's
 *   expectation, recorded before the request (expectBefore), is kept; a patch's is not (it is
 *   recorded on the answer), so the next sync may plan on the pod's older state: its
 *   resourceVersion precondition keeps that safe.
 */
export type AnswerFault = "refused" | "lost";

/** The replica's sync performs its next step (or, after the last, writes status). */
export function executeNext(m: Model, r: Replica, fault?: AnswerFault): void {
  const f = r.inflight;
  if (f === undefined || r.frozen || r.crashed) return;
  if (!mayWrite(m, r)) {
    if (m.opts.fencing) r.inflight = undefined; // LeaseLostError: the sync ends, nothing written
    return;
  }
  const keepAll = (e: Expectation) => r.expectations.expect("web", e, m.world.now);
  const kept = (e: Expectation) => e.kind !== "changed" && m.opts.intentBeforeRequest;
  const expect = fault === "lost" ? (e: Expectation) => (kept(e) ? keepAll(e) : undefined) : keepAll;
  m.attempts.set(r.id, (m.attempts.get(r.id) ?? 0) + 1);
  const step = f.steps.shift();
  if (fault === "refused") {
    r.inflight = undefined;
    return;
  }
  if (step === undefined) {
    r.inflight = undefined;
    const truthIndex = (m.feeds.get("petset")?.length ?? 0) - 1;
    if (f.petSetIndex !== truthIndex) return; // 409 on the status write: the next sync redoes it
    noteWrite(m, r);
    expect({ kind: "changed", resource: "petsets", name: "web", uid: "set-uid", from: String(truthIndex) });
    m.world.petSet = { ...m.world.petSet, status: f.status };
    record(m);
    return;
  }
  const outcome = perform(m, r, f, step, expect);
  if (outcome !== "ok" || fault === "lost") r.inflight = undefined;
}

export function noteWrite(m: Model, r: Replica): void {
  for (const [other, at] of m.lastWrite) {
    if (other !== r.id && m.world.now - at < tickMs(m)) {
      m.violations.push(`t=${m.world.now}: replicas ${other} and ${r.id} both wrote within one tick`);
    }
  }
  m.lastWrite.set(r.id, m.world.now);
}

export function leader(m: Model): Replica | undefined {
  return m.replicas.find((r) => r.id === m.lease.holder && !r.crashed);
}
