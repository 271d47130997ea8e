/** Printer columns of apps/v1 StatefulSets and ControllerRevisions, matching kube's internal printers. */
import { isPlainObject, type KubeObject } from "../types.js";
import { AGE_COLUMN, column, NAME_COLUMN, objectAge, type TableConvertor } from "./table.js";

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isPlainObject(v) ? v : {});
const num = (v: unknown): number => (typeof v === "number" ? v : 0);

function containerCells(sts: KubeObject): [string, string] {
  const containers = obj(obj(obj(sts.spec).template).spec).containers;
  const list = Array.isArray(containers) ? containers.map(obj) : [];
  return [list.map((c) => String(c.name ?? "")).join(","), list.map((c) => String(c.image ?? "")).join(",")];
}

export const statefulSetTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    column("Ready", "string", "Number of the pod with ready state"),
    AGE_COLUMN,
    column("Containers", "string", "Names of each container in the template.", 1),
    column("Images", "string", "Images referenced by each container in the template.", 1),
  ],
  cells: (o, now) => [
    o.metadata.name,
    `${num(obj(o.status).readyReplicas)}/${num(obj(o.spec).replicas)}`,
    objectAge(o, now),
    ...containerCells(o),
  ],
};

/** `statefulset.apps/web`: the controller as kube's formatResourceName prints it. */
function controllerName(o: KubeObject): string {
  const ref = (o.metadata.ownerReferences ?? []).find((r) => r.controller);
  if (!ref) return "<none>";
  const slash = ref.apiVersion.indexOf("/");
  const group = slash < 0 ? "" : ref.apiVersion.slice(0, slash);
  return `${ref.kind.toLowerCase()}${group ? `.${group}` : ""}/${ref.name}`;
}

export const controllerRevisionTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    column("Controller", "string", "Controller of the object"),
    // kube takes it from the apps/v1beta1 doc string, which starts lower-case.
    column("Revision", "string", "revision indicates the revision of the state represented by Data."),
    AGE_COLUMN,
  ],
  cells: (o, now) => [o.metadata.name, controllerName(o), num(o.revision), objectAge(o, now)],
};
