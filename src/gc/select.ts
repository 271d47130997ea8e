/**
 * Which versions of a PetSet to delete. The rules, all of them:
 *
 * 1. Live versions are never deleted: the current version, the update version, the last
 *    complete version (the autoRollback target), every version a pod runs, and the newest
 *    version. Current and last complete are also read from the versions' own facts
 *    (latest `becameCurrentAt` / `fullyRolledOutAt`), so a wiped PetSet status loses nothing. The newest is the controller's target even before the status names it, and
 *    it holds the highest number ever issued, which keeps numbers from being reused
 *    (VersionHistory.nextNumber).
 * 2. Of the other versions, the `revisionHistoryLimit` newest (by number) are kept.
 * 3. The rest are deleted, oldest first, so a run cut short leaves the newest history.
 * 4. Versions already being deleted are neither counted nor deleted again.
 *
 * Pure: the input is the PetSet's own versions (VersionHistory.owned) and numbers.
 */
import { PetSetDefaults, type PetSetVersion } from "../api/index.js";
import { compareCodeUnits } from "../versions/canonical-json.js";
import { versionWithLatest } from "../versions/facts.js";

export interface VersionGcInput {
  readonly versions: readonly PetSetVersion[];
  readonly currentVersion?: number | undefined;
  readonly updateVersion?: number | undefined;
  /** The status' lastCompleteVersion: what autoRollback goes back to. */
  readonly lastCompleteVersion?: number | undefined;
  readonly versionsInUseByPods: readonly number[];
  readonly revisionHistoryLimit: number;
}

/** Names of the versions to delete, oldest first. */
export function selectVersionsToDelete(input: VersionGcInput): string[] {
  const present = input.versions
    .filter((v) => v.metadata.deletionTimestamp === undefined)
    .sort(
      (a, b) =>
        b.spec.version - a.spec.version || compareCodeUnits(b.metadata.name ?? "", a.metadata.name ?? ""),
    );
  const newest = present[0]?.spec.version;
  const live = new Set(
    [
      input.currentVersion,
      input.updateVersion,
      input.lastCompleteVersion,
      versionWithLatest(present, "becameCurrentAt")?.spec.version,
      versionWithLatest(present, "fullyRolledOutAt")?.spec.version,
      newest,
      ...input.versionsInUseByPods,
    ].filter((n): n is number => n !== undefined),
  );
  const limit = Number.isNaN(input.revisionHistoryLimit)
    ? PetSetDefaults.revisionHistoryLimit
    : Math.max(0, Math.trunc(input.revisionHistoryLimit));
  return present
    .filter((v) => !live.has(v.spec.version))
    .slice(limit)
    .reverse()
    .flatMap((v) => (v.metadata.name !== undefined ? [v.metadata.name] : []));
}
