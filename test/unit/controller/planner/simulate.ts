/**
 * A tiny pure world for the planner: a PetSet, its versions, pods and claims, a clock and a
 * kubelet that makes pods Ready after `readyTicks` ticks (never for images ending in
 * `:broken`, which crash-loop instead). `sync` plans, applies every step like an executor and
 * checks the invariants after EVERY step; violations are collected, not thrown.
 */
import type { V1PersistentVolumeClaim, V1Pod } from "@kubernetes/client-node";
import { Annotations, ConditionTypes, type PetSet, type PetSetVersion } from "../../../../src/api/index.js";
import {
  isRunningAndReady,
  type Plan,
  planRollout,
  podViewFromV1Pod,
  type Step,
} from "../../../../src/controller/planner/index.js";
import type { PatchPodImagesStep } from "../../../../src/controller/planner/plan-types.js";
import { canonicalJson } from "../../../../src/controller/planner/version-index.js";
import type { ClaimView, ContainerView, PodView } from "../../../../src/controller/planner/views.js";
import { canonicalQuantity } from "../../../../src/versions/quantity.js";
import { contentHash, makeVersion } from "./fixtures.js";
import { checkAfter, checkBefore, inRange, unavailableInRange, views, violate } from "./simulate-checks.js";

export {
  claimFollowViolations,
  claimPatchViolations,
  petOrdinalsOf,
  unavailableInRange,
} from "./simulate-checks.js";

export interface SimOptions {
  tickMs: number;
  readyTicks: number;
  terminateTicks: number;
  /**
   * Versions are recorded by the controller under test (the model checker drives the real
   * recorder, src/versions/plan-sync.ts), not by this world on every spec change.
   */
  versionsByController: boolean;
}

interface SimPod {
  view: PodView;
  readyAt?: number;
  goneAt?: number;
  restartAt?: number;
}

export interface World {
  petSet: PetSet;
  versions: PetSetVersion[];
  pods: Map<string, SimPod>;
  claims: Map<string, ClaimView>;
  now: number;
  /** When the simulated controller took over (planner/takeover.ts); undefined: never restarted. */
  drivingSince?: number;
  serial: number;
  options: SimOptions;
  violations: string[];
  stepsApplied: Step[];
  /** The simulated resizer makes no progress (claims follow versions). */
  resizeHangs?: boolean;
  /** StorageClasses the planner reads (claims follow versions); undefined: none given. */
  storageClasses?: { name: string; allowVolumeExpansion: boolean; isDefault: boolean }[];
}

/** A created claim as the planner reads it (claim-updates.ts): provisioned at its request at once. */
function claimFacts(claim: V1PersistentVolumeClaim): Omit<ClaimView, "name" | "uid" | "resourceVersion"> {
  const request = claim.spec?.resources?.requests?.storage;
  return {
    labels: { ...(claim.metadata?.labels ?? {}) },
    annotations: { ...(claim.metadata?.annotations ?? {}) },
    ...(request !== undefined ? { storageRequest: String(request), capacity: String(request) } : {}),
    ...(claim.spec?.storageClassName ? { storageClassName: claim.spec.storageClassName } : {}),
    ...(claim.spec?.accessModes !== undefined ? { accessModes: [...claim.spec.accessModes] } : {}),
  };
}

export function createWorld(petSet: PetSet, options: Partial<SimOptions> = {}): World {
  const world: World = {
    petSet,
    versions: [],
    pods: new Map(),
    claims: new Map(),
    now: 1_000_000,
    serial: 0,
    options: { tickMs: 1000, readyTicks: 2, terminateTicks: 1, versionsByController: false, ...options },
    violations: [],
    stepsApplied: [],
  };
  syncVersions(world);
  return world;
}

const isBrokenImage = (image: string) => image.endsWith(":broken");

/** The version sync: record a new version when the pod-shaping content changed. */
export function syncVersions(world: World): void {
  if (world.options.versionsByController) return;
  const { template, volumeClaimTemplates } = world.petSet.spec;
  const hash = contentHash({ template, volumeClaimTemplates });
  const newest = world.versions[world.versions.length - 1];
  if (newest?.spec.hash === hash) return;
  const older = [...world.versions].reverse().find((v) => v.spec.hash === hash);
  const n = (newest?.spec.version ?? 0) + 1;
  const image = template.spec.containers[0]?.image ?? "";
  world.serial++;
  world.versions.push(
    makeVersion(n, image, {
      resourceVersion: String(world.serial),
      template: structuredClone(template),
      volumeClaimTemplates: structuredClone(volumeClaimTemplates),
      createdAt: world.now,
      ...(older !== undefined ? { rollbackOf: older.spec.version } : {}),
    }),
  );
}

