/**
 * A cache's objects grouped by namespace and keys computed from each object, kept up to date
 * from the informer's add/update/delete callbacks. A sync reads its PetSet's versions, claims
 * and pods through these: filtering the whole namespace on every sync made each sync cost
 * time proportional to everything cached (1,000 PetSets × their history), and a cold start
 * over 2,000 PetSets spent half its time in that filter (docs/benchmarks.md, section 4).
 *
 * An object may have several keys (the prefixes of its name) or none; `put` replaces the
 * keys of the object's earlier state, `remove` drops them whatever the object says now.
 *
 * Memory (issue 29: 30,000 pods cached): an object's earlier keys are computed again from its
 * earlier state, kept once per object for all the indexes of a cache (one map entry), not
 * stored as strings per index; groups are nested maps (no `namespace/key` string per object);
 * members are an exact array of the objects while few, a Set when many. A cache builds only
 * the indexes something reads (`INDEXES_OF`): PetSets, nodes and StorageClasses none, versions by PetSet only.
 */
import type { KubernetesObject } from "@kubernetes/client-node";

export type KeysOf = (obj: KubernetesObject) => readonly string[];

/** Members up to which a group is an exact array; a larger group is a Set. */
const SMALL_GROUP = 8;

/**
 * One index: namespace → key → the objects with that key. A small group (a PetSet's pods,
 * its versions) is an array of exactly its members: a Set of three pods took ~180 bytes, the
 * array takes ~70, and an update replaces the object in place (same position, no allocation).
 * A large group (the name prefix `s` of 30,000 pods `s-N-M`) is a Set: an array there made
 * every add a copy and every update a scan of all members.
 */
class Groups<T extends KubernetesObject> {
  private readonly byNamespace = new Map<string, Map<string, T[] | Set<T>>>();

  constructor(readonly keysOf: KeysOf) {}

  /** `obj` replaces `earlier` (the same object's previous state), or is new. */
  put(ns: string, earlier: T | undefined, obj: T): void {
    const before = earlier === undefined ? [] : this.keysOf(earlier);
    const after = this.keysOf(obj);
    if (earlier !== undefined)
      for (const key of before) if (!after.includes(key)) this.drop(ns, key, earlier);
    if (after.length === 0) return;
    // After the drops: the last one may have removed the namespace's map.
    let groups = this.byNamespace.get(ns);
    if (!groups) {
      groups = new Map();
      this.byNamespace.set(ns, groups);
    }
    for (const key of after) {
      const members = groups.get(key);
      const replaces = earlier !== undefined && before.includes(key);
      if (members === undefined) groups.set(key, [obj]);
      else if (members instanceof Set) {
        if (replaces) members.delete(earlier);
        members.add(obj);
      } else {
        const at = replaces ? members.indexOf(earlier) : -1;
        if (at >= 0) members[at] = obj;
        else if (members.length < SMALL_GROUP) groups.set(key, [...members, obj]);
        else groups.set(key, new Set([...members, obj]));
      }
    }
  }

  delete(ns: string, obj: T): void {
    for (const key of this.keysOf(obj)) this.drop(ns, key, obj);
  }

  private drop(ns: string, key: string, obj: T): void {
    const groups = this.byNamespace.get(ns);
    const members = groups?.get(key);
    if (groups === undefined || members === undefined) return;
    if (members instanceof Set) members.delete(obj);
    else {
      const at = members.indexOf(obj);
      if (at < 0) return;
      members.splice(at, 1);
    }
    const left = members instanceof Set ? members.size : members.length;
    if (left === 0) {
      groups.delete(key);
      if (groups.size === 0) this.byNamespace.delete(ns);
    }
  }

  list(ns: string, key: string): T[] {
    const members = this.byNamespace.get(ns)?.get(key);
    return members === undefined ? [] : [...members];
  }
}

/** Several indexes over one cache, sharing the record of each object's indexed state. */
export class CacheIndexes<T extends KubernetesObject> {
  /** namespace → name → the object as last indexed (its keys are computed from it). */
  private readonly indexed = new Map<string, Map<string, T>>();
  private readonly groups: Groups<T>[];

  constructor(keysOf: readonly KeysOf[]) {
    this.groups = keysOf.map((k) => new Groups<T>(k));
  }

  /**
   * The object was added or changed (the informer hands over the new object); returns its
   * state as indexed before, if any.
   */
  put(obj: T): T | undefined {
    if (this.groups.length === 0) return undefined;
    const ns = obj.metadata?.namespace ?? "";
    const name = obj.metadata?.name ?? "";
    let names = this.indexed.get(ns);
    if (!names) {
      names = new Map();
      this.indexed.set(ns, names);
    }
    const earlier = names.get(name);
    names.set(name, obj);
    for (const g of this.groups) g.put(ns, earlier, obj);
    return earlier;
  }

  /** The object is gone (matched by namespace and name, whatever its keys are now). */
  remove(obj: T): void {
    const ns = obj.metadata?.namespace ?? "";
    const name = obj.metadata?.name ?? "";
    const names = this.indexed.get(ns);
    const earlier = names?.get(name);
    if (names === undefined || earlier === undefined) return;
    for (const g of this.groups) g.delete(ns, earlier);
    names.delete(name);
    if (names.size === 0) this.indexed.delete(ns);
  }

  /** Objects in `namespace` with `key` among their keys of index `i` (the order given). */
  list(i: number, namespace: string, key: string): T[] {
    return this.groups[i]?.list(namespace, key) ?? [];
  }
}

/** One index alone (as the tests and older callers use it). */
export class CacheIndex<T extends KubernetesObject> {
  private readonly indexes: CacheIndexes<T>;

  constructor(keysOf: KeysOf) {
    this.indexes = new CacheIndexes<T>([keysOf]);
  }

  put(obj: T): void {
    this.indexes.put(obj);
  }

  remove(obj: T): void {
    this.indexes.remove(obj);
  }

  list(namespace: string, key: string): T[] {
    return this.indexes.list(0, namespace, key);
  }
}

/** Keys: the value of `label`, if set. */
export function byLabel(label: string): KeysOf {
  return (obj) => {
    const value = obj.metadata?.labels?.[label];
    return value === undefined ? [] : [value];
  };
}

/** Keys: the uid of the controller ownerReference, if any. */
export const byControllerUid: KeysOf = (obj) => {
  const ref = (obj.metadata?.ownerReferences ?? []).find((r) => r.controller === true);
  return ref === undefined ? [] : [ref.uid];
};

/**
 * Keys: every prefix of the name that ends just before a `-` ("web-db-0" → "web",
 * "web-db"). So `list(ns, p)` holds exactly the names that start with `p-`.
 */
export const byNamePrefix: KeysOf = (obj) => {
  const name = obj.metadata?.name ?? "";
  const keys: string[] = [];
  for (let i = name.indexOf("-"); i >= 0; i = name.indexOf("-", i + 1)) keys.push(name.slice(0, i));
  return keys;
};
