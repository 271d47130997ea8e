/**
 * Namespaces: spec.finalizers ["kubernetes"] keeps a deleted namespace Terminating until
 * the namespace controller has deleted its contents; the system namespaces cannot go.
 */
import { forbidden } from "../errors.js";
import { namespaceTable } from "../tables/builtin-tables.js";
import { deepClone, isPlainObject, type KubeObject } from "../types.js";
import { defineBuiltin } from "./define.js";

export const NAMESPACE_FINALIZER = "kubernetes";
export const SYSTEM_NAMESPACES = ["default", "kube-system", "kube-public", "kube-node-lease"];

type Obj = Record<string, unknown>;

export function namespaceSpecFinalizers(ns: KubeObject): string[] {
  const f = isPlainObject(ns.spec) ? ns.spec.finalizers : undefined;
  return Array.isArray(f) ? f.map(String) : [];
}

export const namespacesDefinition = defineBuiltin({
  group: "",
  version: "v1",
  resource: "namespaces",
  kind: "Namespace",
  namespaced: false,
  schema: "io.k8s.api.core.v1.Namespace",
  shortNames: ["ns"],
  // kube serves no deletecollection for namespaces.
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
  status: true,
  nameRule: "label",
  extraSubresources: ["finalize"],
  table: namespaceTable,
  fieldLabels: (o) => ({ "status.phase": String(((o.status ?? {}) as Obj).phase ?? "") }),
  strategy: {
    // SetDefaults_Namespace: the writer owns the name label; the strategy's finalizer is no one's.
    applyDefaults(ns) {
      if (ns.metadata.name)
        ns.metadata.labels = { ...ns.metadata.labels, "kubernetes.io/metadata.name": ns.metadata.name };
    },
    prepareForCreate(ns) {
      ns.spec = { ...(isPlainObject(ns.spec) ? ns.spec : {}), finalizers: [NAMESPACE_FINALIZER] };
      ns.status = { phase: "Active" };
      ns.metadata.labels = { ...ns.metadata.labels, "kubernetes.io/metadata.name": ns.metadata.name! };
    },
    prepareForUpdate(ns, old) {
      ns.spec = deepClone(old.spec);
      ns.metadata.labels = { ...ns.metadata.labels, "kubernetes.io/metadata.name": old.metadata.name! };
    },
    // kube's namespace REST Delete sets deletionTimestamp and the Terminating phase only: no
    // deletionGracePeriodSeconds (nor the generation bump of other resources).
    prepareForDelete(ns) {
      ns.status = { ...(isPlainObject(ns.status) ? ns.status : {}), phase: "Terminating" };
      delete ns.metadata.deletionGracePeriodSeconds;
    },
    pendingFinalization: (ns) => namespaceSpecFinalizers(ns).length > 0,
    admitDelete(ns) {
      if (SYSTEM_NAMESPACES.slice(0, 3).includes(ns.metadata.name!))
        throw forbidden(
          { group: "", resource: "namespaces" },
          ns.metadata.name!,
          "this namespace may not be deleted",
        );
    },
  },
});
