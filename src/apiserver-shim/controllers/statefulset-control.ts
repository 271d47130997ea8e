/**
 * What the embedded StatefulSet controller does with one StatefulSet in one pass, as a pure
 * function of the set, the namespace's pods, ControllerRevisions and claims, and the time
 * (kube 1.33 pkg/controller/statefulset: sync, ClaimPods, updateStatefulSet). Steps are in
 * the order kube takes them; the adapter performs them and reads everything again next pass.
 *
 * - Pods: those named `<set>-<ordinal>` that match the selector; the set's own are kept (or
 *   released when they stop matching), orphans adopted, pods another controller holds are
 *   left alone (their names stay taken: no pod is made in their place).
 * - Ordinals [start, start+replicas) are the replicas; the rest are condemned. OrderedReady
 *   (monotonic) handles one pod at a time in ordinal order and waits for each to be Running,
 *   Ready and Available; Parallel does all at once. Failed or Succeeded pods are deleted and
 *   made again. New pods below the partition get the current revision, the others the update
 *   revision.
 * - Scale down deletes condemned pods from the highest ordinal, one at a time under OrderedReady
 *   and only once every replica is healthy.
 * - RollingUpdate deletes the highest-ordinal pod at or above the partition that is not on the
 *   update revision, only when every replica is healthy (maxUnavailable, when set, lets that
 *   many be unavailable, as with kube's MaxUnavailableStatefulSet gate); OnDelete never does.
 * - Status: counts of the owned pods, current/update revision, collisionCount, observedGeneration;
 *   an update that reached every replica makes the update revision current.
 * - A set being deleted only gets its status; history is trimmed every pass.
 */
import { labelSelectorRequirements, matchesRequirements } from "../selectors/label-selector.js";
import { deepEqual, isPlainObject, type KubeObject, type OwnerReference } from "../types.js";
import {
  availableAt,
  claimIsStale,
  claimOwnersWanted,
  claimsFor,
  isHealthy,
  isRunningAndReady,
  isTerminating,
  missingIdentityLabels,
  newPod,
  parentAndOrdinal,
  phaseOf,
  podRevision,
  replicasOf,
  specOf,
  startOrdinal,
} from "./statefulset-pods.js";
import {
  controllerOf,
  planRevisions,
  revisionsToTruncate,
  revisionTemplate,
} from "./statefulset-revision.js";

type Obj = Record<string, unknown>;

export type StatefulSetStep =
  | { kind: "adoptRevision"; name: string; uid: string }
  | { kind: "createRevision"; revision: KubeObject }
  | { kind: "renumberRevision"; name: string; uid: string; revision: number }
  | { kind: "adoptPod"; name: string; uid: string }
  | { kind: "releasePod"; name: string; uid: string }
  /** Creates the claims that do not exist, then the pod. */
  | { kind: "createPod"; pod: KubeObject; claims: KubeObject[] }
  | { kind: "createClaims"; claims: KubeObject[] }
  | { kind: "labelPod"; name: string; uid: string; labels: Record<string, string> }
  | { kind: "setClaimOwners"; name: string; uid: string; ownerReferences: OwnerReference[] }
  | { kind: "deletePod"; name: string; uid: string; why: "failed" | "scale-down" | "update" }
  | { kind: "deleteRevision"; name: string; uid: string };

export interface StatefulSetPlan {
  steps: StatefulSetStep[];
  /** The status to write, if it differs from the stored one. */
  status?: Obj;
  /** Look again after this long (a pod becomes available after minReadySeconds). */
  requeueAfterMs?: number;
}

export interface StatefulSetWorld {
  set: KubeObject;
  /** The namespace's pods, ControllerRevisions and claims. */
  pods: readonly KubeObject[];
  revisions: readonly KubeObject[];
  claims: readonly KubeObject[];
  nowMs: number;
}

const num = (v: unknown, fallback: number): number => (typeof v === "number" ? v : fallback);

