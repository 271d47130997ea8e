/**
 * A cache's objects grouped by namespace and keys computed from each object, kept up to date
 * from the informer's add/update/delete callbacks. A sync reads its PetSet's versions, claims
 * and pods through these: filtering the whole namespace on every sync made each sync cost
 * time proportional to everything cached (1,000 PetSets × their history), and a cold start
 * over 2,000 PetSets spent half its time in that filter (docs/benchmarks.md, section 4).
 *
 * An object may have several keys (the prefixes of its name) or none; `put` replaces the
 * keys of the object's earlier state, `remove` drops them whatever the object says now.
 */
import type { KubernetesObject } from "@kubernetes/client-node";

export type KeysOf = (obj: KubernetesObject) => readonly string[];

export class CacheIndex<T extends KubernetesObject> {
  /** `namespace/key` → name → object. */
  private readonly groups = new Map<string, Map<string, T>>();
  /** `namespace/name` → the groups it is in. */
  private readonly groupsOf = new Map<string, readonly string[]>();

  constructor(private readonly keysOf: KeysOf) {}

  /** The object was added or changed (the informer hands over the new object). */
  put(obj: T): void {
    const name = obj.metadata?.name ?? "";
    const ns = obj.metadata?.namespace ?? "";
    this.remove(obj);
    const keys = this.keysOf(obj);
    if (keys.length === 0) return;
    const groups = keys.map((k) => `${ns}/${k}`);
    for (const group of groups) {
      let members = this.groups.get(group);
      if (!members) {
        members = new Map();
        this.groups.set(group, members);
      }
      members.set(name, obj);
    }
    this.groupsOf.set(`${ns}/${name}`, groups);
  }

  /** The object is gone (matched by namespace and name, whatever its keys were). */
  remove(obj: T): void {
    const name = obj.metadata?.name ?? "";
    const objKey = `${obj.metadata?.namespace ?? ""}/${name}`;
    const groups = this.groupsOf.get(objKey);
    if (groups === undefined) return;
    this.groupsOf.delete(objKey);
    for (const group of groups) {
      const members = this.groups.get(group);
      members?.delete(name);
      if (members?.size === 0) this.groups.delete(group);
    }
  }

  /** Objects in `namespace` with `key` among their keys. */
  list(namespace: string, key: string): T[] {
    return [...(this.groups.get(`${namespace}/${key}`)?.values() ?? [])];
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
