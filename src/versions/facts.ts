/**
 * Reading the rollout facts recorded on versions (PetSetVersion `status`). Two of them name
 * the PetSet's memory: the version with the latest `becameCurrentAt` is the current version,
 * the one with the latest `fullyRolledOutAt` is the last complete version (the autoRollback
 * target). Ties go to the higher version number. Pure; shared by the planner and the GC.
 */
import type { PetSetVersion, PetSetVersionStatus } from "../api/index.js";

/** The facts that are RFC 3339 times. */
export type TimeFact = {
  [K in keyof PetSetVersionStatus]-?: NonNullable<PetSetVersionStatus[K]> extends string ? K : never;
}[keyof PetSetVersionStatus];

/** The fact as milliseconds since the epoch; undefined when unset or unparsable. */
export function factTime(version: PetSetVersion, fact: TimeFact): number | undefined {
  const value = version.status?.[fact];
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The version whose `fact` is latest (ties: the higher number), if any has it. */
export function versionWithLatest(
  versions: readonly PetSetVersion[],
  fact: TimeFact,
): PetSetVersion | undefined {
  let best: PetSetVersion | undefined;
  let bestAt = Number.NEGATIVE_INFINITY;
  for (const v of versions) {
    const at = factTime(v, fact);
    if (at === undefined) continue;
    if (best === undefined || at > bestAt || (at === bestAt && v.spec.version > best.spec.version)) {
      best = v;
      bestAt = at;
    }
  }
  return best;
}
