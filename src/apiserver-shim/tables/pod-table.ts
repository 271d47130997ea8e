/**
 * The pod printer: READY, STATUS (the aggregate reason kubectl shows: Init:N/M,
 * CrashLoopBackOff, Completed, Terminating, ...), RESTARTS with "(Xm ago)", AGE, and the
 * wide columns. Follows kube's printPod rules.
 */
import { isPlainObject, type KubeObject } from "../types.js";
import { AGE_COLUMN, age, column, NAME_COLUMN, objectAge, type TableConvertor } from "./table.js";

type Obj = Record<string, unknown>;

const arr = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);
const obj = (v: unknown): Obj | undefined => (isPlainObject(v) ? v : undefined);

function isRestartableInit(c: Obj | undefined): boolean {
  return c?.restartPolicy === "Always";
}

function later(a: string | undefined, b: unknown): string | undefined {
  if (typeof b !== "string") return a;
  return !a || Date.parse(b) > Date.parse(a) ? b : a;
}

export function podStatusCells(pod: KubeObject, now: Date): [string, string, string] {
  const spec = obj(pod.spec) ?? {};
  const status = obj(pod.status) ?? {};
  const containers = arr(spec.containers);
  const initSpecs = new Map(arr(spec.initContainers).map((c) => [String(c.name), c]));
  let total = containers.length + [...initSpecs.values()].filter(isRestartableInit).length;
  let ready = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart: string | undefined;
  let lastSidecarRestart: string | undefined;
  const phase = String(status.phase ?? "");
  let reason = typeof status.reason === "string" && status.reason ? status.reason : phase;
  for (const c of arr(status.conditions))
    if (c.type === "PodScheduled" && c.reason === "SchedulingGated") reason = "SchedulingGated";

  let initializing = false;
  const initStatuses = arr(status.initContainerStatuses);
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i]!;
    const state = obj(cs.state) ?? {};
    const term = obj(state.terminated);
    const waiting = obj(state.waiting);
    const lastTerm = obj(obj(cs.lastState)?.terminated);
    restarts += Number(cs.restartCount ?? 0);
    lastRestart = later(lastRestart, lastTerm?.finishedAt);
    const sidecar = isRestartableInit(initSpecs.get(String(cs.name)));
    if (sidecar) {
      sidecarRestarts += Number(cs.restartCount ?? 0);
      lastSidecarRestart = later(lastSidecarRestart, lastTerm?.finishedAt);
    }
    if (term && Number(term.exitCode ?? 0) === 0) continue;
    if (sidecar && cs.started === true) {
      if (cs.ready) ready++;
      continue;
    }
    if (term) {
      reason = term.reason
        ? `Init:${term.reason}`
        : term.signal
          ? `Init:Signal:${term.signal}`
          : `Init:ExitCode:${term.exitCode ?? 0}`;
    } else if (waiting?.reason && waiting.reason !== "PodInitializing") reason = `Init:${waiting.reason}`;
    else reason = `Init:${i}/${initSpecs.size}`;
    initializing = true;
    break;
  }
  const initializedTrue = arr(status.conditions).some((c) => c.type === "Initialized" && c.status === "True");
  if (!initializing || initializedTrue) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = arr(status.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i]!;
      const state = obj(cs.state) ?? {};
      const term = obj(state.terminated);
      const waiting = obj(state.waiting);
      restarts += Number(cs.restartCount ?? 0);
      lastRestart = later(lastRestart, obj(obj(cs.lastState)?.terminated)?.finishedAt);
      if (waiting?.reason) reason = String(waiting.reason);
      else if (term?.reason) reason = String(term.reason);
      else if (term) reason = term.signal ? `Signal:${term.signal}` : `ExitCode:${term.exitCode ?? 0}`;
      else if (cs.ready && state.running) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === "Completed" && hasRunning) {
      const readyCond = arr(status.conditions).some((c) => c.type === "Ready" && c.status === "True");
      reason = readyCond ? "Running" : "NotReady";
    }
  }
  if (pod.metadata.deletionTimestamp && status.reason === "NodeLost") reason = "Unknown";
  else if (pod.metadata.deletionTimestamp && phase !== "Succeeded" && phase !== "Failed")
    reason = "Terminating";
  total = Math.max(total, 0);
  const restartsStr =
    restarts !== 0 && lastRestart ? `${restarts} (${age(lastRestart, now)} ago)` : String(restarts);
  return [`${ready}/${total}`, reason, restartsStr];
}

export const podTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    column("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
    column("Status", "string", "The aggregate status of the containers in this pod."),
    column(
      "Restarts",
      "string",
      "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
    ),
    AGE_COLUMN,
    // kube's descriptions are the field docs (PodStatus.podIP, PodSpec.nodeName, ...), in full.
    column(
      "IP",
      "string",
      "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.",
      1,
    ),
    column(
      "Node",
      "string",
      "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename",
      1,
    ),
    column(
      "Nominated Node",
      "string",
      "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.",
      1,
    ),
    column(
      "Readiness Gates",
      "string",
      'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to "True" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates',
      1,
    ),
  ],
  cells: (pod, now) => {
    const [readyStr, reason, restarts] = podStatusCells(pod, now);
    const spec = obj(pod.spec) ?? {};
    const status = obj(pod.status) ?? {};
    const ips = arr(status.podIPs);
    const ip = (ips[0]?.ip as string | undefined) || "<none>";
    const gates = arr(spec.readinessGates);
    let gatesStr = "<none>";
    if (gates.length) {
      const conds = arr(status.conditions);
      const ok = gates.filter((g) => conds.find((c) => c.type === g.conditionType)?.status === "True").length;
      gatesStr = `${ok}/${gates.length}`;
    }
    return [
      pod.metadata.name,
      readyStr,
      reason,
      restarts,
      objectAge(pod, now),
      ip,
      (spec.nodeName as string | undefined) || "<none>",
      (status.nominatedNodeName as string | undefined) || "<none>",
      gatesStr,
    ];
  },
};
