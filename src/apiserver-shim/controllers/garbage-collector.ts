/**
 * The ownerReference garbage collector: deletes objects whose owners are all gone,
 * removes dangling references, completes Foreground deletion (owner waits for dependents
 * with blockOwnerDeletion) and Orphan deletion (dependents lose the reference first).
 *
 * Incremental: store events (observe) mark the objects and owners they touched, and a pass
 * looks only at those, with the OwnerIndex to find an owner's dependents. The first pass
 * looks at everything (objects loaded from the data dir, or written before it started).
 */
import { ApiError } from "../errors.js";
import { deleteObject, FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from "../registry/deletion.js";
import type { GenericStore } from "../registry/generic-store.js";
import type { ResourceDefinition } from "../registry/resource.js";
import type { ResourceRegistry } from "../registry/resource-registry.js";
import type { StoreEvent } from "../storage/event-log.js";
import { objectKey } from "../storage/object-store.js";
import { deepClone, type KubeObject } from "../types.js";
import { type ObjectRef, OwnerIndex } from "./owner-index.js";
import { systemContext } from "./system-context.js";

const MANAGER = "generic-garbage-collector";

interface Item {
  gr: string;
  obj: KubeObject;
}

export class GarbageCollector {
  private readonly index = new OwnerIndex();
  private dirtyDependents = new Map<string, ObjectRef>();
  private dirtyOwners = new Set<string>();

  constructor(
    private readonly store: GenericStore,
    private readonly registry: ResourceRegistry,
  ) {
    for (const gr of this.store.objects.groupResources())
      for (const obj of this.store.objects.list(gr)) {
        this.index.add(gr, obj);
        const m = obj.metadata;
        if (m.ownerReferences?.length) this.markDependent({ gr, namespace: m.namespace, name: m.name ?? "" });
        if (m.deletionTimestamp && m.uid) this.dirtyOwners.add(m.uid);
      }
  }

  /** Feeds a committed change; true when it left work for the next pass. */
  observe(e: StoreEvent): boolean {
    const work = this.index.apply(e);
    for (const d of work.dependents) this.markDependent(d);
    for (const uid of work.owners) this.dirtyOwners.add(uid);
    return work.dependents.length > 0 || work.owners.length > 0;
  }

  /** Looks at what changed since the last pass (writes it makes are the next pass's work). */
  pass(): void {
    const dependents = this.dirtyDependents;
    const owners = this.dirtyOwners;
    this.dirtyDependents = new Map();
    this.dirtyOwners = new Set();
    for (const ref of dependents.values()) {
      const obj = this.store.objects.get(ref.gr, ref.namespace, ref.name);
      if (obj) this.collectDependent({ gr: ref.gr, obj });
    }
    for (const uid of owners) {
      const found = this.store.objects.findByUid(uid);
      if (!found) continue;
      const it = { gr: found.gr, obj: found.object };
      const m = it.obj.metadata;
      if (!m.deletionTimestamp) continue;
      const isOrphan = m.finalizers?.includes(ORPHAN_FINALIZER);
      if (!isOrphan && !m.finalizers?.includes(FOREGROUND_FINALIZER)) continue;
      const deps = this.dependentsOf(uid);
      if (isOrphan) this.orphan(it, deps);
      else this.foreground(it, deps);
    }
  }

  private markDependent(ref: ObjectRef): void {
    this.dirtyDependents.set(`${ref.gr}\u0000${objectKey(ref.namespace, ref.name)}`, ref);
  }

  /** Objects that still name `uid` as an owner, as stored now. */
  private dependentsOf(uid: string): Item[] {
    const out: Item[] = [];
    for (const ref of this.index.dependentsOf(uid)) {
      const obj = this.store.objects.get(ref.gr, ref.namespace, ref.name);
      if (obj?.metadata.ownerReferences?.some((r) => r.uid === uid)) out.push({ gr: ref.gr, obj });
    }
    return out;
  }

  private def(gr: string): ResourceDefinition | undefined {
    const [group, resource] = gr.split("/") as [string, string];
    return this.registry.preferred(group, resource);
  }

  private stillExists(it: Item): boolean {
    return this.store.objects.get(it.gr, it.obj.metadata.namespace, it.obj.metadata.name!) !== undefined;
  }

  private collectDependent(it: Item): void {
    const refs = it.obj.metadata.ownerReferences;
    if (!refs?.length || !this.stillExists(it)) return;
    const owners = refs.map((r) => ({ r, owner: this.store.objects.findByUid(r.uid)?.object }));
    const present = owners.filter((o) => o.owner !== undefined);
    const def = this.def(it.gr);
    if (!def) return;
    if (present.length === 0) {
      if (it.obj.metadata.deletionTimestamp) return;
      this.tryDelete(def, it.obj, "Background");
      return;
    }
    const live = present.filter(
      (o) =>
        !o.owner!.metadata.finalizers?.includes(ORPHAN_FINALIZER) || !o.owner!.metadata.deletionTimestamp,
    );
    const foregroundOwners = present.filter(
      (o) =>
        o.owner!.metadata.deletionTimestamp && o.owner!.metadata.finalizers?.includes(FOREGROUND_FINALIZER),
    );
    if (
      foregroundOwners.length > 0 &&
      foregroundOwners.length === present.length &&
      !it.obj.metadata.deletionTimestamp
    ) {
      this.tryDelete(def, it.obj, "Foreground");
      return;
    }
    if (present.length !== refs.length && live.length > 0) {
      const next = deepClone(it.obj);
      next.metadata.ownerReferences = present.map((o) => o.r);
      this.store.writeInternal(def, next, MANAGER);
    }
  }

  private orphan(owner: Item, deps: Item[]): void {
    for (const d of deps) {
      const def = this.def(d.gr);
      const current = this.store.objects.get(d.gr, d.obj.metadata.namespace, d.obj.metadata.name!);
      if (!def || !current) continue;
      const next = deepClone(current);
      next.metadata.ownerReferences = (next.metadata.ownerReferences ?? []).filter(
        (r) => r.uid !== owner.obj.metadata.uid,
      );
      if (next.metadata.ownerReferences.length === 0) delete next.metadata.ownerReferences;
      this.store.writeInternal(def, next, MANAGER);
    }
    this.removeFinalizer(owner, ORPHAN_FINALIZER);
  }

  private foreground(owner: Item, deps: Item[]): void {
    const blocking = deps.filter((d) =>
      (d.obj.metadata.ownerReferences ?? []).some(
        (r) => r.uid === owner.obj.metadata.uid && r.blockOwnerDeletion,
      ),
    );
    if (blocking.length === 0) this.removeFinalizer(owner, FOREGROUND_FINALIZER);
  }

  private removeFinalizer(it: Item, finalizer: string): void {
    const def = this.def(it.gr);
    const current = this.store.objects.get(it.gr, it.obj.metadata.namespace, it.obj.metadata.name!);
    if (!def || !current) return;
    const next = deepClone(current);
    next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    this.store.writeInternal(def, next, MANAGER);
  }

  private tryDelete(def: ResourceDefinition, obj: KubeObject, policy: "Background" | "Foreground"): void {
    try {
      deleteObject(
        this.store,
        def,
        obj.metadata.namespace,
        obj.metadata.name!,
        { propagationPolicy: policy, preconditions: { uid: obj.metadata.uid! } },
        systemContext(this.store.clock, MANAGER),
      );
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
    }
  }
}
