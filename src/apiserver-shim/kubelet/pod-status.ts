/**
 * Fills a pod status template from the pod: container statuses, conditions, IPs. Pure:
 * time comes in as `now`, IDs and IPs are derived from names by hashing.
 */
import {
  type Condition,
  type ContainerState,
  type ContainerStatus,
  hash32,
  hex,
  type Pod,
  type Taint,
  timestamp,
} from "./objects.js";
import { specResources } from "./resize.js";
import { type ContainerView, containerViews, matchContainer } from "./selector.js";
import type { ConditionTemplate, ContainerRule, PodStatusTemplate } from "./stages.js";

/** A managed node as stage rendering sees it. */
export interface NodeView {
  name: string;
  ready: boolean;
  /** spec.unschedulable (cordoned): no new pod is bound to it. */
  unschedulable?: boolean;
  labels?: Readonly<Record<string, string>>;
  /** spec.taints: NoSchedule and NoExecute ones keep pods that do not tolerate them away. */
  taints?: readonly Taint[];
  /** Pods bound to it (including binds not yet seen in the cache). */
  pods: number;
  internalIP: string | undefined;
  podCIDR: string | undefined;
  /** Pod IPs in use on it (a set or a count per IP: only `has` is asked). */
  podIPs: { has(ip: string): boolean };
  /** status.allocatable (resize.ts: Infeasible and Deferred). */
  allocatable?: Readonly<Record<string, string>>;
}

/** Replaces `{{name}}` placeholders; the names were checked when the stages were loaded. */
export function fill(text: string, vars: Record<string, string>): string {
  return text.replace(/\{\{\s*([A-Za-z]+)\s*\}\}/g, (_, k: string) => vars[k] ?? "");
}

export function podVars(pod: Pod, unready: string[] = []): Record<string, string> {
  const cs = pod.spec.containers;
  return {
    name: pod.metadata.name,
    namespace: pod.metadata.namespace ?? "",
    node: pod.spec.nodeName ?? "",
    containers: cs.map((c) => c.name).join(" "),
    images: cs.map((c) => c.image ?? "").join(" "),
    unreadyContainers: unready.join(" "),
  };
}

/**
 * Conditions after applying `templates` by type: others are kept; lastTransitionTime
 * moves only when a condition's status changes; `extra` fields go on every written one.
 */
export function mergeConditions(
  existing: readonly Condition[],
  templates: Record<string, ConditionTemplate>,
  now: number,
  vars: Record<string, string>,
  extra: Record<string, unknown> = {},
): Condition[] {
  const out = existing.map((c) => ({ ...c }));
  for (const [type, t] of Object.entries(templates)) {
    const { status, reason, message } =
      typeof t === "string" ? { status: t, reason: undefined, message: undefined } : t;
    const prev = out.find((c) => c.type === type);
    const next: Condition = {
      type,
      status,
      ...extra,
      lastTransitionTime: prev && prev.status === status ? prev.lastTransitionTime : timestamp(now),
      ...(reason !== undefined ? { reason } : {}),
      ...(message !== undefined ? { message: fill(message, vars) } : {}),
    };
    if (prev) out[out.indexOf(prev)] = next;
    else out.push(next);
  }
  return out;
}

/** `registry/repo@sha256:<digest>`, stable per image reference. */
export function imageIDFor(image: string): string {
  const slash = image.lastIndexOf("/");
  const colon = image.lastIndexOf(":");
  const repo = colon > slash ? image.slice(0, colon) : image;
  return `${repo}@sha256:${hex(image)}`;
}

function runningSince(status: ContainerStatus | undefined): string | undefined {
  const started = status?.state?.running?.startedAt ?? status?.state?.terminated?.startedAt;
  return started ?? undefined;
}

