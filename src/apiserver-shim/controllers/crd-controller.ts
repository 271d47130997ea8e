/**
 * Serves custom resources as their CRDs come and go: (re)registers the served versions
 * on every CRD change, and on CRD deletion deletes all its custom resources before
 * releasing the cleanup finalizer (kube's apiextensions finalizer controller).
 */

import { CRD_CLEANUP_FINALIZER } from "../builtin/crds.js";
import { type CrdSpec, customResourceDefinitions } from "../crd/custom-resource.js";
import { ApiError } from "../errors.js";
import { deleteObject } from "../registry/deletion.js";
import type { GenericStore } from "../registry/generic-store.js";
import type { ResourceRegistry } from "../registry/resource-registry.js";
import { versionRank } from "../registry/resource-registry.js";
import type { StoreEvent } from "../storage/event-log.js";
import { deepClone, type KubeObject } from "../types.js";
import { systemContext } from "./system-context.js";

export const CRDS_GR = "apiextensions.k8s.io/customresourcedefinitions";
const MANAGER = "apiextensions-finalizer";

function crdSpec(crd: KubeObject): CrdSpec {
  return crd.spec as CrdSpec;
}

export class CrdController {
  constructor(
    private readonly store: GenericStore,
    private readonly registry: ResourceRegistry,
    private readonly onServe: (crd: KubeObject) => void = () => {},
  ) {}

  /** Registers every stored CRD (startup after recovery). */
  serveAll(): void {
    for (const crd of this.store.objects.list(CRDS_GR)) this.serve(crd);
  }

  /** Synchronous store listener: the CR endpoints exist as soon as the CRD write returns. */
  onEvent(e: StoreEvent): void {
    if (e.gr !== CRDS_GR) return;
    const spec = crdSpec(e.object);
    if (e.type === "DELETED") {
      this.registry.unregister(spec.group, spec.names.plural);
      return;
    }
    if (e.prev) {
      const prevSpec = crdSpec(e.prev);
      if (prevSpec.group !== spec.group || prevSpec.names.plural !== spec.names.plural)
        this.registry.unregister(prevSpec.group, prevSpec.names.plural);
    }
    this.serve(e.object);
  }

  private serve(crd: KubeObject): void {
    const spec = crdSpec(crd);
    this.registry.unregister(spec.group, spec.names.plural);
    const defs = customResourceDefinitions(spec);
    const priority = [...defs.map((d) => d.version)].sort((a, b) => versionRank(a) - versionRank(b));
    for (const def of defs) this.registry.register(def, priority);
    this.onServe(crd);
  }

  /** Level-triggered cleanup of deleted CRDs. */
  pass(): void {
    const ctx = systemContext(this.store.clock, MANAGER);
    for (const crd of this.store.objects.list(CRDS_GR)) {
      if (!crd.metadata.deletionTimestamp || !crd.metadata.finalizers?.includes(CRD_CLEANUP_FINALIZER))
        continue;
      const spec = crdSpec(crd);
      const gr = `${spec.group}/${spec.names.plural}`;
      const def = this.registry.preferred(spec.group, spec.names.plural);
      const left = this.store.objects.list(gr);
      for (const cr of left) {
        if (cr.metadata.deletionTimestamp) continue;
        if (!def) {
          this.store.objects.remove(gr, cr);
          continue;
        }
        try {
          deleteObject(
            this.store,
            def,
            cr.metadata.namespace,
            cr.metadata.name!,
            { propagationPolicy: "Background" },
            ctx,
          );
        } catch (e) {
          if (!(e instanceof ApiError)) throw e;
        }
      }
      if (this.store.objects.list(gr).length > 0) continue;
      const crdDef = this.registry.get("apiextensions.k8s.io", "v1", "customresourcedefinitions")!;
      const next = deepClone(crd);
      next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== CRD_CLEANUP_FINALIZER);
      this.store.writeInternal(crdDef, next, MANAGER);
    }
  }
}
