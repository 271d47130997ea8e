/**
 * A Warning Event on a pod, written by an embedded kube-controller-manager controller (node
 * lifecycle, attach/detach) as kube's recorder.Event would: best effort, an API refusal is
 * dropped. `suffix` keeps two controllers' Events of one pod in the same millisecond apart.
 */
import { ApiError } from "../errors.js";
import type { GenericStore } from "../registry/generic-store.js";
import type { ResourceRegistry } from "../registry/resource-registry.js";
import type { KubeObject } from "../types.js";
import { systemContext } from "./system-context.js";

const MANAGER = "kube-controller-manager";

export interface PodWarning {
  reason: string;
  message: string;
  component: string;
  suffix?: string;
}

export function recordPodWarning(
  registry: ResourceRegistry,
  store: GenericStore,
  pod: KubeObject,
  warning: PodWarning,
  now: number,
): void {
  const def = registry.get("", "v1", "events");
  const ns = pod.metadata.namespace;
  if (!def || !ns) return;
  const at = `${new Date(now).toISOString().slice(0, 19)}Z`;
  try {
    store.create(
      def,
      ns,
      {
        metadata: { name: `${pod.metadata.name}.${now.toString(16)}${warning.suffix ?? ""}`, namespace: ns },
        involvedObject: {
          apiVersion: "v1",
          kind: "Pod",
          name: pod.metadata.name,
          namespace: ns,
          uid: pod.metadata.uid,
        },
        type: "Warning",
        reason: warning.reason,
        message: warning.message,
        source: { component: warning.component },
        reportingComponent: warning.component,
        firstTimestamp: at,
        lastTimestamp: at,
        count: 1,
      },
      systemContext(store.clock, MANAGER),
    );
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
  }
}
