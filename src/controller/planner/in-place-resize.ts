/**
 * In-place updates beyond images: container `resources` through the pod `resize` subresource
 * (Kubernetes 1.33+), and the InPlaceOnly policy. Pure: plain data in, decisions out; the
 * clock is `ctx.input.now`; every time read comes from the API (pod conditions). The rules
 * (also docs/rollouts.md "In-place resource resize"):
 *
 * What can move in place (`inPlaceChanges`), following kube's own ValidatePodResize:
 *  - Only container images and the cpu/memory `requests`/`limits` of regular containers differ
 *    between the pod's version and the target: same containers in the same order, same init
 *    containers (a running pod never re-runs them), same `resizePolicy`, same template metadata
 *    and claim templates. Other resources (e.g. ephemeral-storage) are not resizable.
 *  - Nothing removed: a request or limit present before is present after.
 *  - The pod's QoS class (Guaranteed, Burstable, BestEffort; requests default to limits) is
 *    unchanged.
 *  - A memory limit may decrease (or be added) only when the container's memory resizePolicy
 *    is RestartContainer.
 *  Otherwise the answer names the first field that prevents it.
 *
 * Applying it (pod-updates.ts, executor): resources through pods/resize, then images, labels
 * and annotations by patch. The pod carries the target's labels from then on.
 *
 * When a resize is done (`resizeOutstanding`): every container's reported resources
 * (`status.containerStatuses[].resources`) equal its spec cpu/memory requests and limits, and
 * neither PodResizePending nor PodResizeInProgress is present (1.33 pods carry no
 * observedGeneration to wait on). Until then the pod does not count as available (pod-health.ts),
 * so it holds its maxUnavailable slot. A kubelet that reports no resources reports nothing to
 * wait for.
 *
 * Fallback (`planResizeFallbacks`), for pods at the target's content whose resize is not done:
 *  - PodResizePending reason Infeasible: at once; reason Deferred: once it has been Deferred
 *    (the condition's lastTransitionTime) for rollingUpdate.inPlaceResizeTimeoutSeconds.
 *  - InPlaceIfPossible: the pod is deleted (reason update) and recreated at the target by pet
 *    creation, with a Warning ResizeFallback Event saying why. The pod was already unavailable,
 *    so the budget is the same.
 *  - InPlaceOnly: nothing is deleted; the Progressing message says why, with a Warning Event
 *    when that first appears.
 *
 * InPlaceOnly (`refuseRecreate`): a pod whose move to the target cannot be done in place is not
 * recreated; the Progressing message names the pod and the field, a Warning InPlaceUpdateRefused
 * Event when the message first appears. A Failed pod is still recreated (that is not a move).
 */
import { PetSetDefaults, type PetSetVersion, ProgressingReasons } from "../../api/index.js";
import { canonicalQuantity } from "../../versions/quantity.js";
import { deletePod, event, type PlanContext } from "./plan-context.js";
import { findCondition } from "./plan-status.js";
import { canonicalJson, type ImageChange } from "./version-index.js";
import type { PodView, ResourceView } from "./views.js";

export const ResizeEventReasons = {
  fallback: "ResizeFallback",
  refused: "InPlaceUpdateRefused",
} as const;

/** The cpu/memory requests and limits a container is resized to. */
export interface ResourceChange {
  container: string;
  requests?: Record<string, string>;
  limits?: Record<string, string>;
}

export type InPlaceDecision =
  | { inPlace: true; images: ImageChange[]; resources: ResourceChange[] }
  | { inPlace: false; why: string };

type Obj = Record<string, unknown>;
const RESIZABLE = ["cpu", "memory"] as const;
const no = (why: string): InPlaceDecision => ({ inPlace: false, why });

function obj(v: unknown): Obj {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {};
}

function quantities(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, q] of Object.entries(obj(v))) {
    if (typeof q === "string" || typeof q === "number") out[k] = canonicalQuantity(q) ?? String(q);
  }
  return out;
}

function amount(q: string | undefined): number | undefined {
  return q === undefined ? undefined : Number(q);
}

