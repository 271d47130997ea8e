import type { V1Pod } from "@kubernetes/client-node";
import { Labels } from "../../api/index.js";

/** What the demo tells about a pet's pod: enough to narrate a rollout. */
export interface PodSnapshot {
  readonly name: string;
  readonly uid: string;
  readonly version: string;
  readonly image: string;
  readonly ready: boolean;
  /** Why a container waits (CrashLoopBackOff), if one does. */
  readonly waiting: string | undefined;
  readonly terminating: boolean;
}

export function podSnapshot(pod: V1Pod): PodSnapshot {
  const statuses = pod.status?.containerStatuses ?? [];
  return {
    name: pod.metadata?.name ?? "",
    uid: pod.metadata?.uid ?? "",
    version: pod.metadata?.labels?.[Labels.version] ?? "?",
    image: pod.spec?.containers.map((c) => c.image ?? "").join(",") ?? "",
    ready: pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false,
    waiting: statuses.map((s) => s.state?.waiting?.reason).find((r) => r !== undefined),
    terminating: pod.metadata?.deletionTimestamp !== undefined,
  };
}

/**
 * The lines worth printing when a pod goes from `prev` to `next` (undefined: absent), in
 * words a user of `kubectl get pods -w` would use. Empty when nothing they care about moved.
 */
export function describePodChange(prev: PodSnapshot | undefined, next: PodSnapshot | undefined): string[] {
  if (next === undefined) return prev === undefined ? [] : [`${prev.name} deleted`];
  const v = `version ${next.version}`;
  if (prev === undefined || prev.uid !== next.uid) {
    const lines = [`${next.name} created at ${v} (${next.image})`];
    if (next.ready) lines.push(`${next.name} Ready (${v})`);
    return lines;
  }
  const lines: string[] = [];
  if (next.terminating && !prev.terminating) lines.push(`${next.name} terminating (${v})`);
  if (next.version !== prev.version && next.image === prev.image)
    lines.push(
      `${next.name} relabelled version ${prev.version} -> ${next.version}: same content, not restarted`,
    );
  if (next.image !== prev.image) lines.push(`${next.name} image ${prev.image} -> ${next.image} in place`);
  if (next.ready && !prev.ready && !next.terminating) lines.push(`${next.name} Ready (${v})`);
  if (next.waiting !== undefined && next.waiting !== prev.waiting && !next.ready)
    lines.push(`${next.name} not Ready: ${next.waiting} (${next.image})`);
  return lines;
}
