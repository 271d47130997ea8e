/**
 * The pods/resize subresource (Kubernetes 1.33, InPlacePodVerticalScaling beta, on by
 * default): a write through it changes only the cpu/memory requests and limits of the
 * containers; everything else is taken from the stored pod. Validation follows kube's
 * ValidatePodResize: same containers in the same order, nothing removed, only cpu and memory
 * (other resources and fields are refused), the QoS class unchanged, a memory limit decreased
 * or added only with resizePolicy memory RestartContainer, and no resize while a running
 * container's status lacks `resources` (a node without resize support). The main pod resource
 * keeps refusing resource changes (pod-validation.ts).
 */
import { fieldForbidden, fieldInvalid } from "../errors.js";
import type { FieldError } from "../schema/index.js";
import { deepEqual, isPlainObject, type KubeObject } from "../types.js";

type Obj = Record<string, unknown>;
const RESIZABLE = ["cpu", "memory"];

const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);
const obj = (v: unknown): Obj => (isPlainObject(v) ? v : {});

/** Keep the stored pod; take only the containers' resources from the write. */
export function prepareResize(next: KubeObject, old: KubeObject): void {
  const oldSpec = obj(old.spec);
  const newContainers = list(obj(next.spec).containers);
  const oldContainers = list(oldSpec.containers);
  // Added, removed, renamed or reordered: kept as written, for validateResize to refuse.
  const rejected =
    newContainers.length !== oldContainers.length ||
    newContainers.some((c, i) => c.name !== oldContainers[i]?.name);
  const containers = oldContainers.map((c, i) => ({ ...c, resources: newContainers[i]?.resources ?? {} }));
  next.spec = {
    ...structuredClone(oldSpec),
    containers: rejected ? newContainers : structuredClone(containers),
  };
  const rv = next.metadata.resourceVersion;
  next.metadata = { ...structuredClone(old.metadata), ...(rv !== undefined ? { resourceVersion: rv } : {}) };
}

function amount(q: unknown): number {
  if (typeof q === "number") return q;
  if (typeof q !== "string") return 0;
  const m = /^([0-9.]+)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(q);
  if (m === null) return Number.NaN;
  const factor: Record<string, number> = {
    m: 1e-3,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
  };
  return Number(m[1]) * (m[2] !== undefined ? (factor[m[2]] ?? 1) : 1);
}

function qos(containers: Obj[]): string {
  let any = false;
  let guaranteed = true;
  for (const c of containers) {
    const res = obj(c.resources);
    const limits = obj(res.limits);
    const requests = { ...limits, ...obj(res.requests) };
    for (const r of RESIZABLE) {
      if (amount(requests[r]) > 0 || amount(limits[r]) > 0) any = true;
      if (limits[r] === undefined || amount(requests[r]) !== amount(limits[r])) guaranteed = false;
    }
  }
  return !any ? "BestEffort" : guaranteed ? "Guaranteed" : "Burstable";
}

function memoryRestarts(c: Obj): boolean {
  return list(c.resizePolicy).some(
    (p) => p.resourceName === "memory" && p.restartPolicy === "RestartContainer",
  );
}

export function validateResize(next: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const oldSpec = obj(old.spec);
  const newSpec = obj(next.spec);
  const oldContainers = list(oldSpec.containers);
  const newContainers = list(newSpec.containers);
  if (oldContainers.length !== newContainers.length)
    return [fieldForbidden("spec.containers", "containers may not be added or removed on resize")];
  const renamed = newContainers.findIndex((c, i) => c.name !== oldContainers[i]?.name);
  if (renamed >= 0)
    return [
      fieldForbidden(
        `spec.containers[${renamed}].name`,
        "containers may not be renamed or reordered on resize",
      ),
    ];
  const init = list(oldSpec.initContainers);
  if (qos([...init, ...oldContainers]) !== qos([...init, ...newContainers]))
    errs.push(
      fieldInvalid(
        "spec",
        qos([...init, ...newContainers]),
        "Pod QOS Class may not change as a result of resizing",
      ),
    );
  const statuses = list(obj(old.status).containerStatuses);
  const running = statuses.find((s) => isPlainObject(obj(s.state).running));
  if (running !== undefined && running.resources === undefined)
    errs.push(fieldForbidden("spec", "Pod running on node without support for resize"));
  for (const [i, c] of newContainers.entries()) {
    const before = oldContainers[i] as Obj;
    const path = `spec.containers[${i}].resources`;
    const now = obj(c.resources);
    const was = obj(before.resources);
    for (const kind of ["requests", "limits"]) {
      if (Object.keys(obj(was[kind])).some((r) => obj(now[kind])[r] === undefined))
        errs.push(fieldForbidden(`${path}.${kind}`, `resource ${kind} cannot be removed`));
    }
    if (!memoryRestarts(c)) {
      const newLimit = obj(now.limits).memory;
      const oldLimit = obj(was.limits).memory;
      if (newLimit !== undefined && oldLimit !== undefined && amount(newLimit) < amount(oldLimit))
        errs.push(
          fieldForbidden(
            `${path}.limits[memory]`,
            "memory limits cannot be decreased unless resizePolicy is RestartContainer",
          ),
        );
      else if (newLimit !== undefined && oldLimit === undefined)
        errs.push(
          fieldForbidden(
            `${path}.limits[memory]`,
            "memory limits cannot be added unless resizePolicy is RestartContainer",
          ),
        );
    }
    const others = (r: Obj) =>
      ["requests", "limits"].map((k) =>
        Object.fromEntries(Object.entries(obj(r[k])).filter(([name]) => !RESIZABLE.includes(name))),
      );
    if (!deepEqual(others(now), others(was)))
      errs.push(fieldForbidden("spec", "only cpu and memory resources are mutable"));
  }
  return errs;
}
