/**
 * The invariants the planner's simulated world (simulate.ts) checks around every step it
 * applies: before it (paused, OnDelete, partition, OrderedReady, highest first, one pod per
 * pet, claims never shrunk or patched below the partition) and after it (at most two versions
 * live, maxUnavailable, claims follow versions). Violations are collected on the world, not
 * thrown. The model checker reuses claimPatchViolations and claimFollowViolations.
 */

import { storageBytes, templateFacts } from "../../../../src/controller/planner/claim-template.js";
import {
  isAvailable,
  isRunningAndReady,
  resolveMaxUnavailable,
  type Step,
} from "../../../../src/controller/planner/index.js";
import { petOrdinals } from "../../../../src/controller/planner/ordinals.js";
import type { PodView } from "../../../../src/controller/planner/views.js";
import type { World } from "./simulate.js";

export const views = (world: World) => [...world.pods.values()].map((p) => p.view);

export function minReadyMs(world: World) {
  return world.petSet.spec.minReadySeconds * 1000;
}

/** The pets' ordinals: [start, start + replicas) minus spec.reserveOrdinals. */
export function petOrdinalsOf(world: World): number[] {
  const spec = world.petSet.spec;
  return petOrdinals(spec.ordinals.start, spec.replicas, spec.reserveOrdinals);
}

export function inRange(world: World, ordinal: number): boolean {
  return petOrdinalsOf(world).includes(ordinal);
}

export function unavailableInRange(world: World): number {
  let n = 0;
  for (const o of petOrdinalsOf(world)) {
    const pod = world.pods.get(`${world.petSet.metadata.name}-${o}`)?.view;
    if (pod === undefined || !isAvailable(pod, minReadyMs(world), world.now)) n++;
  }
  return n;
}

export function violate(world: World, step: Step, message: string) {
  world.violations.push(`t=${world.now} ${step.kind}: ${message}`);
}

/**
 * With spec.roles followers go first, then pets of unknown role, the leader last, whatever
 * their ordinals (roles.ts): "highest first" holds among pets of one role.
 */
function roleOf(world: World, pod: PodView | undefined): string {
  const roles = world.petSet.spec.roles;
  if (roles === undefined || pod === undefined) return "";
  const value = pod.labels[roles.labelKey];
  return value === undefined ? "unknown" : value === roles.leader ? "leader" : "follower";
}

export function checkBefore(world: World, step: Step): void {
  const spec = world.petSet.spec;
  const partitionOrdinal = spec.ordinals.start + (spec.updateStrategy.rollingUpdate?.partition ?? 0);
  const moves =
    step.kind === "patchPodImages" ||
    step.kind === "relabelPod" ||
    (step.kind === "deletePod" && (step.reason === "update" || step.reason === "replace-broken"));
  if (moves && spec.paused) violate(world, step, `moved ${step.podName} while paused`);
  if (step.kind === "deletePod" && (step.reason === "update" || step.reason === "replace-broken")) {
    if (spec.updateStrategy.type === "OnDelete")
      violate(world, step, "deleted a pod for update under OnDelete");
  }
  if (
    (step.kind === "deletePod" &&
      step.reason !== "scale-down" &&
      step.reason !== "recreate" &&
      step.reason !== "replace") ||
    step.kind === "patchPodImages"
  ) {
    if (step.ordinal < partitionOrdinal) violate(world, step, `updated ${step.podName} below the partition`);
  }
  if (step.kind === "patchClaim") checkClaimPatch(world, step, partitionOrdinal);
  if (step.kind === "createPod") {
    const name = step.pod.metadata?.name ?? "";
    if (world.pods.has(name)) violate(world, step, `second pod for pet ${name}`);
    if (!inRange(world, step.ordinal)) violate(world, step, `created ${name} outside the ordinal range`);
    if (spec.podManagementPolicy === "OrderedReady") {
      for (const o of petOrdinalsOf(world).filter((p) => p < step.ordinal)) {
        const lower = world.pods.get(`${world.petSet.metadata.name}-${o}`)?.view;
        if (lower === undefined || !isAvailable(lower, minReadyMs(world), world.now)) {
          violate(world, step, `created ${name} before pet ${o} was available (OrderedReady)`);
        }
      }
    }
  }
  if (
    step.kind === "deletePod" &&
    step.reason === "scale-down" &&
    spec.podManagementPolicy === "OrderedReady"
  ) {
    const others = views(world).filter((p) => !inRange(world, p.ordinal) && p.name !== step.podName);
    if (others.some((p) => p.deletionTimestamp !== undefined))
      violate(world, step, "two condemned pods terminating");
    if (others.some((p) => p.ordinal > step.ordinal))
      violate(world, step, `scale-down of ${step.podName} not highest first`);
  }
  // Highest first, except under External, where the order is the requester's.
  if (step.kind === "deletePod" && step.reason === "update" && spec.updateStrategy.type !== "External") {
    const pod = world.pods.get(step.podName)?.view;
    const higher = views(world).filter(
      (p) =>
        p.ordinal > step.ordinal &&
        inRange(world, p.ordinal) &&
        p.deletionTimestamp === undefined &&
        p.hash === pod?.hash &&
        isRunningAndReady(p) &&
        roleOf(world, p) === roleOf(world, pod),
    );
    if (higher.length > 0) violate(world, step, `updated ${step.podName} before higher ${higher[0]?.name}`);
  }
}

