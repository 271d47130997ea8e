/** `kubectl get jobs` columns, as kube's printJob shows them. */
import { isPlainObject, type KubeObject } from "../types.js";
import { AGE_COLUMN, column, humanDuration, NAME_COLUMN, objectAge, type TableConvertor } from "./table.js";

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isPlainObject(v) ? v : {});

function hasTrueCondition(status: Obj, type: string): boolean {
  const conds = Array.isArray(status.conditions) ? status.conditions : [];
  return conds.some((c) => isPlainObject(c) && c.type === type && c.status === "True");
}

/** Complete, Failed, Terminating, Suspended, FailureTarget or Running (kube's order of checks). */
export function jobStatusColumn(job: KubeObject): string {
  const status = obj(job.status);
  if (hasTrueCondition(status, "Complete")) return "Complete";
  if (hasTrueCondition(status, "Failed")) return "Failed";
  if (job.metadata.deletionTimestamp) return "Terminating";
  if (hasTrueCondition(status, "Suspended")) return "Suspended";
  if (hasTrueCondition(status, "FailureTarget")) return "FailureTarget";
  return "Running";
}

function completions(spec: Obj, status: Obj): string {
  const succeeded = typeof status.succeeded === "number" ? status.succeeded : 0;
  if (typeof spec.completions === "number") return `${succeeded}/${spec.completions}`;
  const parallelism = typeof spec.parallelism === "number" ? spec.parallelism : 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function duration(status: Obj, now: Date): string {
  const start = typeof status.startTime === "string" ? Date.parse(status.startTime) : Number.NaN;
  if (Number.isNaN(start)) return "";
  const end = typeof status.completionTime === "string" ? Date.parse(status.completionTime) : now.getTime();
  return humanDuration(end - start);
}

function selectorString(selector: Obj): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(obj(selector.matchLabels))) parts.push(`${k}=${String(v)}`);
  for (const e of Array.isArray(selector.matchExpressions) ? selector.matchExpressions : []) {
    const { key, operator, values } = obj(e);
    const vs = Array.isArray(values) ? values.map(String).join(",") : "";
    if (operator === "Exists") parts.push(String(key));
    else if (operator === "DoesNotExist") parts.push(`!${String(key)}`);
    else parts.push(`${String(key)} ${String(operator).toLowerCase()} (${vs})`);
  }
  return parts.length ? parts.join(",") : "<none>";
}

export const jobTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    column("Status", "string", "Status of the job."),
    column(
      "Completions",
      "string",
      "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs.",
    ),
    column("Duration", "string", "Time required to complete the job."),
    AGE_COLUMN,
    column("Containers", "string", "Names of each container in the template.", 1),
    column("Images", "string", "Images referenced by each container in the template.", 1),
    column(
      "Selector",
      "string",
      "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
      1,
    ),
  ],
  cells(job, now) {
    const spec = obj(job.spec);
    const status = obj(job.status);
    const podSpec = obj(obj(spec.template).spec);
    const containers = (Array.isArray(podSpec.containers) ? podSpec.containers : []).map(obj);
    return [
      job.metadata.name,
      jobStatusColumn(job),
      completions(spec, status),
      duration(status, now),
      objectAge(job, now),
      containers.map((c) => String(c.name ?? "")).join(","),
      containers.map((c) => String(c.image ?? "")).join(","),
      selectorString(obj(spec.selector)),
    ];
  },
};
