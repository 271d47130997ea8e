/** Nodes, Events (core and events.k8s.io) and Leases. */
import { eventTable, leaseTable, nodeTable } from "../tables/builtin-tables.js";
import { isPlainObject } from "../types.js";
import { defineBuiltin } from "./define.js";
import { coreEventToV1, eventV1ToCore } from "./event-conversion.js";
import { validateCoreEventCreate, validateEventsV1Create, validateEventUpdate } from "./event-validation.js";

type Obj = Record<string, unknown>;

export const nodesDefinition = defineBuiltin({
  group: "",
  version: "v1",
  resource: "nodes",
  kind: "Node",
  namespaced: false,
  schema: "io.k8s.api.core.v1.Node",
  shortNames: ["no"],
  status: true,
  table: nodeTable,
  fieldLabels: (o) => ({ "spec.unschedulable": String(((o.spec ?? {}) as Obj).unschedulable ?? false) }),
});

export const coreEventsDefinition = defineBuiltin({
  group: "",
  version: "v1",
  resource: "events",
  kind: "Event",
  namespaced: true,
  schema: "io.k8s.api.core.v1.Event",
  shortNames: ["ev"],
  table: eventTable,
  nameRule: "path-segment",
  strategy: {
    validate: validateCoreEventCreate,
    validateUpdate: (e) => validateEventUpdate(e, "core"),
  },
  fieldLabels: (o) => {
    const inv = (isPlainObject(o.involvedObject) ? o.involvedObject : {}) as Obj;
    const src = (isPlainObject(o.source) ? o.source : {}) as Obj;
    const out: Record<string, string> = {
      reason: String(o.reason ?? ""),
      type: String(o.type ?? ""),
      source: String(src.component ?? ""),
      reportingComponent: String(o.reportingComponent ?? ""),
    };
    for (const k of ["kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"])
      out[`involvedObject.${k}`] = String(inv[k] ?? "");
    return out;
  },
});

export const eventsV1Definition = {
  ...defineBuiltin({
    group: "events.k8s.io",
    version: "v1",
    resource: "events",
    kind: "Event",
    namespaced: true,
    schema: "io.k8s.api.events.v1.Event",
    shortNames: ["ev"],
    table: eventTable,
    nameRule: "path-segment",
    strategy: {
      validate: (e) => validateEventsV1Create(eventV1ToCore(e)),
      validateUpdate: (e) => validateEventUpdate(eventV1ToCore(e), "events.k8s.io"),
    },
    fieldLabels: (o) => {
      const reg = (isPlainObject(o.regarding) ? o.regarding : {}) as Obj;
      const out: Record<string, string> = {
        reason: String(o.reason ?? ""),
        type: String(o.type ?? ""),
        reportingController: String(o.reportingController ?? ""),
      };
      for (const k of ["kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"])
        out[`regarding.${k}`] = String(reg[k] ?? "");
      return out;
    },
  }),
  storage: { group: "", resource: "events" },
  convert: { toStorage: eventV1ToCore, fromStorage: coreEventToV1 },
};

export const leasesDefinition = defineBuiltin({
  group: "coordination.k8s.io",
  version: "v1",
  resource: "leases",
  kind: "Lease",
  namespaced: true,
  schema: "io.k8s.api.coordination.v1.Lease",
  table: leaseTable,
});
