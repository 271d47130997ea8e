/**
 * Which pods and claims a PetSet controls: adoption and release, as the ControllerRefManager of
 * apps/v1 StatefulSets. Pure: cached objects in, decisions out; the sync performs them
 * (src/controller/adoption.ts). The rules:
 *
 * Pods (every pod of the namespace the cache holds; a pet's name is `<set>-<ordinal>`, any
 * ordinal, so orphans beyond `replicas` are adopted and then scaled down as usual):
 *  - controlled by this PetSet (controller ownerReference with its uid), named as a pet and
 *    matching the selector: owned. Only owned pods reach the planner.
 *  - controlled by this PetSet but not matching the selector, or not named as a pet: released
 *    (our ownerReference removed), unless the PetSet is being deleted.
 *  - controlled by anything else (another kind, or an older PetSet of the same name): never
 *    touched. If named as a pet it is a conflict (reason PodOwnedByOther).
 *  - no controller, named as a pet, matching the selector, not terminating, and the PetSet is
 *    not being deleted: adopted.
 *  - no controller, named as a pet, not matching the selector (a released pod): a conflict
 *    (reason PodNotSelected); petset never adopts or deletes it.
 *  - Every pet name held by a pod the PetSet does not own is a blocked ordinal: the planner
 *    creates no pod there (the create would only fail with AlreadyExists). That includes
 *    orphans about to be adopted: the sync plans again once the adoption shows in the cache.
 *
 * Claims (named `<template>-<set>-<ordinal>` for one of spec.volumeClaimTemplates):
 * petset owns a claim iff `persistentVolumeClaimRetentionPolicy.whenDeleted` is Delete (as
 * buildClaim creates them, and as StatefulSets set claim ownerReferences), so
 *  - whenDeleted=Delete: a claim without controller is adopted (not while either is being
 *    deleted);
 *  - whenDeleted=Retain: our controller ownerReference is removed (released), so deleting the
 *    PetSet never takes storage the policy says to keep;
 *  - a claim controlled by anything else is foreign: never adopted, released or deleted (the
 *    planner skips it for retention). With a Delete policy petset cannot apply the policy to
 *    it, so that is a conflict (reason ClaimOwnedByOther); with Retain/Retain it is not.
 *
 * Other ownerReferences (non-controller ones) are kept: adopt and release write the whole list
 * with a resourceVersion precondition, so nothing written in between is lost.
 */
import type { V1OwnerReference } from "@kubernetes/client-node";
import { claimName, type LabelSelector, type PetSet, podName } from "../../api/index.js";
import { ownerReferenceTo } from "./pod-template.js";

/** The metadata ownership decisions read; built from a cached pod or claim. */
export interface OwnedObjectMeta {
  name: string;
  uid: string;
  resourceVersion: string;
  labels: Readonly<Record<string, string>>;
  ownerReferences: readonly V1OwnerReference[];
  deleting: boolean;
}

export const ConflictReasons = {
  podOwnedByOther: "PodOwnedByOther",
  podNotSelected: "PodNotSelected",
  /** Found on a failed create: the pod lacks petset.dev/petset, so no cache shows it (adoption.ts). */
  podNotLabelled: "PodNotLabelled",
  claimOwnedByOther: "ClaimOwnedByOther",
} as const;
export type ConflictReason = (typeof ConflictReasons)[keyof typeof ConflictReasons];

export interface OwnershipConflict {
  kind: "Pod" | "PersistentVolumeClaim";
  name: string;
  reason: ConflictReason;
  /** Names the object, its owner (kind/name, uid) and what petset does about it. */
  message: string;
}

/** One ownerReferences write: the complete new list (null: remove the field). */
export interface OwnerRefChange {
  name: string;
  uid: string;
  resourceVersion: string;
  ownerReferences: V1OwnerReference[] | null;
}

export interface OwnershipDecision {
  /** Names of the pods this PetSet controls and selects: the planner's pods. */
  ownedPods: string[];
  adoptPods: OwnerRefChange[];
  releasePods: OwnerRefChange[];
  adoptClaims: OwnerRefChange[];
  releaseClaims: OwnerRefChange[];
  /** Ordinals whose pod name is held by a pod this PetSet does not own: create nothing there. */
  blockedOrdinals: number[];
  /** Claims controlled by something else: never deleted by retention. */
  foreignClaims: string[];
  /** Sorted by kind, then name. */
  conflicts: OwnershipConflict[];
}

export interface OwnershipInput {
  petSet: PetSet;
  pods: readonly OwnedObjectMeta[];
  claims: readonly OwnedObjectMeta[];
}

export function controllerOf(meta: OwnedObjectMeta): V1OwnerReference | undefined {
  return meta.ownerReferences.find((r) => r.controller === true);
}

/** The ordinal of a pod named `<set>-<ordinal>` (canonical decimal); undefined otherwise. */
export function petOrdinal(setName: string, name: string): number | undefined {
  const prefix = `${setName}-`;
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  if (!/^(0|[1-9][0-9]{0,8})$/.test(rest)) return undefined;
  const ordinal = Number.parseInt(rest, 10);
  return podName(setName, ordinal) === name ? ordinal : undefined;
}