function renderContainer(rule: ContainerRule, c: ContainerView, pod: Pod, now: number): ContainerStatus {
  const prev = c.status;
  const restarting = rule.restartCount === "increment";
  const restartCount = (prev?.restartCount ?? 0) + (restarting ? 1 : 0);
  const vars = { ...podVars(pod), container: c.name, image: c.image };
  const sameRun = prev !== undefined && !restarting && prev.image === c.image && prev.state?.running;
  let state: ContainerState;
  if (rule.state === "running") {
    state = { running: { startedAt: (sameRun ? runningSince(prev) : undefined) ?? timestamp(now) } };
  } else if (rule.state === "waiting") {
    state = { waiting: { reason: rule.reason ?? "ContainerCreating", ...msg(rule.message, vars) } };
  } else {
    state = {
      terminated: {
        exitCode: rule.exitCode ?? 0,
        reason: rule.reason ?? "Completed",
        ...msg(rule.message, vars),
        startedAt: runningSince(prev) ?? timestamp(now),
        finishedAt: timestamp(now),
      },
    };
  }
  const lastState: ContainerState =
    restarting && rule.lastTerminated
      ? {
          terminated: {
            exitCode: rule.lastTerminated.exitCode,
            reason: rule.lastTerminated.reason,
            startedAt: runningSince(prev) ?? timestamp(now),
            finishedAt: timestamp(now),
          },
        }
      : (prev?.lastState ?? {});
  const podID = pod.metadata.uid ?? `${pod.metadata.namespace}/${pod.metadata.name}`;
  // What the container was allocated (resize.ts changes it): kube-apiserver 1.33 refuses a
  // resize while a running container's status lacks it.
  const resources = prev?.resources ?? specResources(pod.spec.containers.find((x) => x.name === c.name));
  return {
    name: c.name,
    resources,
    state,
    lastState,
    ready: rule.ready,
    restartCount,
    image: c.image,
    imageID: imageIDFor(c.image),
    containerID: `containerd://${hex(`${podID}/${c.name}/${restartCount}`)}`,
    started: rule.started ?? rule.state === "running",
  };
}

function msg(message: string | undefined, vars: Record<string, string>): { message?: string } {
  return message === undefined ? {} : { message: fill(message, vars) };
}

function containerStatuses(rules: ContainerRule[], pod: Pod, now: number): ContainerStatus[] {
  return containerViews(pod).map((c) => {
    const rule = rules.find((r) => matchContainer(r.when, c));
    if (rule) return renderContainer(rule, c, pod, now);
    if (c.status) return c.status;
    return renderContainer({ state: "waiting", ready: false, restartCount: "keep" }, c, pod, now);
  });
}

function initContainerStatuses(pod: Pod, now: number): ContainerStatus[] {
  return (pod.spec.initContainers ?? []).map((c) => {
    const image = c.image ?? "";
    const sidecar = c.restartPolicy === "Always";
    const state: ContainerState = sidecar
      ? { running: { startedAt: timestamp(now) } }
      : {
          terminated: {
            exitCode: 0,
            reason: "Completed",
            startedAt: timestamp(now),
            finishedAt: timestamp(now),
          },
        };
    return {
      name: c.name,
      state,
      ready: true,
      restartCount: 0,
      image,
      imageID: imageIDFor(image),
      started: sidecar,
    };
  });
}

/** First free address in the node's /24, starting at a per-pod offset. */
export function allocatePodIP(pod: Pod, node: NodeView | undefined, nodeIndex: number): string {
  const cidr = node?.podCIDR ?? `10.244.${nodeIndex}.0/24`;
  const prefix = cidr.split("/")[0]!.split(".").slice(0, 3).join(".");
  const used = node?.podIPs ?? new Set<string>();
  const start = hash32(`${pod.metadata.namespace}/${pod.metadata.name}/${pod.metadata.uid ?? ""}`) % 253;
  for (let i = 0; i < 253; i++) {
    const ip = `${prefix}.${((start + i) % 253) + 2}`;
    if (!used.has(ip)) return ip;
  }
  return `${prefix}.${start + 2}`;
}

/** The full status the template asks for (lists complete: a merge patch replaces lists). */
export function renderPodStatus(
  t: PodStatusTemplate,
  pod: Pod,
  nodes: readonly NodeView[],
  now: number,
): Record<string, unknown> {
  const status: Record<string, unknown> = {};
  const prev = pod.status;
  if (t.phase !== undefined) status.phase = t.phase;
  const containers = t.containers
    ? containerStatuses(t.containers, pod, now)
    : (prev?.containerStatuses ?? []);
  if (t.conditions) {
    const unready = containers.filter((c) => !c.ready).map((c) => c.name);
    status.conditions = mergeConditions(prev?.conditions ?? [], t.conditions, now, podVars(pod, unready), {
      lastProbeTime: null,
    });
  }
  const nodeIndex = nodes.findIndex((n) => n.name === pod.spec.nodeName);
  const node = nodes[nodeIndex];
  if (t.hostIP) {
    const hostIP = prev?.hostIP || node?.internalIP;
    if (hostIP) Object.assign(status, { hostIP, hostIPs: [{ ip: hostIP }] });
  }
  if (t.podIP) {
    const podIP = prev?.podIP || allocatePodIP(pod, node, Math.max(nodeIndex, 0));
    Object.assign(status, { podIP, podIPs: [{ ip: podIP }] });
  }
  if (t.startTime) status.startTime = prev?.startTime ?? timestamp(now);
  if (t.initContainers && (pod.spec.initContainers ?? []).length > 0) {
    status.initContainerStatuses = initContainerStatuses(pod, now);
  }
  if (t.containers) status.containerStatuses = containers;
  return status;
}
