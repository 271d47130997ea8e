import {
  Annotations,
  API_VERSION,
  Labels,
  PETSET_KIND,
  type PetSet,
  type PetSetVersion,
  VERSION_KIND,
  versionName,
} from "../api/index.js";
import { contentOf, specContent, versionedContent } from "./content.js";
import { changeCause, changedBy, delta } from "./describe.js";
import { hashContent } from "./hash.js";
import { VersionHistory } from "./history.js";

/** What the sync must do so the PetSet's newest version holds its current content. */
export type VersionSyncPlan =
  /** Nothing: `newest` (absent only for a PetSet being deleted) already holds the content. */
  | { readonly action: "none"; readonly newest: PetSetVersion | undefined }
  /** POST `version` (complete, ready to send). A 409 AlreadyExists means a stale cache: requeue. */
  | { readonly action: "create"; readonly version: PetSetVersion }
  /** Set this PetSet as controller owner of these orphans (with a uid precondition), then sync again. */
  | { readonly action: "adopt"; readonly names: readonly string[] };

/** The PetSet lacks the identity a version must point at (name, namespace, uid). */
export class PetSetIdentityError extends Error {
  readonly reason = "MissingIdentity";
  constructor(field: string) {
    super(`PetSet has no metadata.${field}: versions can only be made for a PetSet read from the API`);
    this.name = "PetSetIdentityError";
  }
}

/**
 * Decide whether the PetSet's pod-shaping content needs a new version (guarantee 1).
 *
 * - Orphaned versions of this PetSet are adopted first, so history is complete before it
 *   is compared against.
 * - A new version is made iff the content differs from the NEWEST version's (compared by
 *   recomputed canonical form, so re-applying the same manifest, API-server defaulting or a
 *   controller upgrade makes nothing).
 * - Content equal to an older version still makes a new version (numbers only grow, and
 *   "newest wins" stays true), with `rollbackOf` naming the newest older version holding
 *   that content.
 *
 * `versions` is the cache's list for the namespace (or for the PetSet's label); anything
 * not owned by this PetSet's uid is ignored, see VersionHistory.
 */
export function planVersionSync(petset: PetSet, versions: readonly PetSetVersion[]): VersionSyncPlan {
  const history = VersionHistory.of(petset, versions);
  const newest = history.newest();
  if (petset.metadata.deletionTimestamp !== undefined) return { action: "none", newest };
  if (history.adoptable.length > 0) {
    return { action: "adopt", names: history.adoptable.map((v) => v.metadata.name ?? "") };
  }
  // Newest first: either the newest version itself, or the rollback target.
  const [rollbackOf] = history.withContent(specContent(petset.spec));
  if (rollbackOf !== undefined && rollbackOf === newest) return { action: "none", newest };
  const content = versionedContent(petset.spec);

  const { name, namespace, uid } = identity(petset);
  let number = history.nextNumber();
  while (history.takenNames.has(versionName(name, number))) number += 1;
  const hash = hashContent(content);
  const change = delta(newest === undefined ? undefined : contentOf(newest), content);
  const annotation = petset.metadata.annotations?.[Annotations.changeCause];
  const by = changedBy(petset);

  const version: PetSetVersion = {
    apiVersion: API_VERSION,
    kind: VERSION_KIND,
    metadata: {
      name: versionName(name, number),
      namespace,
      labels: { [Labels.petSet]: name, [Labels.version]: String(number), [Labels.hash]: hash },
      // Recorded so the next version can tell a fresh change-cause from a stale one.
      ...(annotation !== undefined ? { annotations: { [Annotations.changeCause]: annotation } } : {}),
      ownerReferences: [
        { apiVersion: API_VERSION, kind: PETSET_KIND, name, uid, controller: true, blockOwnerDeletion: true },
      ],
    },
    spec: {
      petSet: name,
      version: number,
      generation: petset.metadata.generation ?? 0,
      hash,
      template: content.template,
      volumeClaimTemplates: content.volumeClaimTemplates,
      ...(rollbackOf !== undefined ? { rollbackOf: rollbackOf.spec.version } : {}),
      changeCause: changeCause(petset, change, newest?.metadata.annotations?.[Annotations.changeCause]),
      ...(by !== undefined ? { changedBy: by } : {}),
      delta: change.patch,
    },
  };
  return { action: "create", version };
}

function identity(petset: PetSet): { name: string; namespace: string; uid: string } {
  const { name, namespace, uid } = petset.metadata;
  if (name === undefined) throw new PetSetIdentityError("name");
  if (namespace === undefined) throw new PetSetIdentityError("namespace");
  if (uid === undefined) throw new PetSetIdentityError("uid");
  return { name, namespace, uid };
}
