/**
 * Adoption and release, the side-effect half of planner/ownership.ts (which decides). Before a
 * PetSet is planned, its orphaned pets and claims are adopted and pods it controls that no
 * longer match its selector are released; the sync then plans again once the cache shows the
 * writes, so the planner only ever sees pods the PetSet controls.
 *
 *  - Every write is a JSON merge patch of metadata.ownerReferences with the object's uid and
 *    resourceVersion: an object that changed since the cache showed it fails with 409 (the next
 *    sync decides again).
 *  - Before adopting anything the PetSet is read again bypassing the cache (as StatefulSets
 *    do): a PetSet that is being deleted, or that was replaced by another with the same name
 *    (another uid), adopts nothing. Adoption is rare, so the read is cheap.
 *  - Objects held by another controller show as the PetConflict condition (True while any
 *    exists, removed once none does) and one Warning Event per object when it first appears.
 */
import type { KubernetesObject, V1PersistentVolumeClaim, V1Pod } from "@kubernetes/client-node";
import { ConditionTypes, Labels, type PetSet, type PetSetStatus } from "../api/index.js";
import type { Logger } from "../util/logger.js";
import { isConflict, isInvalid } from "./api-errors.js";
import type { ClaimControl } from "./claim-control.js";
import type { EventRecorder, EventTarget } from "./event-recorder.js";
import type { Expectation } from "./expectations.js";
import type { PetSetReader } from "./petset-client.js";
import type { Step } from "./planner/index.js";
import {
  ConflictReasons,
  controllerOf,
  decideOwnership,
  type OwnedObjectMeta,
  type OwnerRefChange,
  type OwnershipConflict,
  petOrdinal,
} from "./planner/ownership.js";
import type { PodControl } from "./pod-control.js";
import { withCondition } from "./status-compare.js";

export interface AdoptionDeps {
  pods: PodControl;
  claims: ClaimControl;
  petSets: PetSetReader;
  events: EventRecorder;
  logger: Logger;
  /** Receives what the cache must show before the next plan (expectations.ts). */
  expect?: (e: Expectation) => void;
}

export interface OwnershipOutcome {
  /** Something was adopted or released: plan on the next sync, once the cache shows it. */
  changed: boolean;
  /**
   * Orphans wait for adoption but the live PetSet is being deleted or is another one: the
   * cache is behind, and planning now would leave those pets out of every rule. Plan later.
   */
  refused: boolean;
  /** The pods the PetSet controls: the planner's pods. */
  ownedPods: V1Pod[];
  /** Pet ordinals held by pods the PetSet does not own: the planner creates nothing there. */
  blockedOrdinals: number[];
  /** Claims held by another controller: retention never deletes them. */
  foreignClaims: ReadonlySet<string>;
  conflicts: OwnershipConflict[];
}

export const OwnershipEventReasons = {
  adopted: "Adopted",
  released: "Released",
} as const;

export function ownedObjectMeta(obj: KubernetesObject): OwnedObjectMeta {
  const m = obj.metadata ?? {};
  return {
    name: m.name ?? "",
    uid: m.uid ?? "",
    resourceVersion: m.resourceVersion ?? "",
    labels: m.labels ?? {},
    ownerReferences: m.ownerReferences ?? [],
    deleting: m.deletionTimestamp !== undefined && m.deletionTimestamp !== null,
  };
}

/** What adoption reads of the pod and claim caches (indexed lookups; informers.ts). */
export interface CandidateSource<T extends KubernetesObject> {
  ofPetSet(namespace: string, petSet: string): readonly T[];
  controlledBy(namespace: string, uid: string): readonly T[];
  namedUnder(namespace: string, prefix: string): readonly T[];
}

/**
 * The cached pods or claims that can concern this PetSet: labelled for it, named like its
 * pets (`<name>-...`), or controlled by it. Each through an index, never a scan of the
 * namespace (a scan per sync made a cold start over 2,000 PetSets quadratic); by name, so the
 * decisions do not depend on the order the cache saw the objects in.
 */
function candidates<T extends KubernetesObject>(source: CandidateSource<T>, petSet: PetSet): T[] {
  const namespace = petSet.metadata.namespace ?? "default";
  const name = petSet.metadata.name ?? "";
  const uid = petSet.metadata.uid;
  const found = new Map<string, T>();
  const add = (objs: readonly T[]) => {
    for (const o of objs) found.set(o.metadata?.name ?? "", o);
  };
  add(source.ofPetSet(namespace, name));
  add(source.namedUnder(namespace, name));
  if (uid) add(source.controlledBy(namespace, uid));
  return [...found.keys()].sort().map((n) => found.get(n) as T);
}

