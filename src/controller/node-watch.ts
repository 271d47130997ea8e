/**
 * The nodes as the planner sees them (planner/node-failure.ts), from the trimmed node cache:
 * undefined until the cache has synced (an empty cache must never read as "every node gone").
 * A node whose Ready status changes, or that is deleted, wakes the PetSets with pods on it.
 * The last Ready status per node is kept here only to filter heartbeats out of the wake-ups;
 * no decision reads it.
 * The node cache is not awaited before the workers start (controller.ts), so a set's first syncs
 * after a start or a leader change may run without nodes and judge nothing: when the cache
 * syncs, the sets with pods on a node that is not Ready (or gone) are woken, else a pet lost
 * before this replica led would wait for an unrelated event (chaos seed 27001).
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
  const lastReady = new Map<string, string>();
  const wakePodsOn = (on: (node: string) => boolean) => {
    for (const pod of pods.list()) {
      const node = pod.spec?.nodeName;
      if (node && on(node) && pod.metadata?.labels?.[Labels.petSet] !== undefined) wake(pod);
    }
  };
  void nodes.synced.then(() => {
    synced = true;
    const ready = new Set(
      nodes.list().flatMap((n) => (nodeView(n).ready === "True" ? [n.metadata?.name] : [])),
    );
    wakePodsOn((node) => !ready.has(node));
  });
  nodes.onChange((node, kind) => {
    const name = node.metadata?.name ?? "";
    const ready = nodeView(node).ready ?? "";
    if (kind === "delete") {
      lastReady.delete(name);
      wakePodsOn((on) => on === name);
      return;
    }
    const before = lastReady.get(name);
    lastReady.set(name, ready);
    if (before !== undefined && before !== ready) wakePodsOn((on) => on === name);
  });
  return { views: () => (synced ? nodes.list().map(nodeView) : undefined) };
}