export function updateSpec(world: World, change: (spec: PetSet["spec"]) => void): void {
  const spec = structuredClone(world.petSet.spec);
  change(spec);
  world.petSet = { ...world.petSet, spec };
  syncVersions(world);
}

export function setImage(world: World, image: string): void {
  updateSpec(world, (s) => {
    s.template.spec.containers = [{ name: "app", image }];
  });
}

function podFor(world: World, name: string, step: Step & { uid: string; resourceVersion: string }) {
  const pod = world.pods.get(name);
  if (pod === undefined) {
    violate(world, step, `${name} does not exist`);
    return undefined;
  }
  if (pod.view.uid !== step.uid || pod.view.resourceVersion !== step.resourceVersion) {
    violate(world, step, `stale precondition for ${name}`);
    return undefined;
  }
  return pod;
}

function bump(world: World, pod: SimPod, change: Partial<PodView>) {
  world.serial++;
  pod.view = { ...pod.view, ...change, resourceVersion: String(world.serial) };
}

export function applyStep(world: World, step: Step): void {
  checkBefore(world, step);
  const unavailableBefore = unavailableInRange(world);
  mutate(world, step);
  checkAfter(world, step, unavailableBefore);
}

/** Performs a step on the world like the API would (no checks besides preconditions). */
export function mutate(world: World, step: Step): void {
  world.stepsApplied.push(step);
  switch (step.kind) {
    case "createPod": {
      world.serial++;
      const v1: V1Pod = structuredClone(step.pod);
      v1.metadata = {
        ...v1.metadata,
        uid: `uid-${world.serial}`,
        resourceVersion: String(world.serial),
        creationTimestamp: new Date(world.now),
      };
      v1.status = { phase: "Pending" };
      const view = podViewFromV1Pod(v1);
      const broken = view.containers.some((c) => isBrokenImage(c.image));
      const sim: SimPod = { view };
      if (!broken) sim.readyAt = world.now + world.options.readyTicks * world.options.tickMs;
      world.pods.set(view.name, sim);
      break;
    }
    case "deletePod": {
      const pod = podFor(world, step.podName, step);
      if (pod === undefined || pod.view.deletionTimestamp !== undefined) break;
      const grace = world.options.terminateTicks * world.options.tickMs;
      bump(world, pod, {
        deletionTimestamp: world.now + grace,
        deletionRequestedAt: world.now,
        ready: false,
      });
      pod.goneAt = world.now + grace;
      break;
    }
    case "patchPodImages": {
      const pod = podFor(world, step.podName, step);
      if (pod === undefined) break;
      const containers = pod.view.containers.map((c) => {
        const image = step.images.find((i) => i.container === c.name)?.image;
        const resized = resizedTo(c, step.resources);
        return image === undefined ? resized : { ...resized, image, runningImage: c.runningImage ?? c.image };
      });
      bump(world, pod, {
        containers,
        labels: { ...pod.view.labels, ...step.labels },
        annotations: { ...pod.view.annotations, ...step.annotations },
        version: step.toVersion,
        hash: step.labels["petset.dev/hash"] ?? pod.view.hash,
        targetVersion: Number(step.annotations[Annotations.targetVersion] ?? pod.view.targetVersion),
      });
      pod.restartAt = world.now + world.options.tickMs;
      break;
    }
    case "relabelPod": {
      const pod = podFor(world, step.podName, step);
      if (pod === undefined) break;
      bump(world, pod, {
        labels: { ...pod.view.labels, ...step.labels },
        annotations: { ...pod.view.annotations, ...step.annotations },
        version: step.toVersion,
        hash: step.labels["petset.dev/hash"] ?? pod.view.hash,
        targetVersion: Number(step.annotations[Annotations.targetVersion] ?? pod.view.targetVersion),
      });
      break;
    }
    case "annotateTargetVersion": {
      const pod = podFor(world, step.podName, step);
      if (pod === undefined) break;
      bump(world, pod, {
        annotations: { ...pod.view.annotations, [Annotations.targetVersion]: String(step.targetVersion) },
        targetVersion: step.targetVersion,
      });
      break;
    }
    case "createClaim": {
      const name = step.claim.metadata?.name ?? "";
      if (world.claims.has(name)) violate(world, step, `claim ${name} exists`);
      world.serial++;
      world.claims.set(name, {
        name,
        uid: `c-${world.serial}`,
        resourceVersion: "1",
        ...claimFacts(step.claim),
      });
      break;
    }
    case "patchClaim": {
      const claim = world.claims.get(step.claimName);
      if (claim === undefined || claim.uid !== step.uid || claim.resourceVersion !== step.resourceVersion) {
        violate(world, step, `stale precondition for claim ${step.claimName}`);
        break;
      }
      world.serial++;
      world.claims.set(step.claimName, {
        ...claim,
        resourceVersion: String(world.serial),
        labels: { ...claim.labels, ...step.labels },
        annotations: { ...claim.annotations, ...step.annotations },
        ...(step.storage !== undefined ? { storageRequest: step.storage } : {}),
      });
      break;
    }
    case "deleteClaim": {
      world.claims.delete(step.claimName);
      break;
    }
    case "recordVersionStatus": {
      const i = world.versions.findIndex((v) => v.spec.version === step.version);
      const version = world.versions[i];
      if (version === undefined) {
        violate(world, step, `no version ${step.version}`);
        break;
      }
      if ((version.metadata.resourceVersion ?? "") !== step.resourceVersion) {
        violate(world, step, `stale precondition for version ${step.version}`);
        break;
      }
      world.serial++;
      world.versions[i] = {
        ...version,
        metadata: { ...version.metadata, resourceVersion: String(world.serial) },
        status: structuredClone(step.status),
      };
      break;
    }
    case "rollbackTo": {
      const version = world.versions.find((v) => v.spec.version === step.version);
      if (version === undefined) {
        violate(world, step, `no version ${step.version}`);
        break;
      }
      updateSpec(world, (s) => {
        s.template = structuredClone(version.spec.template);
        s.volumeClaimTemplates = structuredClone(version.spec.volumeClaimTemplates);
      });
      break;
    }
  }
}