/** Claims follow versions: never below the partition, never a shrink (also the model checker's). */
export function claimPatchViolations(
  world: World,
  step: Step & { kind: "patchClaim" },
  partitionOrdinal: number,
): string[] {
  const out: string[] = [];
  if (step.ordinal < partitionOrdinal) out.push(`patched claim ${step.claimName} below the partition`);
  const claim = world.claims.get(step.claimName);
  const before = storageBytes(claim?.storageRequest);
  const after = storageBytes(step.storage);
  if (before !== undefined && after !== undefined && after < before)
    out.push(`shrink of claim ${step.claimName} attempted (${claim?.storageRequest} -> ${step.storage})`);
  return out;
}

function checkClaimPatch(world: World, step: Step & { kind: "patchClaim" }, partitionOrdinal: number): void {
  for (const v of claimPatchViolations(world, step, partitionOrdinal)) violate(world, step, v);
}

function checkClaimsFollow(world: World, step: Step): void {
  for (const v of claimFollowViolations(world)) violate(world, step, v);
}

/**
 * Under InPlace, a pod labelled with version V's hash has every claim of V: request >= V's, V's
 * labels (also the model checker's).
 */
export function claimFollowViolations(world: World): string[] {
  const out: string[] = [];
  if (world.petSet.spec.volumeClaimUpdatePolicy !== "InPlace") return out;
  for (const pod of views(world)) {
    const version = [...world.versions].reverse().find((v) => v.spec.hash === pod.hash);
    if (version === undefined || pod.deletionTimestamp !== undefined) continue;
    for (const t of version.spec.volumeClaimTemplates) {
      const facts = templateFacts(t);
      const name = `${t.metadata.name}-${world.petSet.metadata.name}-${pod.ordinal}`;
      const claim = world.claims.get(name);
      const want = storageBytes(facts.request);
      const has = storageBytes(claim?.storageRequest);
      const labelsOk = Object.entries(facts.labels).every(([k, v]) => claim?.labels[k] === v);
      if (claim === undefined || (want !== undefined && (has === undefined || has < want)) || !labelsOk)
        out.push(`${pod.name} counted at version ${version.spec.version} with an old claim ${name}`);
    }
  }
  return out;
}

export function checkAfter(world: World, step: Step, unavailableBefore: number): void {
  checkClaimsFollow(world, step);
  const contents = new Set(views(world).map((p) => p.hash));
  if (contents.size > 2) violate(world, step, `${contents.size} versions live: ${[...contents].join(",")}`);
  const spec = world.petSet.spec;
  const isUpdate = (step.kind === "deletePod" && step.reason === "update") || step.kind === "patchPodImages";
  if (isUpdate) {
    const max = resolveMaxUnavailable(spec.updateStrategy.rollingUpdate?.maxUnavailable ?? 1, spec.replicas);
    const unavailable = unavailableInRange(world);
    if (unavailable > unavailableBefore && unavailable > max)
      violate(world, step, `${unavailable} pets unavailable > maxUnavailable ${max}`);
  }
}
