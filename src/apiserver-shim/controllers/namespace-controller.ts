/**
 * Namespace lifecycle: every namespace gets a `default` ServiceAccount; a terminating
 * namespace has its contents deleted, and once empty its `kubernetes` spec finalizer is
 * removed and it goes away (kube's namespace and service-account controllers).
 */

import { NAMESPACE_FINALIZER } from "../builtin/namespaces.js";
import { ApiError } from "../errors.js";
import { deleteObject } from "../registry/deletion.js";
import type { GenericStore } from "../registry/generic-store.js";
import { NAMESPACES_GR } from "../registry/generic-store.js";
import { grKey } from "../registry/resource.js";
import type { ResourceRegistry } from "../registry/resource-registry.js";
import { deepClone, isPlainObject } from "../types.js";
import { systemContext } from "./system-context.js";

const MANAGER = "namespace-controller";

export class NamespaceController {
  constructor(
    private readonly store: GenericStore,
    private readonly registry: ResourceRegistry,
  ) {}

  pass(): void {
    for (const ns of this.store.objects.list(NAMESPACES_GR)) {
      const name = ns.metadata.name!;
      if (!ns.metadata.deletionTimestamp) {
        this.ensureDefaultServiceAccount(name);
        continue;
      }
      if (this.deleteContents(name) > 0) continue;
      const spec = isPlainObject(ns.spec) ? ns.spec : {};
      const fins = Array.isArray(spec.finalizers) ? spec.finalizers.map(String) : [];
      if (!fins.includes(NAMESPACE_FINALIZER)) continue;
      const next = deepClone(ns);
      next.spec = { ...spec, finalizers: fins.filter((f) => f !== NAMESPACE_FINALIZER) };
      if (next.metadata.finalizers?.length) this.store.objects.write(NAMESPACES_GR, next);
      else this.store.objects.remove(NAMESPACES_GR, ns, next);
    }
  }

  /** Deletes what is left in the namespace; returns how many objects remain. */
  private deleteContents(ns: string): number {
    let remaining = 0;
    const ctx = systemContext(this.store.clock, MANAGER);
    const seen = new Set<string>();
    for (const def of this.registry.all()) {
      if (!def.namespaced || def.storage || seen.has(grKey(def))) continue;
      seen.add(grKey(def));
      for (const obj of this.store.objects.list(grKey(def), ns)) {
        remaining++;
        if (obj.metadata.deletionTimestamp) continue;
        try {
          deleteObject(this.store, def, ns, obj.metadata.name!, { propagationPolicy: "Background" }, ctx);
        } catch (e) {
          if (!(e instanceof ApiError)) throw e;
        }
      }
    }
    return remaining;
  }

  private ensureDefaultServiceAccount(ns: string): void {
    const def = this.registry.get("", "v1", "serviceaccounts");
    if (!def || this.store.peek(def, ns, "default")) return;
    try {
      this.store.create(
        def,
        ns,
        { metadata: { name: "default" } },
        systemContext(this.store.clock, "kube-controller-manager"),
      );
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
    }
  }
}
