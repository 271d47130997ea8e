/**
 * Upstream's invariant functions (assertMonotonicInvariants, assertBurstInvariants,
 * assertUpdateInvariants, checkClaimInvarients), re-expressed for PetSets. Each returns the
 * first violation as a message, or undefined.
 *
 * Claims differ by design (docs/upstream-controller-table.md): petset owns a claim with a
 * controller reference to the PetSet iff whenDeleted=Delete (so the garbage collector takes it
 * with the PetSet), and never puts a pod reference on a claim: with whenScaled=Delete the
 * controller deletes a condemned pet's claims itself once its pod is gone, where a
 * StatefulSet hands them to the garbage collector through a pod reference. So: every pod has
 * its claims, none has a pod reference, and the set reference follows whenDeleted.
 */
import type { V1Pod } from "@kubernetes/client-node";
import { Labels } from "../../../src/api/index.js";
import { isReady, ordinalOf, podVersion, SET, SET_UID, type TableWorld } from "./world.js";

export type Invariant = (w: TableWorld) => string | undefined;

function startOrdinal(w: TableWorld): number {
  return w.spec().ordinals?.start ?? 0;
}

/** identityMatches: the pet's name, hostname, subdomain and index label. */
function identity(pod: V1Pod): string | undefined {
  const name = pod.metadata?.name ?? "";
  const o = ordinalOf(pod);
  if (name !== `${SET}-${o}`) return `pod ${name} is not named as a pet of ${SET}`;
  if (pod.spec?.hostname !== name) return `pod ${name} has hostname ${pod.spec?.hostname}`;
  if (pod.spec?.subdomain !== "governingsvc") return `pod ${name} has subdomain ${pod.spec?.subdomain}`;
  if (pod.metadata?.labels?.[Labels.podIndex] !== String(o))
    return `pod ${name} has pod-index ${pod.metadata?.labels?.[Labels.podIndex]}`;
  if (pod.metadata?.labels?.[Labels.petSet] !== SET) return `pod ${name} lacks the petset label`;
  return undefined;
}

/** storageMatches + the claim invariants, for one pod. */
function storage(w: TableWorld, pod: V1Pod): string | undefined {
  const name = pod.metadata?.name ?? "";
  const claimName = `datadir-${name}`;
  const volume = pod.spec?.volumes?.find((v) => v.name === "datadir");
  if (volume?.persistentVolumeClaim?.claimName !== claimName)
    return `pod ${name} does not mount claim ${claimName}`;
  const claim = w.claim(claimName);
  if (claim === undefined) return `claim ${claimName} for pod ${name} was not created`;
  const refs = claim.metadata?.ownerReferences ?? [];
  if (refs.some((r) => r.kind === "Pod")) return `claim ${claimName} has a pod owner reference`;
  const policy = w.spec().persistentVolumeClaimRetentionPolicy ?? {
    whenScaled: "Retain",
    whenDeleted: "Retain",
  };
  const setRef = refs.some((r) => r.uid === SET_UID && r.controller === true);
  if (policy.whenDeleted === "Delete" && !setRef)
    return `claim ${claimName} has no owner reference to ${SET} though whenDeleted is Delete`;
  if (policy.whenDeleted === "Retain" && refs.some((r) => r.uid === SET_UID))
    return `claim ${claimName} has an owner reference to ${SET} though whenDeleted is Retain`;
  if (claim.metadata?.labels?.[Labels.petSet] !== SET) return `claim ${claimName} lacks the petset label`;
  return undefined;
}

export const assertBurstInvariants: Invariant = (w) => {
  for (const pod of w.pods()) {
    const finding = storage(w, pod) ?? identity(pod);
    if (finding !== undefined) return finding;
  }
  return undefined;
};

export const assertMonotonicInvariants: Invariant = (w) => {
  const pods = w.pods();
  for (let idx = 0; idx < pods.length; idx++) {
    const pod = pods[idx] as V1Pod;
    const prev = pods[idx - 1];
    if (prev !== undefined && isReady(pod) && !isReady(prev))
      return `successor ${pod.metadata?.name} is Running and Ready while ${prev.metadata?.name} is not`;
    if (ordinalOf(pod) !== idx + startOrdinal(w))
      return `pod ${pod.metadata?.name} deployed in the wrong order ${idx + startOrdinal(w)}`;
  }
  return assertBurstInvariants(w);
};

/**
 * assertUpdateInvariants: the lowest currentReplicas pets run the current version and the
 * highest updatedReplicas pets the update version (RollingUpdate only), judged on the pods
 * the status was derived from (TableWorld.statusView): petset derives status from the view
 * the sync planned on (SPEC rule 9), where upstream adjusts its counts as it creates and
 * deletes within the sync. By ordinal, so a pet missing from the view runs nothing.
 */
export const assertUpdateInvariants: Invariant = (w) => {
  const burst = assertBurstInvariants(w);
  if (burst !== undefined) return burst;
  const spec = w.spec();
  if (spec.updateStrategy.type !== "RollingUpdate") return undefined;
  const st = w.status();
  const start = startOrdinal(w);
  const byOrdinal = new Map((w.statusView ?? w.pods()).map((p) => [ordinalOf(p), p]));
  for (let o = start; o < start + Math.min(st.currentReplicas, spec.replicas); o++) {
    const pod = byOrdinal.get(o);
    if (pod !== undefined && podVersion(pod) !== st.currentVersion)
      return `pod ${pod.metadata?.name} want current version ${st.currentVersion} got ${podVersion(pod)}`;
  }
  // Condemned pets (above the range, not yet deleted) are counted too, as upstream counts them;
  // st.replicas: the pets of the view the status was derived from (one the sync deleted, too).
  const end = Math.max(
    start + spec.replicas,
    start + st.replicas,
    ...[...byOrdinal.keys()].map((o) => o + 1),
  );
  for (let o = end - 1; o >= end - st.updatedReplicas && o >= start; o--) {
    const pod = byOrdinal.get(o);
    if (pod !== undefined && podVersion(pod) !== st.updateVersion)
      return `pod ${pod.metadata?.name} want update version ${st.updateVersion} got ${podVersion(pod)}`;
  }
  return undefined;
};

export function check(w: TableWorld, invariant: Invariant): void {
  const finding = invariant(w);
  if (finding !== undefined) throw new Error(`invariant violated: ${finding}`);
}