/** One controller sync: plan, apply every step, write status. */
export function sync(world: World): Plan {
  const plan = planRollout({
    petSet: world.petSet,
    versions: world.versions,
    pods: views(world),
    claims: [...world.claims.values()],
    ...(world.storageClasses !== undefined ? { storageClasses: world.storageClasses } : {}),
    now: world.now,
    ...(world.drivingSince !== undefined ? { drivingSince: world.drivingSince } : {}),
  });
  for (const step of plan.steps) applyStep(world, step);
  world.petSet = { ...world.petSet, status: plan.status };
  return plan;
}

/** Advance the clock one tick and let the kubelet act. */
export function tick(world: World): void {
  world.now += world.options.tickMs;
  // The resizer (claims follow versions): a grown request reaches status.capacity a tick later.
  for (const [name, claim] of world.claims) {
    if (claim.storageRequest !== undefined && claim.capacity !== claim.storageRequest && !world.resizeHangs) {
      world.serial++;
      world.claims.set(name, {
        ...claim,
        capacity: claim.storageRequest,
        resourceVersion: String(world.serial),
      });
    }
  }
  for (const [name, pod] of world.pods) {
    if (pod.goneAt !== undefined && pod.goneAt <= world.now) {
      world.pods.delete(name);
      continue;
    }
    if (pod.view.deletionTimestamp !== undefined) continue;
    if (pod.restartAt !== undefined && pod.restartAt <= world.now) {
      pod.restartAt = undefined;
      const containers = pod.view.containers.map((c) => ({ ...c, runningImage: c.image }));
      bump(world, pod, { containers, ready: false, phase: "Running" });
      delete pod.view.readySince;
      const broken = containers.some((c) => isBrokenImage(c.image));
      pod.readyAt = broken ? undefined : world.now + world.options.readyTicks * world.options.tickMs;
      continue;
    }
    if (pod.readyAt !== undefined && pod.readyAt <= world.now && !pod.view.ready) {
      // The kubelet reports the resources it started the containers with (in-place resize).
      const containers = pod.view.containers.map((c) => ({
        ...c,
        runningImage: c.image,
        ...(c.resources !== undefined ? { statusResources: c.statusResources ?? c.resources } : {}),
      }));
      bump(world, pod, { phase: "Running", ready: true, readySince: pod.readyAt, containers });
      continue;
    }
    if (pod.view.ready && kubeletResize(world, pod)) continue;
    const broken = pod.view.containers.some((c) => isBrokenImage(c.image));
    if (broken && pod.view.failing === undefined && pod.restartAt === undefined) {
      bump(world, pod, { phase: "Running", failing: "CrashLoopBackOff", restartCount: 1 });
    }
    if (!broken && pod.view.failing !== undefined) {
      const { failing: _ignored, ...rest } = pod.view;
      pod.view = rest;
    }
  }
}

