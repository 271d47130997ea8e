import { Labels, type PetSet, type PetSetVersion, versionName } from "../api/index.js";
import { compareCodeUnits } from "./canonical-json.js";
import { canonicalContentJson, contentOf, type VersionContent } from "./content.js";

function controllerRef(version: PetSetVersion) {
  return version.metadata.ownerReferences?.find((ref) => ref.controller === true);
}

function byNumber(a: PetSetVersion, b: PetSetVersion): number {
  return a.spec.version - b.spec.version || compareCodeUnits(a.metadata.name ?? "", b.metadata.name ?? "");
}

/** Sorted by number; a list already in order (the cache's, usually) is only checked. */
function sortedByNumber(list: PetSetVersion[]): PetSetVersion[] {
  for (let i = 1; i < list.length; i++) {
    if (byNumber(list[i - 1] as PetSetVersion, list[i] as PetSetVersion) > 0) return list.sort(byNumber);
  }
  return list;
}

const built = new WeakMap<readonly PetSetVersion[], { petset: PetSet; history: VersionHistory }>();

/**
 * The versions of one PetSet, read from a cache list that may hold anything in the
 * namespace. Three kinds of objects are told apart:
 *
 * - owned: a controller ownerReference with this PetSet's uid. Only these are history.
 * - adoptable: no controller ownerReference at all, labelled for this PetSet, naming it in
 *   `spec.petSet`, named `<petset>-v<N>` for their own N and not being deleted (left
 *   behind by `kubectl delete --cascade=orphan`, or restored from a backup). The sync
 *   adopts them before anything else, as the StatefulSet controller adopts revisions.
 * - everything else, notably leftovers of a deleted PetSet of the same name (a controller
 *   reference with another uid, still being collected): never counted, never compared
 *   against. Only their names are remembered, so a new version never collides with one.
 */
export class VersionHistory {
  /** This PetSet's versions, oldest first. */
  readonly owned: readonly PetSetVersion[];
  /** Orphans the PetSet should adopt, oldest first. */
  readonly adoptable: readonly PetSetVersion[];
  /** Every name in the list, whoever owns it. */
  readonly takenNames: ReadonlySet<string>;
  private readonly statusNumbers: readonly number[];

  private constructor(petset: PetSet, versions: readonly PetSetVersion[]) {
    const { name, namespace, uid } = petset.metadata;
    // One pass (a PetSet whose GC is collecting 10,000 versions is synced on every delete).
    const owned: PetSetVersion[] = [];
    const adoptable: PetSetVersion[] = [];
    const takenNames = new Set<string>();
    for (const v of versions) {
      if (namespace !== undefined && v.metadata.namespace !== undefined && v.metadata.namespace !== namespace)
        continue;
      if (v.metadata.name) takenNames.add(v.metadata.name);
      const ref = controllerRef(v);
      if (ref !== undefined) {
        if (uid !== undefined && ref.uid === uid) owned.push(v);
      } else if (
        name !== undefined &&
        v.metadata.deletionTimestamp === undefined &&
        v.metadata.labels?.[Labels.petSet] === name &&
        v.spec.petSet === name &&
        v.metadata.name === versionName(name, v.spec.version)
      ) {
        adoptable.push(v);
      }
    }
    this.owned = sortedByNumber(owned);
    this.adoptable = sortedByNumber(adoptable);
    this.takenNames = takenNames;
    const status = petset.status;
    this.statusNumbers = [status?.currentVersion, status?.updateVersion, status?.lastCompleteVersion].filter(
      (n): n is number => n !== undefined,
    );
  }

  /**
   * The history of `petset` in `versions`. The same PetSet object and list give the same
   * (immutable) history: a sync asks twice, and the list is large while history is collected.
   */
  static of(petset: PetSet, versions: readonly PetSetVersion[]): VersionHistory {
    const hit = built.get(versions);
    if (hit !== undefined && hit.petset === petset) return hit.history;
    const history = new VersionHistory(petset, versions);
    built.set(versions, { petset, history });
    return history;
  }

  /** The highest-numbered owned version: the one the controller drives every pet to. */
  newest(): PetSetVersion | undefined {
    return this.owned.at(-1);
  }

  /**
   * The number for the next version: one more than the highest number this PetSet has
   * ever used, so numbers only grow and are never reused. Why the maximum of the owned
   * versions and the status numbers is enough:
   *
   * - The GC never deletes the newest version (select.ts), so the highest number ever
   *   issued is still in the API while the PetSet lives; a number below it that GC freed
   *   can never come back, since we always go above the maximum.
   * - The cache may lag behind our own create, or a user may delete a version by hand; the
   *   status keeps the numbers the rollout still refers to (`updateVersion`,
   *   `currentVersion`, `lastCompleteVersion`), which covers the ones that matter.
   * - Where the cache lags and the status does not yet name the newest version, the name
   *   `<petset>-v<N>` still exists in the API server, so the create fails with
   *   AlreadyExists and the next sync, with a fresher cache, picks a higher number. Name
   *   uniqueness in the API server is what finally makes reuse impossible.
   */
  nextNumber(): number {
    return Math.max(0, ...this.owned.map((v) => v.spec.version), ...this.statusNumbers) + 1;
  }

  byNumber(version: number): PetSetVersion | undefined {
    return this.owned.find((v) => v.spec.version === version);
  }

  /** Owned versions labelled with this hash, newest first. */
  byHash(hash: string): PetSetVersion[] {
    return this.owned.filter((v) => v.spec.hash === hash).reverse();
  }

  /**
   * Owned versions whose content runs the same pods as `content`, newest first. Compared
   * by recomputing the canonical form of both sides, not by the stored hash, so a version
   * written by an older controller release still matches.
   */
  withContent(content: VersionContent): PetSetVersion[] {
    const wanted = canonicalContentJson(content);
    return this.owned.filter((v) => canonicalContentJson(contentOf(v)) === wanted).reverse();
  }
}