/** ClaimPods: the set's pods after adoption and release, and the steps that do it. */
function claimPods(world: StatefulSetWorld, steps: StatefulSetStep[]): KubeObject[] {
  const { set } = world;
  const selector = labelSelectorRequirements(specOf(set).selector);
  const deleting = set.metadata.deletionTimestamp !== undefined;
  const owned: KubeObject[] = [];
  for (const pod of world.pods) {
    const matches =
      matchesRequirements(selector, pod.metadata.labels) &&
      parentAndOrdinal(pod.metadata.name!).parent === set.metadata.name;
    const owner = controllerOf(pod);
    if (owner !== undefined) {
      if (owner.uid !== set.metadata.uid) continue;
      if (matches) owned.push(pod);
      else if (!deleting)
        steps.push({ kind: "releasePod", name: pod.metadata.name!, uid: pod.metadata.uid! });
    } else if (matches && !deleting && !isTerminating(pod)) {
      steps.push({ kind: "adoptPod", name: pod.metadata.name!, uid: pod.metadata.uid! });
      owned.push(pod);
    }
  }
  return owned;
}

interface Replicas {
  /** Index i holds ordinal start+i: an owned pod, or a pod to create (`planned`). */
  replicas: KubeObject[];
  planned: Set<KubeObject>;
  condemned: KubeObject[];
}

function maxUnavailableOf(set: KubeObject, replicas: number): number | undefined {
  const strategy = specOf(set).updateStrategy;
  const rolling = isPlainObject(strategy) ? strategy.rollingUpdate : undefined;
  const raw = isPlainObject(rolling) ? rolling.maxUnavailable : undefined;
  if (raw === undefined || raw === null) return undefined;
  const n =
    typeof raw === "string" && raw.endsWith("%")
      ? Math.floor((Number(raw.slice(0, -1)) * replicas) / 100)
      : Number(raw);
  return Number.isFinite(n) && n >= 1 ? n : 1;
}

function partitionOf(set: KubeObject): number | undefined {
  const strategy = specOf(set).updateStrategy;
  const rolling = isPlainObject(strategy) ? strategy.rollingUpdate : undefined;
  return isPlainObject(rolling) ? num(rolling.partition, 0) : undefined;
}

function strategyType(set: KubeObject): string {
  const strategy = specOf(set).updateStrategy;
  return isPlainObject(strategy) && typeof strategy.type === "string" ? strategy.type : "RollingUpdate";
}