/** Label selector semantics of apps/v1 (an empty selector matches everything). */
export function selectorMatches(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const value = labels[e.key];
    const values = e.values ?? [];
    if (e.operator === "In" && (value === undefined || !values.includes(value))) return false;
    if (e.operator === "NotIn" && value !== undefined && values.includes(value)) return false;
    if (e.operator === "Exists" && value === undefined) return false;
    if (e.operator === "DoesNotExist" && value !== undefined) return false;
  }
  return true;
}

function describeOwner(ref: V1OwnerReference): string {
  return `${ref.kind}/${ref.name} (uid ${ref.uid})`;
}

function withoutUid(refs: readonly V1OwnerReference[], uid: string): V1OwnerReference[] {
  return refs.filter((r) => r.uid !== uid);
}

function adoptChange(meta: OwnedObjectMeta, petSet: PetSet, uid: string): OwnerRefChange {
  return {
    name: meta.name,
    uid: meta.uid,
    resourceVersion: meta.resourceVersion,
    ownerReferences: [...withoutUid(meta.ownerReferences, uid), ownerReferenceTo(petSet)],
  };
}

function releaseChange(meta: OwnedObjectMeta, uid: string): OwnerRefChange {
  const rest = withoutUid(meta.ownerReferences, uid);
  return {
    name: meta.name,
    uid: meta.uid,
    resourceVersion: meta.resourceVersion,
    ownerReferences: rest.length > 0 ? rest : null,
  };
}

export function decideOwnership(input: OwnershipInput): OwnershipDecision {
  const { petSet } = input;
  const setName = petSet.metadata.name ?? "";
  const uid = petSet.metadata.uid ?? "";
  const setDeleting = petSet.metadata.deletionTimestamp !== undefined;
  const decision: OwnershipDecision = {
    ownedPods: [],
    adoptPods: [],
    releasePods: [],
    adoptClaims: [],
    releaseClaims: [],
    blockedOrdinals: [],
    foreignClaims: [],
    conflicts: [],
  };
  const blocked = new Set<number>();

  for (const pod of input.pods) {
    const ordinal = petOrdinal(setName, pod.name);
    const selected = ordinal !== undefined && selectorMatches(petSet.spec.selector, pod.labels);
    const controller = controllerOf(pod);
    if (controller !== undefined && controller.uid === uid) {
      if (selected) decision.ownedPods.push(pod.name);
      else if (!setDeleting) decision.releasePods.push(releaseChange(pod, uid));
      continue;
    }
    if (ordinal === undefined) continue;
    blocked.add(ordinal);
    if (controller !== undefined) {
      decision.conflicts.push({
        kind: "Pod",
        name: pod.name,
        reason: ConflictReasons.podOwnedByOther,
        message: `pod ${pod.name} is controlled by ${describeOwner(controller)}: PetSet ${setName} never touches it, and pet ${pod.name} is not created while it exists`,
      });
    } else if (setDeleting || pod.deleting) {
      // Nothing to adopt; the name frees itself once the pod is gone.
    } else if (!selected) {
      decision.conflicts.push({
        kind: "Pod",
        name: pod.name,
        reason: ConflictReasons.podNotSelected,
        message: `pod ${pod.name} has no controller and does not match spec.selector of PetSet ${setName}: it is not adopted, and pet ${pod.name} is not created while it exists (delete it, or restore its labels to have it adopted)`,
      });
    } else {
      decision.adoptPods.push(adoptChange(pod, petSet, uid));
    }
  }
  decision.blockedOrdinals = [...blocked].sort((a, b) => a - b);

  const policy = petSet.spec.persistentVolumeClaimRetentionPolicy;
  const ownClaims = policy.whenDeleted === "Delete";
  const anyDelete = ownClaims || policy.whenScaled === "Delete";
  const templates = petSet.spec.volumeClaimTemplates.map((t) => t.metadata.name);
  for (const claim of input.claims) {
    if (!isPetClaim(claim.name, templates, setName)) continue;
    const controller = controllerOf(claim);
    if (controller !== undefined && controller.uid === uid) {
      if (!ownClaims && !setDeleting) decision.releaseClaims.push(releaseChange(claim, uid));
      continue;
    }
    if (controller !== undefined) {
      decision.foreignClaims.push(claim.name);
      if (anyDelete)
        decision.conflicts.push({
          kind: "PersistentVolumeClaim",
          name: claim.name,
          reason: ConflictReasons.claimOwnedByOther,
          message: `claim ${claim.name} is controlled by ${describeOwner(controller)}: PetSet ${setName} neither adopts nor deletes it, so spec.persistentVolumeClaimRetentionPolicy does not apply to it`,
        });
      continue;
    }
    if (ownClaims && !setDeleting && !claim.deleting)
      decision.adoptClaims.push(adoptChange(claim, petSet, uid));
  }
  decision.conflicts.sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name));
  return decision;
}

function isPetClaim(name: string, templates: readonly string[], setName: string): boolean {
  return templates.some((t) => {
    const prefix = `${t}-`;
    if (!name.startsWith(prefix)) return false;
    const ordinal = petOrdinal(setName, name.slice(prefix.length));
    return ordinal !== undefined && claimName(t, setName, ordinal) === name;
  });
}
