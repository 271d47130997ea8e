import { Labels, type PetSet, type PetSetVersion, versionName } from "../../api/index.js";
import { UsageError, VersionNotFoundError } from "./errors.js";

/**
 * The versions of `petSet`, oldest first: those it controls (ownerReference with its uid)
 * and orphans labelled for it that the controller will adopt. Leftovers of an earlier
 * PetSet of the same name (controlled by another uid) are not its history.
 */
export function versionsOf(petSet: PetSet, versions: readonly PetSetVersion[]): PetSetVersion[] {
  const { name, uid } = petSet.metadata;
  return versions
    .filter((v) => {
      const owner = v.metadata.ownerReferences?.find((ref) => ref.controller === true);
      if (owner !== undefined) return owner.uid === uid;
      return v.spec.petSet === name && v.metadata.labels?.[Labels.petSet] === name;
    })
    .sort((a, b) => a.spec.version - b.spec.version);
}

/** The version the controller drives pets to: `status.updateVersion`, else the newest. */
export function updateVersionNumber(petSet: PetSet, versions: readonly PetSetVersion[]): number | undefined {
  return petSet.status?.updateVersion ?? versions.at(-1)?.spec.version;
}

/** Finds version `n` of the PetSet, or explains why it is not there. */
export function findVersion(petSet: PetSet, versions: readonly PetSetVersion[], n: number): PetSetVersion {
  const found = versions.find((v) => v.spec.version === n);
  if (found) return found;
  throw new VersionNotFoundError(petSet.metadata.name ?? "", n, versions.at(-1)?.spec.version);
}

/**
 * A version as the user names it on the command line: `3`, `v3` or the object name
 * `web-v3`. `what` names the argument in the error.
 */
export function parseVersionRef(ref: string, petSet: string, what: string): number {
  const text = ref.trim();
  const prefix = `${petSet}-v`;
  const digits = text.startsWith(prefix)
    ? text.slice(prefix.length)
    : text.startsWith("v")
      ? text.slice(1)
      : text;
  if (!/^[0-9]+$/.test(digits) || Number(digits) < 1)
    throw new UsageError(
      `${what}: "${ref}" is not a version of petset "${petSet}": use a number such as 3, v3 or ${versionName(petSet, 3)}`,
    );
  return Number(digits);
}
