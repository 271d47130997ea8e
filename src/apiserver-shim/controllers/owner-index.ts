/**
 * Who refers to whom by ownerReference, kept up to date from store events, so the garbage
 * collector looks only at what an event touched instead of scanning every object (a full
 * scan per pass made the embedded server's cost grow with everything it stores).
 */
import type { StoreEvent } from "../storage/event-log.js";
import { objectKey } from "../storage/object-store.js";
import type { KubeObject } from "../types.js";

/** A stored object's identity: storage group/resource, namespace and name. */
export interface ObjectRef {
  readonly gr: string;
  readonly namespace: string | undefined;
  readonly name: string;
}

const SEP = "\u0000";

function refKey(gr: string, obj: KubeObject): string {
  return `${gr}${SEP}${objectKey(obj.metadata.namespace, obj.metadata.name ?? "")}`;
}

function refOf(key: string): ObjectRef {
  const [gr = "", rest = ""] = key.split(SEP);
  const slash = rest.indexOf("/");
  const namespace = rest.slice(0, slash);
  return { gr, namespace: namespace === "" ? undefined : namespace, name: rest.slice(slash + 1) };
}

/** The work one event gives the garbage collector. */
export interface GcWork {
  /** Objects whose owners must be looked at (they have, or had, ownerReferences). */
  readonly dependents: ObjectRef[];
  /** Owners (by uid) whose orphan/foreground deletion may be able to progress. */
  readonly owners: string[];
}

export class OwnerIndex {
  /** owner uid → keys of the objects that name it in an ownerReference. */
  private readonly byOwner = new Map<string, Set<string>>();

  /** Records `obj` (stored under `gr`) and its references. */
  add(gr: string, obj: KubeObject): void {
    const key = refKey(gr, obj);
    for (const ref of obj.metadata.ownerReferences ?? []) {
      let set = this.byOwner.get(ref.uid);
      if (!set) {
        set = new Set();
        this.byOwner.set(ref.uid, set);
      }
      set.add(key);
    }
  }

  private remove(gr: string, obj: KubeObject): void {
    const key = refKey(gr, obj);
    for (const ref of obj.metadata.ownerReferences ?? []) {
      const set = this.byOwner.get(ref.uid);
      set?.delete(key);
      if (set?.size === 0) this.byOwner.delete(ref.uid);
    }
  }

  /** Objects that refer to `uid` (as indexed; they may have changed since). */
  dependentsOf(uid: string): ObjectRef[] {
    return [...(this.byOwner.get(uid) ?? [])].map(refOf);
  }

  /** Updates the index from a committed change and says what the collector must look at. */
  apply(e: StoreEvent): GcWork {
    if (e.prev) this.remove(e.gr, e.prev);
    if (e.type !== "DELETED") this.add(e.gr, e.object);
    const dependents: ObjectRef[] = [];
    const owners = new Set<string>();
    const refs = [...(e.object.metadata.ownerReferences ?? []), ...(e.prev?.metadata.ownerReferences ?? [])];
    if (e.type !== "DELETED" && (e.object.metadata.ownerReferences?.length ?? 0) > 0)
      dependents.push(refOf(refKey(e.gr, e.object)));
    // A dependent that changed or went away may unblock its owners' foreground deletion.
    for (const r of refs) owners.add(r.uid);
    const uid = e.object.metadata.uid;
    // An owner that is gone, or being deleted, decides its dependents' fate.
    if (uid && (e.type === "DELETED" || e.object.metadata.deletionTimestamp)) {
      dependents.push(...this.dependentsOf(uid));
      if (e.type !== "DELETED") owners.add(uid);
    }
    return { dependents, owners: [...owners] };
  }
}