/** A resize step's cpu/memory for container `c` (canonical, as the pod view holds them). */
function resizedTo(c: ContainerView, resources: PatchPodImagesStep["resources"]): ContainerView {
  const r = resources?.find((x) => x.container === c.name);
  if (r === undefined) return c;
  const canon = (m: Record<string, string> | undefined) =>
    m === undefined
      ? undefined
      : Object.fromEntries(Object.entries(m).map(([k, q]) => [k, canonicalQuantity(q) ?? q]));
  const requests = canon(r.requests) ?? c.resources?.requests;
  const limits = canon(r.limits) ?? c.resources?.limits;
  return { ...c, resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) } };
}

/**
 * The kubelet's in-place resize (planner/in-place-resize.ts), a tick after the spec changed: the
 * status takes the spec's resources, unless the pod is annotated kubelet.petset.dev/resize=
 * Infeasible|Deferred (the convention both kubelets play): then PodResizePending with that reason.
 */
function kubeletResize(world: World, pod: SimPod): boolean {
  const norm = (r: ContainerView["resources"]) => canonicalJson({ q: r?.requests ?? {}, l: r?.limits ?? {} });
  const differs = pod.view.containers.some(
    (c) => c.statusResources !== undefined && norm(c.resources) !== norm(c.statusResources),
  );
  if (!differs) return false;
  const forced = pod.view.annotations["kubelet.petset.dev/resize"];
  if (forced === "Infeasible" || forced === "Deferred") {
    if (pod.view.resizePending?.reason !== forced)
      bump(world, pod, { resizePending: { reason: forced, since: world.now } });
    return true;
  }
  const { resizePending: _gone, ...rest } = pod.view;
  pod.view = rest;
  bump(world, pod, {
    containers: pod.view.containers.map((c) => ({ ...c, statusResources: c.resources ?? {} })),
  });
  return true;
}

/** Every pet exists, is Ready and runs the newest version; nothing else exists. */
export function converged(world: World): boolean {
  const newest = world.versions[world.versions.length - 1];
  const pods = views(world);
  if (pods.length !== world.petSet.spec.replicas) return false;
  return pods.every(
    (p) =>
      inRange(world, p.ordinal) &&
      p.hash === newest?.spec.hash &&
      isRunningAndReady(p) &&
      p.version === newest?.spec.version,
  );
}

/** Sync and tick until converged; returns the ticks used, or -1 after maxTicks. */
export function runUntilConverged(world: World, maxTicks = 500): number {
  for (let t = 0; t < maxTicks; t++) {
    sync(world);
    if (converged(world)) return t;
    tick(world);
  }
  return -1;
}

export function podsOf(world: World): PodView[] {
  return views(world).sort((a, b) => a.ordinal - b.ordinal);
}

/** A human deletes a pod (OnDelete updates, or chaos). */
export function deleteByUser(world: World, ordinal: number): void {
  const pod = world.pods.get(`${world.petSet.metadata.name}-${ordinal}`);
  if (pod === undefined || pod.view.deletionTimestamp !== undefined) return;
  const grace = world.options.terminateTicks * world.options.tickMs;
  bump(world, pod, { deletionTimestamp: world.now + grace, deletionRequestedAt: world.now, ready: false });
  pod.goneAt = world.now + grace;
}

/** The PetSet's Progressing condition as the last sync wrote it. */
export function progressingOf(world: World) {
  return world.petSet.status?.conditions.find((c) => c.type === ConditionTypes.progressing);
}
