/**
 * The embedded StatefulSet controller: for every apps/v1 StatefulSet, asks the pure planner
 * (statefulset-control.ts) what to do from the set and its namespace's pods, claims and
 * ControllerRevisions, then performs the steps through the store as kube-controller-manager
 * would through the API: creates (claims before their pod), metadata updates that name the
 * object's uid (adoption, release, identity labels, claim owners, revision numbers), deletes
 * with a uid precondition, and the status through the status subresource. A step the API
 * refuses (a conflict, a name taken meanwhile) ends the set's pass; the next pass starts from
 * fresh reads. Level-triggered like the other shim controllers; `pass` returns when time-based
 * work (minReadySeconds) is due.
 */
import { ApiError } from "../errors.js";
import { deleteObject } from "../registry/deletion.js";
import type { GenericStore } from "../registry/generic-store.js";
import { grKey, type ResourceDefinition } from "../registry/resource.js";
import type { ResourceRegistry } from "../registry/resource-registry.js";
import { deepClone, type KubeObject } from "../types.js";
import { planStatefulSet, type StatefulSetStep } from "./statefulset-control.js";
import { controllerRefTo } from "./statefulset-revision.js";
import { systemContext } from "./system-context.js";

const MANAGER = "kube-controller-manager";
export const STATEFULSETS_GR = "apps/statefulsets";
export const CONTROLLER_REVISIONS_GR = "apps/controllerrevisions";
/** Pods and claims: the objects a StatefulSet makes and adopts. */
export const STATEFULSET_CHILDREN: ReadonlySet<string> = new Set(["/pods", "/persistentvolumeclaims"]);

interface Defs {
  sets: ResourceDefinition;
  pods: ResourceDefinition;
  claims: ResourceDefinition;
  revisions: ResourceDefinition;
}

export class StatefulSetController {
  constructor(
    private readonly store: GenericStore,
    private readonly registry: ResourceRegistry,
  ) {}

  /** One pass over every StatefulSet; returns the delay until time-based work is due, if any. */
  pass(): number | undefined {
    const sets = this.registry.get("apps", "v1", "statefulsets");
    const pods = this.registry.get("", "v1", "pods");
    const claims = this.registry.get("", "v1", "persistentvolumeclaims");
    const revisions = this.registry.get("apps", "v1", "controllerrevisions");
    if (!sets || !pods || !claims || !revisions) return undefined;
    const defs: Defs = { sets, pods, claims, revisions };
    let next: number | undefined;
    for (const set of this.store.objects.list(grKey(sets))) {
      const after = this.syncSet(defs, set);
      if (after !== undefined) next = next === undefined ? after : Math.min(next, after);
    }
    return next;
  }

  private syncSet(defs: Defs, set: KubeObject): number | undefined {
    const ns = set.metadata.namespace!;
    const plan = planStatefulSet({
      set,
      pods: this.store.objects.list(grKey(defs.pods), ns),
      revisions: this.store.objects.list(grKey(defs.revisions), ns),
      claims: this.store.objects.list(grKey(defs.claims), ns),
      nowMs: this.store.clock.now().getTime(),
    });
    let failed = false;
    for (const step of plan.steps) {
      // History is trimmed even when an earlier step failed, as kube does.
      if (failed && step.kind !== "deleteRevision") continue;
      try {
        this.perform(defs, set, step);
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        failed = true;
      }
    }
    if (plan.status !== undefined) {
      const stored = this.store.peek(defs.sets, ns, set.metadata.name!);
      if (stored?.metadata.uid === set.metadata.uid && stored !== undefined) {
        const next = deepClone(stored);
        next.status = plan.status;
        this.tryWrite(() => this.store.commitUpdate(defs.sets, stored, next, this.ctx("status")));
      }
    }
    return plan.requeueAfterMs;
  }

  private ctx(subresource?: string) {
    const ctx = systemContext(this.store.clock, MANAGER);
    return subresource ? { ...ctx, subresource } : ctx;
  }

  private perform(defs: Defs, set: KubeObject, step: StatefulSetStep): void {
    const ns = set.metadata.namespace!;
    switch (step.kind) {
      case "adoptRevision":
        this.edit(defs.revisions, ns, step, (o) => {
          o.metadata.ownerReferences = [...(o.metadata.ownerReferences ?? []), controllerRefTo(set)];
        });
        return;
      case "adoptPod":
        this.edit(defs.pods, ns, step, (o) => {
          o.metadata.ownerReferences = [...(o.metadata.ownerReferences ?? []), controllerRefTo(set)];
        });
        return;
      case "releasePod":
        this.edit(defs.pods, ns, step, (o) => {
          const refs = (o.metadata.ownerReferences ?? []).filter((r) => r.uid !== set.metadata.uid);
          if (refs.length > 0) o.metadata.ownerReferences = refs;
          else delete o.metadata.ownerReferences;
        });
        return;
      case "renumberRevision":
        this.edit(defs.revisions, ns, step, (o) => {
          o.revision = step.revision;
        });
        return;
      case "labelPod":
        this.edit(defs.pods, ns, step, (o) => {
          o.metadata.labels = { ...o.metadata.labels, ...step.labels };
        });
        return;
      case "setClaimOwners":
        this.edit(defs.claims, ns, step, (o) => {
          if (step.ownerReferences.length > 0) o.metadata.ownerReferences = step.ownerReferences;
          else delete o.metadata.ownerReferences;
        });
        return;
      case "createRevision":
        this.store.create(defs.revisions, ns, step.revision, this.ctx());
        return;
      case "createClaims":
        for (const claim of step.claims) this.createClaim(defs, ns, claim);
        return;
      case "createPod":
        for (const claim of step.claims) this.createClaim(defs, ns, claim);
        this.store.create(defs.pods, ns, step.pod, this.ctx());
        return;
      case "deletePod":
        this.delete(defs.pods, ns, step);
        return;
      case "deleteRevision":
        this.delete(defs.revisions, ns, step);
        return;
    }
  }

  private createClaim(defs: Defs, ns: string, claim: KubeObject): void {
    try {
      this.store.create(defs.claims, ns, claim, this.ctx());
    } catch (e) {
      if (!(e instanceof ApiError && e.status.reason === "AlreadyExists")) throw e;
    }
  }

  /** A metadata or field update of the object named in the step, if it is still that object. */
  private edit(
    def: ResourceDefinition,
    ns: string,
    step: { name: string; uid: string },
    change: (o: KubeObject) => void,
  ): void {
    const stored = this.store.peek(def, ns, step.name);
    if (stored?.metadata.uid !== step.uid || stored === undefined) return;
    const next = deepClone(stored);
    change(next);
    this.store.commitUpdate(def, stored, next, this.ctx());
  }

  private delete(def: ResourceDefinition, ns: string, step: { name: string; uid: string }): void {
    deleteObject(
      this.store,
      def,
      ns,
      step.name,
      { propagationPolicy: "Background", preconditions: { uid: step.uid } },
      this.ctx(),
    );
  }

  private tryWrite(write: () => unknown): void {
    try {
      write();
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
    }
  }
}