export function planStatefulSet(world: StatefulSetWorld): StatefulSetPlan {
  const { set, nowMs } = world;
  const steps: StatefulSetStep[] = [];
  const selector = labelSelectorRequirements(specOf(set).selector);
  const revs = planRevisions(set, world.revisions, selector);
  for (const r of revs.adopt)
    steps.push({ kind: "adoptRevision", name: r.metadata.name!, uid: r.metadata.uid! });
  const pods = claimPods(world, steps);
  if (revs.create) steps.push({ kind: "createRevision", revision: revs.create });
  if (revs.renumber) steps.push({ kind: "renumberRevision", ...revs.renumber });
  const { current, update } = revs;
  const currentName = current.metadata.name!;
  const updateName = update.metadata.name!;
  const spec = specOf(set);
  const minReady = num(spec.minReadySeconds, 0);
  const start = startOrdinal(set);
  const count = replicasOf(set);
  const prevStatus = (isPlainObject(set.status) ? set.status : {}) as Obj;
  const taken = new Set(world.pods.map((p) => p.metadata.name!));

  // Replicas by ordinal; missing ones are planned from the current or update revision.
  const byOrdinal = new Map<number, KubeObject>();
  const condemned: KubeObject[] = [];
  for (const pod of pods) {
    const { ordinal } = parentAndOrdinal(pod.metadata.name!);
    if (ordinal >= start && ordinal < start + count) byOrdinal.set(ordinal, pod);
    else if (ordinal >= 0) condemned.push(pod);
  }
  condemned.sort(
    (a, b) => parentAndOrdinal(b.metadata.name!).ordinal - parentAndOrdinal(a.metadata.name!).ordinal,
  );
  const partition = partitionOf(set);
  const rollingNoPartition = strategyType(set) === "RollingUpdate" && partition === undefined;
  const r: Replicas = { replicas: [], planned: new Set(), condemned };
  for (let ordinal = start; ordinal < start + count; ordinal++) {
    const existing = byOrdinal.get(ordinal);
    if (existing) {
      r.replicas.push(existing);
      continue;
    }
    const atCurrent =
      (rollingNoPartition && ordinal < start + num(prevStatus.currentReplicas, 0)) ||
      (partition !== undefined && ordinal < start + partition);
    const revision = atCurrent ? current : update;
    const pod = newPod(set, revisionTemplate(revision), revision.metadata.name!, ordinal);
    r.replicas.push(pod);
    r.planned.add(pod);
  }

  // Status counts the pods that exist (kube: isCreated), from what this pass saw.
  const status: Obj = {
    observedGeneration: set.metadata.generation ?? 0,
    currentRevision: currentName,
    updateRevision: updateName,
    collisionCount: revs.collisionCount,
  };
  let requeueAfterMs: number | undefined;
  const counts = {
    replicas: 0,
    readyReplicas: 0,
    availableReplicas: 0,
    currentReplicas: 0,
    updatedReplicas: 0,
  };
  for (const pod of [...r.replicas, ...condemned]) {
    if (r.planned.has(pod) || phaseOf(pod) === "") continue;
    counts.replicas++;
    if (isRunningAndReady(pod)) {
      counts.readyReplicas++;
      const at = availableAt(pod, minReady)!;
      if (at <= nowMs) counts.availableReplicas++;
      else if (Number.isFinite(at)) requeueAfterMs = Math.min(requeueAfterMs ?? at - nowMs, at - nowMs);
    }
    if (!isTerminating(pod)) {
      if (podRevision(pod) === currentName) counts.currentReplicas++;
      if (podRevision(pod) === updateName) counts.updatedReplicas++;
    }
  }
  const available = (pod: KubeObject) => isRunningAndReady(pod) && availableAt(pod, minReady)! <= nowMs;

  if (set.metadata.deletionTimestamp === undefined)
    act(world, r, {
      monotonic: spec.podManagementPolicy !== "Parallel",
      available,
      taken,
      claims: world.claims,
      updateName,
      steps,
      counts,
    });

  // Trim history (kube does it even when the pass failed); live: current, update, pods' revisions.
  const live = new Set([currentName, updateName, ...pods.map(podRevision)]);
  for (const old of revisionsToTruncate(set, revs.revisions, live))
    steps.push({ kind: "deleteRevision", name: old.metadata.name!, uid: old.metadata.uid! });

  Object.assign(status, counts);
  // completeRollingUpdate
  if (
    strategyType(set) === "RollingUpdate" &&
    counts.updatedReplicas === count &&
    counts.readyReplicas === count &&
    counts.replicas === count
  ) {
    status.currentReplicas = counts.updatedReplicas;
    status.currentRevision = updateName;
  }
  const next = { ...prevStatus, ...status };
  const plan: StatefulSetPlan = { steps };
  if (!deepEqual(next, prevStatus)) plan.status = next;
  if (requeueAfterMs !== undefined) plan.requeueAfterMs = requeueAfterMs;
  return plan;
}

interface ActContext {
  monotonic: boolean;
  available: (pod: KubeObject) => boolean;
  taken: Set<string>;
  claims: readonly KubeObject[];
  updateName: string;
  steps: StatefulSetStep[];
  counts: { currentReplicas: number };
}