export async function reconcileOwnership(
  deps: AdoptionDeps,
  petSet: PetSet,
  cachedPods: CandidateSource<V1Pod>,
  cachedClaims: CandidateSource<V1PersistentVolumeClaim>,
): Promise<OwnershipOutcome> {
  const namespace = petSet.metadata.namespace ?? "default";
  const pods = candidates(cachedPods, petSet);
  const claims = candidates(cachedClaims, petSet);
  const decision = decideOwnership({
    petSet,
    pods: pods.map(ownedObjectMeta),
    claims: claims.map(ownedObjectMeta),
  });
  const target = petSetTarget(petSet);
  const setName = petSet.metadata.name ?? "";
  let changed = false;
  /**
   * One ownerReferences write, then its Event. The expectation follows the API's answer: a
   * write lost on the network may not have landed, and nothing would ever show it.
   */
  const write = async (
    resource: "pods" | "persistentvolumeclaims",
    change: OwnerRefChange,
    reason: string,
    message: string,
  ) => {
    const control = resource === "pods" ? deps.pods : deps.claims;
    try {
      await control.setOwnerReferences(namespace, ...args(change));
    } catch (err) {
      // 409 (resourceVersion) or 422 (another uid): the object moved on; the cache will show it.
      if (isConflict(err) || isInvalid(err)) expectChange(deps, resource, change);
      throw err;
    }
    expectChange(deps, resource, change);
    await deps.events.record(target, { type: "Normal", reason, message });
    changed = true;
  };
  const { released, adopted } = OwnershipEventReasons;

  for (const change of decision.releasePods) {
    await write(
      "pods",
      change,
      released,
      petOrdinal(setName, change.name) === undefined
        ? `Released pod ${change.name}: its name is not a pet's of PetSet ${setName} (${setName}-<ordinal>)`
        : `Released pod ${change.name}: its labels no longer match spec.selector of PetSet ${setName}`,
    );
  }
  for (const change of decision.releaseClaims) {
    await write(
      "persistentvolumeclaims",
      change,
      released,
      `Released claim ${change.name}: spec.persistentVolumeClaimRetentionPolicy.whenDeleted is Retain`,
    );
  }
  const wantsAdoption = decision.adoptPods.length + decision.adoptClaims.length > 0;
  const refused = wantsAdoption && !(await canAdopt(deps, petSet));
  if (wantsAdoption && !refused) {
    for (const change of decision.adoptPods) {
      await write(
        "pods",
        change,
        adopted,
        `Adopted pod ${change.name}: it had no controller and matches spec.selector`,
      );
    }
    for (const change of decision.adoptClaims) {
      await write(
        "persistentvolumeclaims",
        change,
        adopted,
        `Adopted claim ${change.name}: it had no controller and spec.persistentVolumeClaimRetentionPolicy.whenDeleted is Delete`,
      );
    }
  }

  const owned = new Set(decision.ownedPods);
  return {
    changed,
    refused,
    ownedPods: pods.filter((p) => owned.has(p.metadata?.name ?? "")),
    blockedOrdinals: decision.blockedOrdinals,
    foreignClaims: new Set(decision.foreignClaims),
    conflicts: decision.conflicts,
  };
}

function args(change: OwnerRefChange) {
  return [change.name, change.uid, change.resourceVersion, change.ownerReferences] as const;
}

/** An ownerReferences patch leaves the expectation that the cache moves past what it was based on. */
function expectChange(
  deps: AdoptionDeps,
  resource: "pods" | "persistentvolumeclaims",
  change: OwnerRefChange,
) {
  deps.expect?.({
    kind: "changed",
    resource,
    name: change.name,
    uid: change.uid,
    from: change.resourceVersion,
  });
}

/** StatefulSet's RecheckDeletionTimestamp: the live PetSet is this one and is not being deleted. */
export async function canAdopt(
  deps: Pick<AdoptionDeps, "petSets" | "logger">,
  petSet: PetSet,
): Promise<boolean> {
  const namespace = petSet.metadata.namespace ?? "default";
  const name = petSet.metadata.name ?? "";
  const fresh = await deps.petSets.getFresh(namespace, name);
  const why =
    fresh === undefined
      ? "it is gone"
      : fresh.uid !== petSet.metadata.uid
        ? `it was replaced (uid ${fresh.uid}, cached ${petSet.metadata.uid})`
        : fresh.deleting
          ? "it is being deleted"
          : undefined;
  if (why === undefined) return true;
  deps.logger.info({ petSet: `${namespace}/${name}` }, `not adopting orphans: ${why}`);
  return false;
}

