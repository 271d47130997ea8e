/** Evaluates a stage's declarative selector against an object. Pure. */
import type { ContainerStatus, KubeObject, Pod } from "./objects.js";
import type { ContainerMatch, Selector, ValueMatch } from "./stages.js";

/** One container as the selector and the status templates see it. */
export interface ContainerView {
  name: string;
  image: string;
  status: ContainerStatus | undefined;
}

export function containerViews(pod: Pod): ContainerView[] {
  const statuses = pod.status?.containerStatuses ?? [];
  return pod.spec.containers.map((c) => ({
    name: c.name,
    image: c.image ?? "",
    status: statuses.find((s) => s.name === c.name),
  }));
}

export function matchValue(m: ValueMatch, value: string | undefined): boolean {
  if (typeof m === "string") return value === m;
  if ("in" in m) return value !== undefined && m.in.includes(value);
  if ("notIn" in m) return value === undefined || !m.notIn.includes(value);
  return (value !== undefined) === m.exists;
}

function matchRecord(
  m: Record<string, ValueMatch> | undefined,
  values: Record<string, string> | null | undefined,
): boolean {
  if (!m) return true;
  return Object.entries(m).every(([k, vm]) => matchValue(vm, values?.[k]));
}

function stateOf(status: ContainerStatus | undefined): "running" | "waiting" | "terminated" | "none" {
  if (!status?.state) return "none";
  if (status.state.running) return "running";
  if (status.state.terminated) return "terminated";
  if (status.state.waiting) return "waiting";
  return "none";
}

export function imageChanged(c: ContainerView): boolean {
  return c.status !== undefined && c.status.image !== c.image;
}

export function matchContainer(m: ContainerMatch | undefined, c: ContainerView): boolean {
  if (!m) return true;
  if (m.imageSuffix && !m.imageSuffix.some((s) => c.image.endsWith(s))) return false;
  if (m.imageChanged !== undefined && imageChanged(c) !== m.imageChanged) return false;
  if (m.ready !== undefined && (c.status?.ready ?? false) !== m.ready) return false;
  if (m.state !== undefined && stateOf(c.status) !== m.state) return false;
  return true;
}

/** Reads a dotted path; numbers and booleans compare as their string forms. */
export function fieldValue(obj: unknown, path: string): string | undefined {
  let cur: unknown = obj;
  for (const part of path.split(".")) {
    if (cur === null || typeof cur !== "object" || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  if (cur === undefined || cur === null) return undefined;
  if (typeof cur === "string") return cur;
  if (typeof cur === "number" || typeof cur === "boolean") return String(cur);
  return JSON.stringify(cur);
}

/** `pod` is given for pods (already parsed), undefined for other resources. */
export function matchSelector(sel: Selector, obj: KubeObject, pod?: Pod): boolean {
  const meta = obj.metadata;
  if (sel.deleting !== undefined && Boolean(meta.deletionTimestamp) !== sel.deleting) return false;
  if (sel.phase && !matchValue(sel.phase, obj.status?.phase)) return false;
  if (sel.conditions) {
    const byType: Record<string, string> = {};
    for (const c of obj.status?.conditions ?? []) byType[c.type] = c.status;
    if (!matchRecord(sel.conditions, byType)) return false;
  }
  if (!matchRecord(sel.labels, meta.labels)) return false;
  if (!matchRecord(sel.annotations, meta.annotations)) return false;
  if (sel.fields && !Object.entries(sel.fields).every(([p, vm]) => matchValue(vm, fieldValue(obj, p)))) {
    return false;
  }
  if (sel.scheduled !== undefined || sel.containers) {
    if (!pod) return false;
    if (sel.scheduled !== undefined && Boolean(pod.spec.nodeName) !== sel.scheduled) return false;
    const cs = containerViews(pod);
    // The stage format's `containers.any` (some container matches), parsed by StageSchema.
    const { any: some, all, none } = sel.containers ?? {};
    if (some && !cs.some((c) => matchContainer(some, c))) return false;
    if (all && !cs.every((c) => matchContainer(all, c))) return false;
    if (none && cs.some((c) => matchContainer(none, c))) return false;
  }
  return true;
}
