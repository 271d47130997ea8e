/**
 * Deletion semantics: preconditions, graceful deletion (pods), finalizers, and the
 * propagation policies that hand dependents to the garbage collector (Background: the
 * GC deletes orphans later; Foreground: the owner waits with the `foregroundDeletion`
 * finalizer; Orphan: the `orphan` finalizer makes the GC strip ownerReferences first).
 */
import { conflict, fieldNotSupported, invalid, notFound } from "../errors.js";
import { rfc3339 } from "../time.js";
import { deepClone, type KubeObject } from "../types.js";
import type { GenericStore, ListOptions } from "./generic-store.js";
import { grKey, type RequestContext, type ResourceDefinition } from "./resource.js";
import { present } from "./stored-form.js";

export type PropagationPolicy = "Background" | "Foreground" | "Orphan";

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: PropagationPolicy;
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export interface DeleteResult {
  /** The object: as removed, or as kept with deletionTimestamp set. */
  object: KubeObject;
  /** True when the object is gone now (200), false when deletion is pending (202). */
  deleted: boolean;
}

export const FOREGROUND_FINALIZER = "foregroundDeletion";
export const ORPHAN_FINALIZER = "orphan";

export function deleteObject(
  store: GenericStore,
  def: ResourceDefinition,
  ns: string | undefined,
  name: string,
  opts: DeleteOptions,
  ctx: RequestContext,
): DeleteResult {
  const stored = store.peek(def, ns, name);
  if (!stored) throw notFound(def, name);
  const pre = opts.preconditions;
  if (pre?.uid && pre.uid !== stored.metadata.uid)
    throw conflict(
      { group: def.group, resource: def.kind },
      name,
      `the UID in the precondition (${pre.uid}) does not match the UID in record (${stored.metadata.uid}). The object might have been deleted and then recreated`,
    );
  if (pre?.resourceVersion && pre.resourceVersion !== stored.metadata.resourceVersion)
    throw conflict(
      { group: def.group, resource: def.kind },
      name,
      `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${stored.metadata.resourceVersion}). The object might have been modified`,
    );
  // In the query or the DeleteOptions body: kube validates the merged options (422).
  if (opts.propagationPolicy && !["Background", "Foreground", "Orphan"].includes(opts.propagationPolicy))
    throw invalid("meta.k8s.io", "DeleteOptions", "", [
      fieldNotSupported("propagationPolicy", opts.propagationPolicy, [
        "Foreground",
        "Background",
        "Orphan",
        "nil",
      ]),
    ]);
  const policy: PropagationPolicy =
    opts.propagationPolicy ?? (opts.orphanDependents ? "Orphan" : "Background");
  const obj = deepClone(stored);
  const m = obj.metadata;
  const finalizers = new Set(m.finalizers ?? []);
  if (!m.deletionTimestamp) {
    if (policy === "Foreground") finalizers.add(FOREGROUND_FINALIZER);
    if (policy === "Orphan") finalizers.add(ORPHAN_FINALIZER);
  }
  def.strategy.admitDelete?.(stored);
  const grace = def.strategy.gracePeriod?.(stored, opts.gracePeriodSeconds) ?? 0;
  const pending = def.strategy.pendingFinalization?.(stored) ?? false;
  const now = ctx.now;

  if (m.deletionTimestamp) {
    // Already terminating: only a shorter grace period changes anything.
    const current = m.deletionGracePeriodSeconds ?? 0;
    if (grace < current || (grace === 0 && current !== 0)) {
      m.deletionGracePeriodSeconds = grace;
      m.deletionTimestamp = rfc3339(new Date(now.getTime() + grace * 1000));
      return finish(store, def, stored, obj, ctx);
    }
    return { object: present(def, stored), deleted: false };
  }
  // A graceful resource (pods) is marked deleted even with a grace period of 0, then removed
  // (kube's updateForGracefulDeletionAndFinalizers, then Storage.Delete): see finish().
  const graceful = def.strategy.gracePeriod !== undefined;
  if (finalizers.size === 0 && grace === 0 && !pending && !graceful) {
    if (ctx.dryRun) return { object: present(def, stored), deleted: true };
    const gone = store.objects.remove(grKey(def), stored)!;
    return { object: present(def, gone), deleted: true };
  }
  // Finalizers change only when the propagation policy adds one (an absent list stays absent).
  if (finalizers.size !== (m.finalizers?.length ?? 0)) m.finalizers = [...finalizers];
  m.deletionTimestamp = rfc3339(new Date(now.getTime() + grace * 1000));
  m.deletionGracePeriodSeconds = grace;
  if (m.generation !== undefined && m.generation > 0) m.generation++;
  def.strategy.prepareForDelete?.(obj);
  return finish(store, def, stored, obj, ctx);
}

function finish(
  store: GenericStore,
  def: ResourceDefinition,
  stored: KubeObject,
  obj: KubeObject,
  ctx: RequestContext,
): DeleteResult {
  const m = obj.metadata;
  const immediate =
    !m.finalizers?.length && !(m.deletionGracePeriodSeconds ?? 0) && !def.strategy.pendingFinalization?.(obj);
  if (ctx.dryRun) return { object: present(def, obj), deleted: immediate };
  if (immediate && def.strategy.gracePeriod) {
    // As kube: the deletionTimestamp is written (MODIFIED), then the object is removed
    // (DELETED); the answer is the object as last stored, at the first write's resourceVersion.
    const marked = store.objects.write(grKey(def), obj);
    store.objects.remove(grKey(def), marked);
    return { object: present(def, marked), deleted: true };
  }
  if (immediate)
    return { object: present(def, store.objects.remove(grKey(def), stored, obj)!), deleted: true };
  return { object: present(def, store.objects.write(grKey(def), obj)), deleted: false };
}

export function deleteCollection(
  store: GenericStore,
  def: ResourceDefinition,
  ns: string | undefined,
  list: ListOptions,
  opts: DeleteOptions,
  ctx: RequestContext,
): KubeObject[] {
  const { items } = store.list(def, ns, { ...list, limit: 0 });
  const out: KubeObject[] = [];
  for (const item of items) {
    try {
      out.push(deleteObject(store, def, item.metadata.namespace, item.metadata.name!, opts, ctx).object);
    } catch (e) {
      if (!(e instanceof Error && "status" in e)) throw e;
    }
  }
  return out;
}
