import { resizeOutstanding } from "./in-place-resize.js";
import type { PodView } from "./views.js";

/** Predicates on one pod. Times are ms; `now` is the injected clock. */

export function isTerminating(pod: PodView): boolean {
  return pod.deletionTimestamp !== undefined;
}

/** Failed or Succeeded: the pod will never run again and is recreated. */
export function isFinished(pod: PodView): boolean {
  return pod.phase === "Failed" || pod.phase === "Succeeded";
}

/** `nginx:1` and `docker.io/library/nginx:1` are the same image. */
export function normalizeImage(image: string): string {
  let name = image;
  if (name.startsWith("docker.io/library/")) name = name.slice("docker.io/library/".length);
  else if (name.startsWith("docker.io/")) name = name.slice("docker.io/".length);
  const lastSegment = name.slice(name.lastIndexOf("/") + 1);
  if (!lastSegment.includes(":") && !name.includes("@")) name = `${name}:latest`;
  return name;
}

/**
 * An in-place image patch the kubelet has not acted on yet: the pod may still say Ready while
 * running the old image, so it must not count as available.
 */
export function inPlaceUpdatePending(pod: PodView): boolean {
  let pending = pendingOf.get(pod);
  if (pending === undefined) {
    pending =
      pod.containers.some(
        (c) => c.runningImage !== undefined && normalizeImage(c.runningImage) !== normalizeImage(c.image),
      ) || resizeOutstanding(pod) !== undefined;
    pendingOf.set(pod, pending);
  }
  return pending;
}

/**
 * `inPlaceUpdatePending` of each view, asked for every pod in most availability checks of every
 * sync (issue 29: a tenth of a sync). Views are read only once built (parsed-cache.ts), and a
 * cached pod's view lives as long as the pod does.
 */
const pendingOf = new WeakMap<PodView, boolean>();

export function isRunningAndReady(pod: PodView): boolean {
  return pod.phase === "Running" && pod.ready && !isTerminating(pod) && !inPlaceUpdatePending(pod);
}

/** When the pod counts as available, or undefined while it is not Running+Ready. */
export function availableAt(pod: PodView, minReadyMs: number): number | undefined {
  if (!isRunningAndReady(pod)) return undefined;
  if (minReadyMs <= 0) return pod.readySince ?? pod.createdAt;
  return (pod.readySince ?? pod.createdAt) + minReadyMs;
}

/** Running, Ready, not terminating, and Ready for at least minReadySeconds. */
export function isAvailable(pod: PodView, minReadyMs: number, now: number): boolean {
  const at = availableAt(pod, minReadyMs);
  // As kube's IsPodAvailable: without minReadySeconds a Ready pod is available whatever the
  // clocks say. Its Ready time is the kubelet's clock; a controller whose clock is behind
  // would otherwise hold every pet unavailable for the skew (docs/reliability.md).
  return at !== undefined && (minReadyMs <= 0 || at <= now);
}

/**
 * Not Ready and not going to be without a change: a container is failing (CrashLoopBackOff,
 * ImagePullBackOff, ...), the pod Failed, or it has not been Ready for a whole progress deadline.
 */
export function isBroken(pod: PodView, now: number, deadlineMs: number): boolean {
  if (isRunningAndReady(pod) || isTerminating(pod)) return false;
  // Serving while its resize is pending: the resize fallback (in-place-resize.ts) decides.
  if (pod.phase === "Running" && pod.ready && resizeOutstanding(pod) !== undefined) return false;
  if (pod.failing !== undefined || pod.phase === "Failed") return true;
  return now - pod.createdAt >= deadlineMs;
}