/** updateStatefulSet: replicas, condemned pods, then the rolling update; stops where kube waits. */
function act(world: StatefulSetWorld, r: Replicas, c: ActContext): void {
  const { set } = world;
  const { steps, monotonic } = c;
  const start = startOrdinal(set);
  const count = replicasOf(set);
  const claimByName = new Map(c.claims.map((cl) => [cl.metadata.name!, cl]));
  const claimsOf = (ordinal: number) =>
    claimsFor(set, ordinal)
      .map((cl) => claimByName.get(cl.metadata.name!))
      .filter((cl): cl is KubeObject => cl !== undefined);
  const fixClaims = (pod: KubeObject, ordinal: number, inRange: boolean) => {
    for (const claim of claimsOf(ordinal)) {
      const owners = claimOwnersWanted(
        claim,
        set,
        { name: pod.metadata.name!, uid: pod.metadata.uid! },
        inRange,
      );
      if (owners)
        steps.push({
          kind: "setClaimOwners",
          name: claim.metadata.name!,
          uid: claim.metadata.uid!,
          ownerReferences: owners,
        });
    }
  };
  const unhealthy = [...r.replicas, ...[...r.condemned].reverse()].filter(
    (p) => r.planned.has(p) || !isHealthy(p),
  );
  const firstUnhealthy = unhealthy[0];

  // processReplica for each replica; `true` means "stop here" (monotonic) or "skip the rest of this pod".
  const processReplica = (pod: KubeObject, index: number): boolean => {
    const ordinal = start + index;
    const phase = phaseOf(pod);
    if (!r.planned.has(pod) && (phase === "Failed" || phase === "Succeeded")) {
      if (!isTerminating(pod))
        steps.push({ kind: "deletePod", name: pod.metadata.name!, uid: pod.metadata.uid!, why: "failed" });
      return true;
    }
    if (r.planned.has(pod)) {
      // The name is held by a pod that is not ours (another controller's): kube's create would fail.
      if (c.taken.has(pod.metadata.name!)) return true;
      if (claimIsStale(set, claimsOf(ordinal), pod.metadata.name!)) return true;
      const missing = claimsFor(set, ordinal).filter((cl) => !claimByName.has(cl.metadata.name!));
      steps.push({ kind: "createPod", pod, claims: missing.map((cl) => withCreateOwners(cl, set)) });
      return monotonic;
    }
    if (phase === "Pending") {
      const missing = claimsFor(set, ordinal).filter((cl) => !claimByName.has(cl.metadata.name!));
      if (missing.length > 0)
        steps.push({ kind: "createClaims", claims: missing.map((cl) => withCreateOwners(cl, set)) });
    }
    if (monotonic && (isTerminating(pod) || !isRunningAndReady(pod) || !c.available(pod))) return true;
    fixClaims(pod, ordinal, true);
    const labels = missingIdentityLabels(pod, ordinal);
    if (labels) steps.push({ kind: "labelPod", name: pod.metadata.name!, uid: pod.metadata.uid!, labels });
    return false;
  };
  for (let i = 0; i < r.replicas.length; i++) if (processReplica(r.replicas[i]!, i) && monotonic) return;

  for (const pod of r.condemned) fixClaims(pod, parentAndOrdinal(pod.metadata.name!).ordinal, false);

  for (const pod of r.condemned) {
    if (isTerminating(pod)) {
      if (monotonic) return;
      continue;
    }
    if (monotonic && pod !== firstUnhealthy && (!isRunningAndReady(pod) || !c.available(pod))) return;
    steps.push({ kind: "deletePod", name: pod.metadata.name!, uid: pod.metadata.uid!, why: "scale-down" });
    if (monotonic) return;
  }

  if (strategyType(set) === "OnDelete") return;
  const partition = partitionOf(set) ?? 0;
  const maxUnavailable = maxUnavailableOf(set, count);
  if (maxUnavailable === undefined) {
    for (let target = r.replicas.length - 1; target >= partition; target--) {
      const pod = r.replicas[target]!;
      if (podRevision(pod) !== c.updateName && !isTerminating(pod)) {
        steps.push({ kind: "deletePod", name: pod.metadata.name!, uid: pod.metadata.uid!, why: "update" });
        c.counts.currentReplicas--;
        return;
      }
      if (r.planned.has(pod) || !isHealthy(pod)) return;
    }
    return;
  }
  // updateStatefulSetAfterInvariantEstablished (MaxUnavailableStatefulSet).
  let budget = maxUnavailable - r.replicas.filter((p) => r.planned.has(p) || !isHealthy(p)).length;
  for (let target = r.replicas.length - 1; target >= partition && budget > 0; target--) {
    const pod = r.replicas[target]!;
    if (r.planned.has(pod)) continue;
    if (podRevision(pod) !== c.updateName && !isTerminating(pod)) {
      steps.push({ kind: "deletePod", name: pod.metadata.name!, uid: pod.metadata.uid!, why: "update" });
      c.counts.currentReplicas--;
      budget--;
    }
  }
}

/** A claim as created for a pod in range: the set owns it when whenDeleted is Delete. */
function withCreateOwners(claim: KubeObject, set: KubeObject): KubeObject {
  const owners = claimOwnersWanted(claim, set, { name: "", uid: "" }, true);
  return owners && owners.length > 0
    ? { ...claim, metadata: { ...claim.metadata, ownerReferences: owners } }
    : claim;
}