/** kube's QoS class of a pod from its containers (requests default to limits). */
export function qosClass(containers: readonly Obj[]): "Guaranteed" | "Burstable" | "BestEffort" {
  let any = false;
  let guaranteed = true;
  for (const c of containers) {
    const res = obj(c.resources);
    const limits = quantities(res.limits);
    const requests = { ...limits, ...quantities(res.requests) };
    for (const r of RESIZABLE) {
      if (requests[r] !== undefined && amount(requests[r]) !== 0) any = true;
      if (limits[r] !== undefined && amount(limits[r]) !== 0) any = true;
      if (limits[r] === undefined || requests[r] !== limits[r]) guaranteed = false;
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

/** The first path where two JSON values differ (canonical comparison), for messages. */
function firstDifference(a: unknown, b: unknown, path: string): string | undefined {
  if (canonicalJson(a) === canonicalJson(b)) return undefined;
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    for (const [i, x] of a.entries()) {
      const name = obj(x).name;
      const d = firstDifference(x, b[i], `${path}[${typeof name === "string" ? name : i}]`);
      if (d !== undefined) return d;
    }
  }
  const oa = obj(a);
  const ob = obj(b);
  if (a === oa && b === ob) {
    for (const k of [...new Set([...Object.keys(oa), ...Object.keys(ob)])].sort()) {
      const d = firstDifference(oa[k], ob[k], `${path}.${k}`);
      if (d !== undefined) return d;
    }
  }
  return path;
}

function memoryRestarts(c: Obj): boolean {
  const policies = Array.isArray(c.resizePolicy) ? (c.resizePolicy as Obj[]) : [];
  return policies.some((p) => p.resourceName === "memory" && p.restartPolicy === "RestartContainer");
}

/** Why container `to` cannot be resized from `from` (kube's validateContainerResize), or undefined. */
function resizeRefusal(from: Obj, to: Obj, path: string): string | undefined {
  const before = obj(from.resources);
  const after = obj(to.resources);
  for (const kind of ["requests", "limits"] as const) {
    const old = quantities(before[kind]);
    const now = quantities(after[kind]);
    const gone = Object.keys(old).find((r) => now[r] === undefined);
    if (gone !== undefined) return `${path}.resources.${kind}.${gone}: resources cannot be removed in place`;
  }
  const oldMem = quantities(before.limits).memory;
  const newMem = quantities(after.limits).memory;
  if (newMem !== undefined && !memoryRestarts(to)) {
    if (oldMem === undefined || Number(newMem) < Number(oldMem))
      return `${path}.resources.limits.memory: a memory limit can be decreased or added in place only with resizePolicy memory RestartContainer`;
  }
  return undefined;
}

function withoutResizable(c: Obj): Obj {
  const res = obj(c.resources);
  const strip = (v: unknown) => {
    const q = quantities(v);
    for (const r of RESIZABLE) delete q[r];
    return q;
  };
  return { ...c, image: undefined, resources: { requests: strip(res.requests), limits: strip(res.limits) } };
}

/** The cpu/memory requests and limits of a container: canonical to compare, as written to send. */
function resizable(
  c: Obj,
  canonical = true,
): { requests?: Record<string, string>; limits?: Record<string, string> } {
  const res = obj(c.resources);
  const pick = (v: unknown) => {
    const q = canonical
      ? quantities(v)
      : Object.fromEntries(Object.entries(obj(v)).map(([k, x]) => [k, String(x)]));
    return Object.fromEntries(RESIZABLE.filter((r) => q[r] !== undefined).map((r) => [r, q[r] as string]));
  };
  const requests = pick(res.requests);
  const limits = pick(res.limits);
  return {
    ...(Object.keys(requests).length > 0 ? { requests } : {}),
    ...(Object.keys(limits).length > 0 ? { limits } : {}),
  };
}

/** Can a pod of `from` be moved to `to` in place, and how (see the header). */
export function inPlaceChanges(from: PetSetVersion, to: PetSetVersion): InPlaceDecision {
  const a = from.spec.template;
  const b = to.spec.template;
  const base = "spec.template";
  const fromContainers = a.spec.containers as Obj[];
  const toContainers = b.spec.containers as Obj[];
  if (
    fromContainers.length !== toContainers.length ||
    fromContainers.some((c, i) => c.name !== toContainers[i]?.name)
  )
    return no(`${base}.spec.containers: containers were added, removed, renamed or reordered`);
  const outside = (t: typeof a) => ({ ...t, spec: { ...t.spec, containers: undefined } });
  const elsewhere = firstDifference(outside(a), outside(b), base);
  if (elsewhere !== undefined) return no(`${elsewhere} changed`);
  const claims = firstDifference(
    from.spec.volumeClaimTemplates,
    to.spec.volumeClaimTemplates,
    "spec.volumeClaimTemplates",
  );
  if (claims !== undefined) return no(`${claims} changed`);
  const images: ImageChange[] = [];
  const resources: ResourceChange[] = [];
  for (const [i, c] of toContainers.entries()) {
    const before = fromContainers[i] as Obj;
    const path = `${base}.spec.containers[${String(c.name)}]`;
    const other = firstDifference(withoutResizable(before), withoutResizable(c), path);
    if (other !== undefined)
      return no(`${other} changed (only images and cpu/memory resources change in place)`);
    if (before.image !== c.image) {
      if (typeof c.image !== "string") return no(`${path}.image removed`);
      images.push({ container: String(c.name), image: c.image });
    }
    if (canonicalJson(resizable(before)) !== canonicalJson(resizable(c))) {
      const refusal = resizeRefusal(before, c, path);
      if (refusal !== undefined) return no(refusal);
      resources.push({ container: String(c.name), ...resizable(c, false) });
    }
  }
  const initContainers = (t: typeof a) => (t.spec.initContainers ?? []) as Obj[];
  if (
    resources.length > 0 &&
    qosClass([...initContainers(a), ...fromContainers]) !== qosClass([...initContainers(b), ...toContainers])
  )
    return no(
      `${base}.spec.containers: the pod's QoS class would change (${qosClass(fromContainers)} to ${qosClass(toContainers)})`,
    );
  if (images.length === 0 && resources.length === 0) return no(`${base} changed`);
  return { inPlace: true, images, resources };
}

/** Why the resize of `pod` is not done yet, or undefined when it is (see the header). */
export function resizeOutstanding(pod: PodView): string | undefined {
  if (pod.resizePending !== undefined) return `PodResizePending (${pod.resizePending.reason})`;
  if (pod.resizeInProgress === true) return "PodResizeInProgress";
  for (const c of pod.containers) {
    if (c.statusResources === undefined) continue;
    if (!sameResources(c.resources, c.statusResources))
      return `container ${c.name}: resources not applied yet`;
  }
  return undefined;
}

function sameResources(spec: ResourceView | undefined, status: ResourceView): boolean {
  // Flat maps of canonical quantities: compared key by key (no canonical JSON per call, this
  // runs for every pod in every availability check of every sync).
  return sameQuantities(spec?.requests, status.requests) && sameQuantities(spec?.limits, status.limits);
}

/** Equal maps, a missing map as an empty one and an undefined value as a missing key. */
function sameQuantities(
  a: Readonly<Record<string, string>> | undefined,
  b: Readonly<Record<string, string>> | undefined,
): boolean {
  const keys = (m: Readonly<Record<string, string>> | undefined) =>
    m === undefined ? [] : Object.keys(m).filter((k) => m[k] !== undefined);
  const ka = keys(a);
  if (ka.length !== keys(b).length) return false;
  return ka.every((k) => a?.[k] === b?.[k]);
}

/** The fallback reason for a pod whose resize will not happen in time, or undefined. */
export function resizeFallbackReason(
  pod: PodView,
  now: number,
  timeoutMs: number,
): { why: string; wakeAt?: number } | undefined {
  const pending = pod.resizePending;
  if (pending === undefined) return undefined;
  const detail = pending.message ? `: ${pending.message}` : "";
  if (pending.reason === "Infeasible")
    return { why: `the node cannot fit the resize (PodResizePending Infeasible${detail})` };
  if (pending.reason !== "Deferred") return undefined;
  const since = pending.since ?? now;
  if (now - since >= timeoutMs)
    return {
      why: `the resize was Deferred for ${Math.round((now - since) / 1000)}s, longer than rollingUpdate.inPlaceResizeTimeoutSeconds (PodResizePending Deferred${detail})`,
    };
  return { why: "", wakeAt: since + timeoutMs };
}

/** Pods at the target whose resize fails: recreate (InPlaceIfPossible) or say so (InPlaceOnly). */
export function planResizeFallbacks(ctx: PlanContext): void {
  const target = ctx.versions.target;
  const seconds = ctx.input.petSet.spec.updateStrategy.rollingUpdate?.inPlaceResizeTimeoutSeconds;
  const timeoutMs = (seconds ?? PetSetDefaults.inPlaceResizeTimeoutSeconds) * 1000;
  for (const pod of ctx.podsByOrdinal.values()) {
    if (ctx.touched.has(pod.name) || pod.deletionTimestamp !== undefined) continue;
    if (ctx.index.contentOf(pod) !== target.spec.hash) continue;
    const fallback = resizeFallbackReason(pod, ctx.input.now, timeoutMs);
    if (fallback === undefined) continue;
    if (fallback.wakeAt !== undefined) {
      ctx.wakeAt.push(fallback.wakeAt);
      continue;
    }
    if (ctx.spec.inPlaceOnly) {
      refuse(
        ctx,
        pod,
        `resize of pod ${pod.name} to version ${target.spec.version} not applied: ${fallback.why}; podUpdatePolicy InPlaceOnly does not recreate it`,
      );
      continue;
    }
    deletePod(ctx, pod, "update");
    event(
      ctx,
      "Warning",
      ResizeEventReasons.fallback,
      pod.name,
      `pod ${pod.name}: recreating it at version ${target.spec.version}: ${fallback.why}`,
    );
  }
}

/** InPlaceOnly: say (Progressing message, one Warning Event) why `pod` does not move. */
export function refuseRecreate(ctx: PlanContext, pod: PodView, why: string): void {
  refuse(
    ctx,
    pod,
    `pod ${pod.name} cannot move to version ${ctx.versions.target.spec.version} in place: ${why}; podUpdatePolicy InPlaceOnly does not recreate it`,
  );
  ctx.touched.add(pod.name);
}

function refuse(ctx: PlanContext, pod: PodView, message: string): void {
  ctx.externalRefusals.push(message);
  const previous = findCondition(ctx.input.petSet.status?.conditions, "Progressing");
  const known =
    previous?.reason !== ProgressingReasons.rolloutComplete && previous?.message?.includes(message) === true;
  if (!known) event(ctx, "Warning", ResizeEventReasons.refused, pod.name, message);
}
