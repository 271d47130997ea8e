/**
 * The ownerReference garbage collector: deletes objects whose owners are all gone,
 * removes dangling references, completes Foreground deletion (owner waits for dependents
 * with blockOwnerDeletion) and Orphan deletion (dependents lose the reference first).
 */
import { ApiError } from "../errors.js";
import { deleteObject, FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from "../registry/deletion.js";
import type { GenericStore } from "../registry/generic-store.js";
import type { ResourceDefinition } from "../registry/resource.js";
import type { ResourceRegistry } from "../registry/resource-registry.js";
import { deepClone, type KubeObject } from "../types.js";
import { systemContext } from "./system-context.js";

const MANAGER = "generic-garbage-collector";

interface Item {
  gr: string;
  obj: KubeObject;
}

export class GarbageCollector {
  constructor(
    private readonly store: GenericStore,
    private readonly registry: ResourceRegistry,
  ) {}

  /** One full pass; returns whether anything was written. */
  pass(): void {
    const all: Item[] = [];
    for (const gr of this.store.objects.groupResources())
      for (const obj of this.store.objects.list(gr)) all.push({ gr, obj });
    const dependents = new Map<string, Item[]>();
    for (const it of all)
      for (const ref of it.obj.metadata.ownerReferences ?? []) {
        const list = dependents.get(ref.uid) ?? [];
        list.push(it);
        dependents.set(ref.uid, list);
      }
    for (const it of all) this.collectDependent(it);
    for (const it of all) {
      const m = it.obj.metadata;
      if (!m.deletionTimestamp || !m.uid) continue;
      const deps = (dependents.get(m.uid) ?? []).filter((d) => this.stillExists(d));
      if (m.finalizers?.includes(ORPHAN_FINALIZER)) this.orphan(it, deps);
      else if (m.finalizers?.includes(FOREGROUND_FINALIZER)) this.foreground(it, deps);
    }
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
