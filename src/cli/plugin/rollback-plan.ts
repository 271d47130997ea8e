import { Annotations, type PetSet, type PetSetVersion } from "../../api/index.js";
import { createMergePatch } from "../../util/merge-patch.js";
import { contentOf, sameContent, versionedContent } from "../../versions/content.js";
import { PluginError } from "./errors.js";
import { findVersion, updateVersionNumber } from "./version-select.js";

/** What `kubectl petset rollback` will do, decided from what was read; no API calls. */
export type RollbackPlan =
  | {
      readonly kind: "patch";
      readonly target: PetSetVersion;
      /** The version being rolled back from (the update version), when known. */
      readonly from: PetSetVersion | undefined;
      /** JSON merge patch for the PetSet, without the resourceVersion precondition. */
      readonly patch: Record<string, unknown>;
    }
  | { readonly kind: "unchanged"; readonly target: PetSetVersion };

export const rollbackCause = (version: number): string => `rollback to version ${version}`;

/**
 * Plans a rollback of `petSet` to version `toVersion`, or by default to the previous
 * distinct version: the newest version older than the update version whose hash differs
 * from it (rolling back to a version with the same content would change nothing).
 *
 * The patch sets `spec.template` and `spec.volumeClaimTemplates` to the target's content
 * exactly (keys the current template has and the target lacks are deleted) and the
 * `kubernetes.io/change-cause` annotation, which the controller records on the new version.
 */
export function planRollback(
  petSet: PetSet,
  versions: readonly PetSetVersion[],
  toVersion: number | undefined,
): RollbackPlan {
  const name = petSet.metadata.name ?? "";
  const updateNumber = updateVersionNumber(petSet, versions);
  const from = versions.find((v) => v.spec.version === updateNumber);
  const target =
    toVersion !== undefined
      ? findVersion(petSet, versions, toVersion)
      : previousDistinct(name, versions, from);
  const content = versionedContent(petSet.spec);
  if (sameContent(content, contentOf(target))) return { kind: "unchanged", target };
  const templatePatch = createMergePatch(petSet.spec.template, target.spec.template);
  const patch: Record<string, unknown> = {
    metadata: { annotations: { [Annotations.changeCause]: rollbackCause(target.spec.version) } },
    spec: {
      ...(templatePatch !== undefined ? { template: templatePatch } : {}),
      volumeClaimTemplates: structuredClone(target.spec.volumeClaimTemplates),
    },
  };
  return { kind: "patch", target, from, patch };
}

function previousDistinct(
  name: string,
  versions: readonly PetSetVersion[],
  from: PetSetVersion | undefined,
): PetSetVersion {
  if (from === undefined)
    throw new PluginError(
      "NoRollbackTarget",
      `petset "${name}" has no recorded versions to roll back from: wait for the controller to record one`,
    );
  const candidates = versions.filter(
    (v) => v.spec.version < from.spec.version && v.spec.hash !== from.spec.hash,
  );
  const target = candidates.at(-1);
  if (target === undefined)
    throw new PluginError(
      "NoRollbackTarget",
      `petset "${name}" has no version older than ${from.spec.version} with different content to roll back to; ` +
        `kubectl petset history ${name} lists the versions kept`,
    );
  return target;
}