/**
 * A create of a pet's pod failed with AlreadyExists and the cache has no such pod: it exists
 * without label petset.dev/petset (the caches only hold labelled pods), e.g. a StatefulSet's
 * pod of the same name. Read it uncached; petset never touches it, and says so. "gone" when
 * the live read finds no pod: it was deleted since the create (the name is free, and no cache
 * will ever show the pod the create collided with). A pod this PetSet controls whose labels
 * no longer match its selector is released first (the cache cannot show it to
 * reconcileOwnership), then reported like any unlabelled pod. Undefined when the step was not
 * a pod create, or the pod is in the cache, labelled for this PetSet, or ours and still
 * matching (the cache is only behind: the usual 250 ms retry).
 */
export async function hiddenPodConflict(
  deps: {
    pods: PodControl;
    events: EventRecorder;
    caches: { pods: { get(name: string, ns?: string): unknown } };
  },
  petSet: PetSet,
  step: Step,
): Promise<OwnershipConflict | "gone" | undefined> {
  if (step.kind !== "createPod") return undefined;
  const namespace = petSet.metadata.namespace ?? "default";
  const name = step.pod.metadata?.name ?? "";
  if (deps.caches.pods.get(name, namespace) !== undefined) return undefined;
  const pod = await deps.pods.get(namespace, name);
  if (pod === undefined) return "gone";
  const meta = ownedObjectMeta(pod);
  const controller = controllerOf(meta);
  const setName = petSet.metadata.name ?? "";
  // Labelled, so the cache will show it: the cache is only behind.
  if (meta.labels[Labels.petSet] === setName) return undefined;
  if (controller?.uid === petSet.metadata.uid) {
    // Ours, but its labels were taken away (upstream's "release non-matching pods"): the cache
    // will never show it again, so release it here when it no longer matches the selector. One
    // that still matches stays ours (the cache is only behind, or it waits for its label).
    const release = decideOwnership({ petSet, pods: [meta], claims: [] }).releasePods[0];
    if (release === undefined) return undefined;
    await deps.pods.setOwnerReferences(namespace, ...args(release));
    await deps.events.record(petSetTarget(petSet), {
      type: "Normal",
      reason: OwnershipEventReasons.released,
      message: `Released pod ${name}: its labels no longer match spec.selector of PetSet ${setName}`,
    });
  }
  if (controller !== undefined && controller.uid !== petSet.metadata.uid) {
    return {
      kind: "Pod",
      name,
      reason: ConflictReasons.podOwnedByOther,
      message: `pod ${name} is controlled by ${controller.kind}/${controller.name} (uid ${controller.uid}): PetSet ${setName} never touches it, and pet ${name} is not created while it exists`,
    };
  }
  return {
    kind: "Pod",
    name,
    reason: ConflictReasons.podNotLabelled,
    message: `pod ${name} has no label ${Labels.petSet}=${setName}, so PetSet ${setName} cannot see it: it is not adopted, and pet ${name} is not created while it exists (label it to have it adopted, or delete it)`,
  };
}

const MAX_LISTED = 3;

/**
 * Status with the PetSet's conflicts as condition PetConflict (removed when there are none),
 * and the conflicts the previous status did not mention yet (to record as Events).
 */
export function withConflicts(
  status: PetSetStatus,
  previous: PetSetStatus | undefined,
  conflicts: readonly OwnershipConflict[],
  now: number,
  generation: number | undefined,
): { status: PetSetStatus; fresh: OwnershipConflict[] } {
  const type = ConditionTypes.petConflict;
  const first = conflicts[0];
  if (first === undefined) {
    return { status: { ...status, conditions: status.conditions.filter((c) => c.type !== type) }, fresh: [] };
  }
  const listed = conflicts.slice(0, MAX_LISTED).map((c) => c.message);
  const more = conflicts.length > MAX_LISTED ? `; and ${conflicts.length - MAX_LISTED} more` : "";
  const message = conflicts.length === 1 ? first.message : `${listed.join("; ")}${more}`;
  const before = previous?.conditions.find((c) => c.type === type)?.message ?? "";
  // Conflicts beyond the listed ones get their Event once they are listed.
  const fresh = conflicts.slice(0, MAX_LISTED).filter((c) => !before.includes(c.message));
  const reason = conflicts.every((c) => c.reason === first.reason) ? first.reason : "Conflicts";
  return {
    status: withCondition(status, { type, status: "True", reason, message }, now, generation),
    fresh,
  };
}

export function petSetTarget(petSet: PetSet): EventTarget {
  return {
    apiVersion: petSet.apiVersion,
    kind: petSet.kind,
    namespace: petSet.metadata.namespace ?? "default",
    name: petSet.metadata.name ?? "",
    uid: petSet.metadata.uid,
  };
}
