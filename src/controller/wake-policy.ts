/**
 * Wake policy: which pod events sync their PetSet at once and which may share the next sync.
 * Every event of a pet's pod woke a sync of the whole set (issue 29: ~8 syncs per pet in a
 * rollout, a third of the controller's CPU), though most of them cannot let the plan do
 * anything it could not do before: a pod that appears, is bound to a node, starts terminating
 * or, once terminating, reports its containers stopping. Those events ("soon") wake
 * the sync within a short delay (`SOON_MS`) unless another sync of the PetSet starts first;
 * that sync reads the caches as they are then, so the event is seen either way.
 *
 * Only *when* a sync runs changes, never what it sees: the caches take every event at once,
 * and a sync plans from all of them (so no guarantee rests on this: a wrong "soon" costs at
 * most `SOON_MS` of latency). Rules, on the planner's view of the pod before and after:
 *  - now: the pod is gone (a pet to create, a budget freed), or its Ready changed, or its
 *    phase, a container's failure or restarts, whether it counts as running and Ready or as
 *    waiting for an in-place update, a Ready pod's containers (images, resources: the kubelet
 *    acted on an in-place update or resize), its resize conditions, a label or an annotation
 *    other than the announced target version (a user's request, a relabel), or its uid
 *    (another incarnation); and any event for which the view before is unknown.
 *  - soon: a pod that appears (created: it is not Ready yet; a sync waiting for the
 *    controller's own create to show is woken at once, see below), a pod that starts terminating
 *    (never unblocks a step: a terminating pod counts as unavailable and holds its pet's
 *    name), any change of a pod that was terminating already (only its DELETED frees
 *    anything), and anything else (binding, IPs, conditions other than Ready, the
 *    controller's own target-version announcement).
 *
 * PetSet events: soon only for the echo of this controller's own status write (the first
 * event at another resourceVersion than the write was based on, status-coalescing.ts
 * `takeEcho`; the sync that wrote it planned on everything before it), unless the spec is one
 * the controller has not seen (a new generation). Everything else, a user's annotation or a
 * deletion included, wakes at once.
 *
 * The caller wakes at once whatever the event when the PetSet's last sync waited for the
 * caches to show its own writes (sync-expectations.ts): that sync is owed a prompt retry.
 * Events of versions, claims and nodes always wake at once (few, and each may unblock).
 *
 * Spacing (`SYNC_SPACING_MS`, the queue's `minIntervalMs`): "at once" means at most one sync
 * of a PetSet per 25 ms, counted from the start of its last sync. An event within that time
 * waits for the rest of it, and every event meanwhile shares that sync: ten pods of a rollout
 * at maxUnavailable 10 turning Ready (or gone) a few ms apart wake one or two syncs, not ten
 * (issue 29: syncs per pet 3.55 -> 1.84, CPU per pet -9 %, wall time unchanged; docs/benchmarks.md
 * §3i). A spec the controller has not recorded never waits (the urgent lane). Like "soon", it
 * changes only when a sync runs, never what it reads: the latency it adds is at most 25 ms per
 * step, against pods that take seconds to start.
 */
import { Annotations } from "../api/index.js";
import { inPlaceUpdatePending, isRunningAndReady } from "./planner/pod-health.js";
import type { PodView } from "./planner/views.js";

/** Least time from the start of one sync of a PetSet to the next (queue.ts `minIntervalMs`). */
export const SYNC_SPACING_MS = 25;

/** How long a "soon" event may wait for a sync another event starts. */
export const SOON_MS = 200;

export type Wake = "now" | "soon";

export type CacheEventKind = "add" | "update" | "delete";

/** `earlier`, `pod`: the planner's views before and after; an add or a delete needs neither. */
export function podEventWake(
  kind: CacheEventKind,
  earlier: PodView | undefined,
  pod: PodView | undefined,
): Wake {
  if (kind === "delete") return "now";
  if (kind === "add") return "soon";
  if (earlier === undefined || pod === undefined || earlier.uid !== pod.uid) return "now";
  // Terminating (just now or before): only its DELETED frees anything.
  if (pod.deletionTimestamp !== undefined) return "soon";
  if (
    earlier.ready !== pod.ready ||
    earlier.phase !== pod.phase ||
    earlier.failing !== pod.failing ||
    earlier.restartCount !== pod.restartCount ||
    earlier.restartedAfterBackOff !== pod.restartedAfterBackOff ||
    isRunningAndReady(earlier) !== isRunningAndReady(pod) ||
    inPlaceUpdatePending(earlier) !== inPlaceUpdatePending(pod) ||
    (pod.ready && (earlier.containers !== pod.containers || earlier.initContainers !== pod.initContainers)) ||
    earlier.resizeInProgress !== pod.resizeInProgress ||
    earlier.resizePending?.reason !== pod.resizePending?.reason ||
    !sameRecord(earlier.labels, pod.labels, undefined) ||
    !sameRecord(earlier.annotations, pod.annotations, Annotations.targetVersion)
  )
    return "now";
  return "soon";
}

function sameRecord(
  a: Readonly<Record<string, string>>,
  b: Readonly<Record<string, string>>,
  ignored: string | undefined,
): boolean {
  if (a === b) return true;
  let n = 0;
  for (const k in a) {
    if (k === ignored) continue;
    if (a[k] !== b[k]) return false;
    n++;
  }
  let m = 0;
  for (const k in b) if (k !== ignored) m++;
  return n === m;
}

/**
 * The caller's side of the rules: before the workers run (a cold start's list queues every key
 * once anyway) and while the PetSet's last sync waited for its expectations, every event wakes
 * at once; otherwise the event's own rule (`wake`, asked only then) decides.
 */
export function wakeGiven(state: { running: boolean; parked: boolean }, wake: () => Wake): Wake {
  return state.running && !state.parked ? wake() : "now";
}

/** `specUnseen`: generation differs from status.observedGeneration; `ownEcho`: see the header. */
export function petSetEventWake(kind: CacheEventKind, specUnseen: boolean, ownEcho: boolean): Wake {
  return kind === "update" && !specUnseen && ownEcho ? "soon" : "now";
}
