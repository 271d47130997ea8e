/**
 * Upstream's drivers (scaleUpStatefulSetControl, scaleDownStatefulSetControl,
 * updateStatefulSetControl, parallelScale{Up,Down}StatefulSetControl), re-expressed: after
 * every random pod state change (`pick`: a seeded choice, or fast-check's in the random
 * harness) one sync runs and the invariant is checked. A sync error ends the drive and is
 * returned, as upstream returns UpdateStatefulSet's error. Each drive gives up after a bounded
 * number of syncs, so a controller that stops making progress fails instead of hanging.
 */
import type { V1Pod } from "@kubernetes/client-node";
import { check, type Invariant } from "./invariants.js";
import { isReady, ordinalOf, podVersion, type TableWorld } from "./world.js";

export type Pick = (n: number) => number;
/** Iterations (a pod change, mostly followed by a sync) before a drive gives up. */
const MAX_SYNCS = 2000;

function canAdvance(pod: V1Pod): boolean {
  if (pod.metadata?.deletionTimestamp !== undefined) return false;
  return pod.status?.phase === "Pending" || (pod.status?.phase === "Running" && !isReady(pod));
}

/**
 * Moves one random pod forward: Pending → Running → Running and Ready. Returns whether a sync
 * should follow: upstream skips the sync when the chosen pod cannot move (`default: continue`);
 * here also, unless no pod can move (then only a sync changes anything).
 */
function advanceRandomPod(w: TableWorld, pick: Pick): boolean {
  const pods = w.pods();
  if (!pods.some(canAdvance)) return true;
  const pod = pods[pick(pods.length)];
  if (pod === undefined || !canAdvance(pod)) return false;
  const ordinal = ordinalOf(pod);
  if (pod.status?.phase === "Pending") w.setPodRunning(ordinal);
  else w.setPodReady(ordinal);
  return true;
}

/**
 * With minReadySeconds, a world where no pod can move waits on the clock: it moves on by what
 * the sync asked for (requeueAfterMs), at most minReadySeconds. Upstream's drivers never
 * set minReadySeconds, so they never need this.
 */
function tickIfWaiting(w: TableWorld, requeueAfterMs: number | undefined): void {
  const minReadyMs = (w.spec().minReadySeconds ?? 0) * 1000;
  if (minReadyMs <= 0 || w.pods().some(canAdvance)) return;
  w.fake.now += Math.max(1, Math.min(requeueAfterMs ?? minReadyMs, minReadyMs));
}

/** scaleUpStatefulSetControl: until readyReplicas reaches replicas. */
export async function scaleUp(w: TableWorld, invariant: Invariant, pick: Pick): Promise<unknown> {
  for (let i = 0; w.status().readyReplicas < w.spec().replicas; i++) {
    if (i > MAX_SYNCS) throw new Error(`scale up: no progress after ${MAX_SYNCS} syncs`);
    if (!advanceRandomPod(w, pick)) continue;
    const out = await w.sync();
    if (out.error !== undefined) return out.error;
    check(w, invariant);
    tickIfWaiting(w, out.requeueAfterMs);
  }
  check(w, invariant);
  return undefined;
}

/**
 * scaleDownStatefulSetControl: a sync deletes; the deleted pod stays terminating for one more
 * sync (which must neither replace it nor go on past it in order), then leaves.
 */
export async function scaleDown(w: TableWorld, invariant: Invariant): Promise<unknown> {
  w.graceful = true;
  try {
    for (let i = 0; w.status().replicas > w.spec().replicas || w.pods().length > w.spec().replicas; i++) {
      if (i > MAX_SYNCS) throw new Error(`scale down: no progress after ${MAX_SYNCS} syncs`);
      let out = await w.sync();
      if (out.error !== undefined) return out.error;
      out = await w.sync();
      if (out.error !== undefined) return out.error;
      check(w, invariant);
      w.finishTerminating();
      out = await w.sync();
      if (out.error !== undefined) return out.error;
      check(w, invariant);
    }
  } finally {
    w.graceful = false;
  }
  return invariant(w) === undefined ? undefined : new Error(`invariant violated: ${invariant(w)}`);
}

/** updateComplete: every pet Ready, and at the update version from the partition up. */
export function updateComplete(w: TableWorld): boolean {
  const spec = w.spec();
  const st = w.status();
  const pods = w.pods();
  if (pods.length !== spec.replicas || st.readyReplicas !== spec.replicas) return false;
  if (spec.updateStrategy.type === "OnDelete") return true;
  const partition = spec.updateStrategy.rollingUpdate?.partition ?? 0;
  if (partition <= 0) {
    if (st.currentReplicas < spec.replicas) return false;
    return pods.every((p) => podVersion(p) === st.currentVersion);
  }
  return pods.slice(partition).every((p) => podVersion(p) === st.updateVersion);
}

/** updateStatefulSetControl: one sync, then random pod changes and syncs until updateComplete. */
export async function updateControl(w: TableWorld, invariant: Invariant, pick: Pick): Promise<unknown> {
  let out = await w.sync();
  if (out.error !== undefined) return out.error;
  for (let i = 0; !updateComplete(w); i++) {
    if (i > MAX_SYNCS) throw new Error(`update: not complete after ${MAX_SYNCS} syncs`);
    if (!advanceRandomPod(w, pick)) continue;
    out = await w.sync();
    if (out.error !== undefined) return out.error;
    check(w, invariant);
    tickIfWaiting(w, out.requeueAfterMs);
  }
  check(w, invariant);
  return undefined;
}

/**
 * parallelScaleUpStatefulSetControl, with upstream's bound: at most 2 syncs of the controller
 * to create every missing pet (their 2 × 500-pod batches). Returns the creates of each sync.
 */
export async function parallelScaleUp(w: TableWorld, invariant: Invariant): Promise<number[]> {
  const perSync: number[] = [];
  for (let loops = 2; w.status().replicas < w.spec().replicas; loops--) {
    if (loops < 1)
      throw new Error(`after 2 syncs: want ${w.spec().replicas} replicas, got ${w.status().replicas}`);
    const before = w.count("createPod");
    const out = await w.sync();
    if (out.error !== undefined) throw out.error;
    perSync.push(w.count("createPod") - before);
    check(w, invariant);
  }
  return perSync;
}

/** parallelScaleDownStatefulSetControl: the deletes of each sync, at most 2 rounds of 2 syncs. */
export async function parallelScaleDown(w: TableWorld, invariant: Invariant): Promise<number[]> {
  const perSync: number[] = [];
  for (let loops = 2; w.status().replicas > w.spec().replicas; loops--) {
    if (loops < 1)
      throw new Error(`after 2 rounds: want ${w.spec().replicas} replicas, got ${w.status().replicas}`);
    for (let i = 0; i < 2; i++) {
      const before = w.count("deletePod");
      const out = await w.sync();
      if (out.error !== undefined) throw out.error;
      perSync.push(w.count("deletePod") - before);
    }
  }
  check(w, invariant);
  return perSync;
}
