/**
 * The embedded node lifecycle controller (kube-controller-manager's nodelifecycle, the part
 * a lost node needs): watches each Node's Ready heartbeat and its `kube-node-lease` Lease,
 * and asks the pure planner (node-lifecycle-plan.ts) what to write once the kubelet has been
 * silent for the grace period (`petset dev --node-monitor-grace-period`). Like kube it keeps,
 * in memory, when it last SAW the heartbeat or the Lease move, so a restarted server gives
 * every node a full grace period before judging it. Writes: node status, node taints, the
 * Ready condition of the pods on a node that is not Ready, and a `NodeNotReady` Event per pod.
 *
 * Pods are looked at as kube's controller does: all pods of a node once, when the node is first
 * seen not Ready, and after that only the pods that changed on it (`notePodChange` notes them). A
 * pass that listed every pod whenever one of them changed made populating 30,000 pods
 * quadratic once a node was not Ready (half of the server's CPU at 10,000 x 3, issue 29).
 */
import { ApiError } from "../errors.js";
import type { GenericStore } from "../registry/generic-store.js";
import type { ResourceDefinition } from "../registry/resource.js";
import type { ResourceRegistry } from "../registry/resource-registry.js";
import { deepClone, isPlainObject, type KubeObject } from "../types.js";
import { nodeConditions, planNodeHealth, podNotReady } from "./node-lifecycle-plan.js";
import { recordPodWarning } from "./pod-event.js";
import { systemContext } from "./system-context.js";

const MANAGER = "kube-controller-manager";
export const NODES_GR = "/nodes";
export const LEASES_GR = "coordination.k8s.io/leases";
export const NODE_LEASE_NAMESPACE = "kube-node-lease";

interface Probe {
  /** The heartbeat and renew times last seen. */
  seen: string;
  /** When they were seen to change (epoch ms). */
  at: number;
}

export class NodeLifecycleController {
  private readonly probes = new Map<string, Probe>();
  /** Nodes whose Ready was not True at the last pass: their pods' changes need a pass. */
  private notReady = new Set<string>();
  /** Pods (namespace/name) that changed on a node that was not Ready, since the last pass. */
  private changedPods = new Set<string>();

  constructor(
    private readonly store: GenericStore,
    private readonly registry: ResourceRegistry,
    private readonly graceMs: number,
  ) {}

  /**
   * Called for every pod change: one on a node that is not Ready is noted for the next pass
   * (which reads only the noted pods) and the answer is whether a pass is needed.
   */
  notePodChange(pod: KubeObject): boolean {
    const spec = isPlainObject(pod.spec) ? pod.spec : {};
    if (typeof spec.nodeName !== "string" || !this.notReady.has(spec.nodeName)) return false;
    this.changedPods.add(`${pod.metadata.namespace ?? ""}/${pod.metadata.name ?? ""}`);
    return true;
  }

  /** One pass over every Node; returns the delay until a grace period runs out, if any. */
  pass(): number | undefined {
    const nodesDef = this.registry.get("", "v1", "nodes");
    const podsDef = this.registry.get("", "v1", "pods");
    if (!nodesDef || !podsDef) return undefined;
    const now = this.store.clock.now().getTime();
    const leases = new Map(
      this.store.objects.list(LEASES_GR, NODE_LEASE_NAMESPACE).map((l) => [l.metadata.name!, l]),
    );
    const notReady = new Set<string>();
    const names = new Set<string>();
    let next: number | undefined;
    for (const node of this.store.objects.list(NODES_GR)) {
      const name = node.metadata.name!;
      names.add(name);
      const probeAt = this.observe(name, node, leases.get(name), now);
      const plan = planNodeHealth(node, probeAt, now, this.graceMs);
      if (plan.ready !== undefined && plan.ready !== "True") notReady.add(name);
      if (plan.checkAt !== undefined) next = Math.min(next ?? Infinity, plan.checkAt - now);
      let current: KubeObject | undefined = node;
      if (plan.conditions) {
        const updated = deepClone(node);
        updated.status = { ...(isPlainObject(node.status) ? node.status : {}), conditions: plan.conditions };
        current = this.write(nodesDef, node, updated, "status");
      }
      if (plan.taints && current) {
        const updated = deepClone(current);
        updated.spec = { ...(isPlainObject(current.spec) ? current.spec : {}), taints: plan.taints };
        this.write(nodesDef, current, updated, undefined);
      }
    }
    for (const name of this.probes.keys()) if (!names.has(name)) this.probes.delete(name);
    const newlyNotReady = new Set([...notReady].filter((n) => !this.notReady.has(n)));
    const changed = this.changedPods;
    this.notReady = notReady;
    this.changedPods = new Set();
    if (newlyNotReady.size > 0)
      this.markPodsNotReady(podsDef, newlyNotReady, this.store.objects.list("/pods"), now);
    if (changed.size > 0 && notReady.size > 0) {
      const pods: KubeObject[] = [];
      for (const key of changed) {
        const slash = key.indexOf("/");
        const pod = this.store.objects.get("/pods", key.slice(0, slash), key.slice(slash + 1));
        if (pod) pods.push(pod);
      }
      this.markPodsNotReady(podsDef, notReady, pods, now);
    }
    return next;
  }

  /** When the node's kubelet was last seen alive (first sight counts as alive). */
  private observe(name: string, node: KubeObject, lease: KubeObject | undefined, now: number): number {
    const ready = nodeConditions(node).find((c) => c.type === "Ready");
    const leaseSpec = lease && isPlainObject(lease.spec) ? lease.spec : {};
    const seen = `${String(ready?.lastHeartbeatTime ?? "")}|${String(leaseSpec.renewTime ?? "")}`;
    const probe = this.probes.get(name);
    if (probe?.seen === seen) return probe.at;
    this.probes.set(name, { seen, at: now });
    return now;
  }

  private markPodsNotReady(
    podsDef: ResourceDefinition,
    nodes: ReadonlySet<string>,
    pods: Iterable<KubeObject>,
    now: number,
  ): void {
    for (const pod of pods) {
      const spec = isPlainObject(pod.spec) ? pod.spec : {};
      if (typeof spec.nodeName !== "string" || !nodes.has(spec.nodeName)) continue;
      const conditions = podNotReady(pod, now);
      if (!conditions) continue;
      const updated = deepClone(pod);
      updated.status = { ...(isPlainObject(pod.status) ? pod.status : {}), conditions };
      if (this.write(podsDef, pod, updated, "status")) this.event(pod, now);
    }
  }

  private write(
    def: ResourceDefinition,
    stored: KubeObject,
    updated: KubeObject,
    subresource: "status" | undefined,
  ): KubeObject | undefined {
    const ctx = { ...systemContext(this.store.clock, MANAGER), ...(subresource ? { subresource } : {}) };
    try {
      return this.store.commitUpdate(def, stored, updated, ctx);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      return undefined;
    }
  }

  /** kube's recorder.Event(pod, Warning, "NodeNotReady", "Node is not ready"); best effort. */
  private event(pod: KubeObject, now: number): void {
    recordPodWarning(
      this.registry,
      this.store,
      pod,
      { reason: "NodeNotReady", message: "Node is not ready", component: "node-controller" },
      now,
    );
  }
}
