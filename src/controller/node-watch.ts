/**
 * The nodes as the planner sees them (planner/node-failure.ts), from the trimmed node cache:
 * undefined until the cache has synced (an empty cache must never read as "every node gone").
 * A node whose Ready status changes, or that is deleted, wakes the PetSets with pods on it.
 * The last Ready status per node is kept here only to filter heartbeats out of the wake-ups;
 * no decision reads it.
 */
import type { KubernetesObject, V1Node, V1Pod } from "@kubernetes/client-node";
import { Labels } from "../api/names.js";
import type { ResourceCache } from "./informers.js";
import type { NodeView } from "./planner/node-failure.js";
import { toMillis } from "./planner/views.js";

export function nodeView(node: V1Node): NodeView {
  const ready = node.status?.conditions?.find((c) => c.type === "Ready");
  const view: NodeView = { name: node.metadata?.name ?? "" };
  if (ready?.status === "True" || ready?.status === "False" || ready?.status === "Unknown")
    view.ready = ready.status;
  const since = toMillis(ready?.lastTransitionTime);
  if (since !== undefined) view.readySince = since;
  return view;
}

export interface NodeWatch {
  /** Every node, or undefined while the cache has not synced. */
  views(): NodeView[] | undefined;
}

export function watchNodes(
  nodes: ResourceCache<V1Node>,
  pods: Pick<ResourceCache<V1Pod>, "list">,
  wake: (pod: KubernetesObject) => void,
): NodeWatch {
  let synced = false;
  void nodes.synced.then(() => {
    synced = true;
  });
  const lastReady = new Map<string, string>();
  const wakePodsOn = (name: string) => {
    for (const pod of pods.list()) {
      if (pod.spec?.nodeName === name && pod.metadata?.labels?.[Labels.petSet] !== undefined) wake(pod);
    }
  };
  nodes.onChange((node, kind) => {
    const name = node.metadata?.name ?? "";
    const ready = nodeView(node).ready ?? "";
    if (kind === "delete") {
      lastReady.delete(name);
      wakePodsOn(name);
      return;
    }
    const before = lastReady.get(name);
    lastReady.set(name, ready);
    if (before !== undefined && before !== ready) wakePodsOn(name);
  });
  return { views: () => (synced ? nodes.list().map(nodeView) : undefined) };
}
