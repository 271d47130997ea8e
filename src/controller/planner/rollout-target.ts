import type { PetSetVersion } from "../../api/index.js";
import { isAvailable, isBroken, isRunningAndReady, isTerminating } from "./pod-health.js";
import type { VersionIndex } from "./version-index.js";
import type { PodView } from "./views.js";

/** The versions a sync works with. See plan-rollout.ts for the rules. */
export interface RolloutVersions {
  /** Highest version number: status.updateVersion. */
  newest: PetSetVersion;
  /** The version the set ran before the rollout (status.currentVersion), advanced on completion. */
  current: PetSetVersion;
  /** The version pods are moved to in this sync (the in-flight rollout). */
  target: PetSetVersion;
  /** Target recorded on live pods (petset.dev/target-version), if any. */
  announced?: number;
  /** The in-flight version given up in this sync because its pods are not Ready. */
  superseded?: PetSetVersion;
  /** `newest` waits until `target` finishes (at most two versions live). */
  queued: boolean;
}

export interface TargetInput {
  index: VersionIndex;
  pods: readonly PodView[];
  statusCurrentVersion: number | undefined;
  /** All desired ordinals [start, start + replicas). */
  petOrdinals: readonly number[];
  /** Ordinals that must reach the target for a rollout to count as done (>= partition). */
  updatableOrdinals: readonly number[];
  minReadyMs: number;
  deadlineMs: number;
  now: number;
}

/**
 * The current version when neither the versions' facts nor the status name it (a set from
 * before facts were recorded): the version with the most live pods below the partition (those
 * pets stay at current), else over all pods; ties to the older one.
 */
function inferCurrent(input: TargetInput, newest: PetSetVersion): PetSetVersion {
  const updatable = new Set(input.updatableOrdinals);
  const pets = new Set(input.petOrdinals);
  const below = input.pods.filter(
    (p) => !isTerminating(p) && pets.has(p.ordinal) && !updatable.has(p.ordinal),
  );
  return mostPods(input, below.length > 0 ? below : input.pods) ?? newest;
}

function mostPods(input: TargetInput, pods: readonly PodView[]): PetSetVersion | undefined {
  const counts = new Map<number, number>();
  for (const pod of pods) {
    if (isTerminating(pod)) continue;
    const v = input.index.byNumber(pod.version) ?? input.index.newestWithHash(input.index.contentOf(pod));
    if (v !== undefined) counts.set(v.spec.version, (counts.get(v.spec.version) ?? 0) + 1);
  }
  let best: number | undefined;
  for (const [n, c] of counts) {
    const bestCount = best === undefined ? -1 : (counts.get(best) ?? 0);
    if (c > bestCount || (c === bestCount && best !== undefined && n < best)) best = n;
  }
  return input.index.byNumber(best);
}

/** All updatable ordinals run `version`'s content, available. */
function rolloutDone(input: TargetInput, version: PetSetVersion): boolean {
  const live = new Map(input.pods.filter((p) => !isTerminating(p)).map((p) => [p.ordinal, p]));
  return input.updatableOrdinals.every((o) => {
    const pod = live.get(o);
    return (
      pod !== undefined &&
      input.index.contentOf(pod) === version.spec.hash &&
      isAvailable(pod, input.minReadyMs, input.now)
    );
  });
}

/** Nothing of `version` is Ready, or one of its pods is broken: the rollout is given up. */
function rolloutBroken(input: TargetInput, version: PetSetVersion): boolean {
  const pods = input.pods.filter((p) => !isTerminating(p) && input.index.contentOf(p) === version.spec.hash);
  if (!pods.some(isRunningAndReady)) return true;
  return pods.some((p) => isBroken(p, input.now, input.deadlineMs));
}

export function chooseRolloutVersions(input: TargetInput): RolloutVersions | undefined {
  const { index } = input;
  const newest = index.newest;
  if (newest === undefined) return undefined;
  const live = input.pods.filter((p) => !isTerminating(p));

  let current = index.byNumber(input.statusCurrentVersion) ?? inferCurrent(input, newest);

  const announcedNumbers = live.map((p) => p.targetVersion).filter((n) => index.byNumber(n) !== undefined);
  const announced = announcedNumbers.length > 0 ? Math.max(...(announcedNumbers as number[])) : undefined;

  // The in-flight version: what pods were told, else the newest version some pod runs besides current.
  let inFlight = index.byNumber(announced);
  if (inFlight === undefined) {
    const others = live
      .filter((p) => index.contentOf(p) !== current.spec.hash)
      .map((p) => index.byNumber(p.version) ?? index.newestWithHash(index.contentOf(p)))
      .filter((v): v is PetSetVersion => v !== undefined)
      .sort((a, b) => b.spec.version - a.spec.version);
    inFlight = others[0] ?? newest;
  }

  let target = inFlight;
  let superseded: PetSetVersion | undefined;
  if (inFlight.spec.hash === newest.spec.hash || inFlight.spec.hash === current.spec.hash) {
    // Nothing else in flight (or the same content under a newer number).
    target = newest;
  } else if (newest.spec.hash === current.spec.hash) {
    // A rollback to the current content never makes a third version live: it goes at once.
    target = newest;
  } else if (rolloutDone(input, inFlight)) {
    target = newest;
  } else if (rolloutBroken(input, inFlight)) {
    target = newest;
    if (live.some((p) => index.contentOf(p) === inFlight.spec.hash)) superseded = inFlight;
  }

  // Current advances once every pet exists and all pods run one content.
  const contents = new Set(input.pods.map((p) => index.contentOf(p)));
  const liveOrdinals = new Set(live.map((p) => p.ordinal));
  if (contents.size === 1 && input.petOrdinals.every((o) => liveOrdinals.has(o))) {
    const [only] = contents;
    if (target.spec.hash === only) current = target;
    else if (current.spec.hash !== only) current = index.newestWithHash(only ?? "") ?? current;
  }

  const result: RolloutVersions = { newest, current, target, queued: target !== newest };
  if (announced !== undefined) result.announced = announced;
  if (superseded !== undefined) result.superseded = superseded;
  return result;
}
