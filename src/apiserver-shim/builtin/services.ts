/** Services: ClusterIP allocation from 10.96.0.0/16, kube's spec defaults, port and clusterIP validation. */
import type { ObjectStore } from "../storage/object-store.js";
import { serviceTable } from "../tables/builtin-tables.js";
import { isPlainObject } from "../types.js";
import { defineBuiltin } from "./define.js";
import { normalizeClusterIPs, validateService, validateServiceUpdate } from "./service-validation.js";

type Obj = Record<string, unknown>;

function allocateClusterIP(objects: ObjectStore): string {
  const used = new Set(objects.list("/services").map((s) => String(((s.spec ?? {}) as Obj).clusterIP ?? "")));
  for (let i = 1; i < 65_534; i++) {
    const ip = `10.96.${i >> 8}.${i & 255}`;
    if (!used.has(ip)) return ip;
  }
  throw new Error("service IP range 10.96.0.0/16 exhausted");
}

export function servicesDefinition(objects: ObjectStore) {
  return defineBuiltin({
    group: "",
    version: "v1",
    resource: "services",
    kind: "Service",
    namespaced: true,
    schema: "io.k8s.api.core.v1.Service",
    shortNames: ["svc"],
    categories: ["all"],
    status: true,
    table: serviceTable,
    strategy: {
      applyDefaults(svc) {
        if (!isPlainObject(svc.spec)) return;
        const spec = svc.spec;
        spec.type ??= "ClusterIP";
        spec.sessionAffinity ??= "None";
        if (spec.type !== "ExternalName") spec.internalTrafficPolicy ??= "Cluster";
        if (Array.isArray(spec.ports))
          for (const p of spec.ports)
            if (isPlainObject(p)) {
              p.protocol ??= "TCP";
              p.targetPort ??= p.port;
            }
      },
      // The REST storage allocates IPs and families after managedFields: no one owns them.
      prepareForCreate(svc) {
        const spec = (isPlainObject(svc.spec) ? svc.spec : {}) as Obj;
        svc.spec = spec;
        spec.type ??= "ClusterIP";
        spec.sessionAffinity ??= "None";
        if (spec.type !== "ExternalName") {
          if (!spec.clusterIP) spec.clusterIP = allocateClusterIP(objects);
          spec.clusterIPs ??= [spec.clusterIP];
          spec.ipFamilies ??= ["IPv4"];
          spec.ipFamilyPolicy ??= "SingleStack";
          spec.internalTrafficPolicy ??= "Cluster";
        }
        svc.status = { loadBalancer: {} };
      },
      prepareForUpdate(svc, old) {
        const spec = (isPlainObject(svc.spec) ? svc.spec : {}) as Obj;
        const oldSpec = (old.spec ?? {}) as Obj;
        svc.spec = spec;
        spec.clusterIP ??= oldSpec.clusterIP;
        spec.clusterIPs ??= oldSpec.clusterIPs;
        spec.type ??= "ClusterIP";
        normalizeClusterIPs(svc, old);
      },
      validate: validateService,
      validateUpdate: (svc, old) => [...validateService(svc), ...validateServiceUpdate(svc, old)],
    },
  });
}
