/**
 * Pods: kube's defaults on create, spec immutability, graceful deletion (a scheduled pod
 * stays Terminating until its kubelet deletes it with grace 0; an unscheduled or finished
 * pod goes at once), the status subresource, the binding subresource and the resize
 * subresource (pod-resize.ts).
 */
import { podTable } from "../tables/pod-table.js";
import { isPlainObject, type KubeObject } from "../types.js";
import { defineBuiltin } from "./define.js";
import { prepareResize, validateResize } from "./pod-resize.js";
import { validatePodSpec, validatePodUpdate } from "./pod-validation.js";

type Obj = Record<string, unknown>;

function defaultContainer(c: Obj): void {
  const image = typeof c.image === "string" ? c.image : "";
  const lastSegment = image.split("/").pop() ?? "";
  const tagged = lastSegment.includes(":") || image.includes("@");
  c.imagePullPolicy ??= !tagged || image.endsWith(":latest") ? "Always" : "IfNotPresent";
  c.terminationMessagePath ??= "/dev/termination-log";
  c.terminationMessagePolicy ??= "File";
  c.resources ??= {};
  if (Array.isArray(c.ports)) for (const p of c.ports) if (isPlainObject(p)) p.protocol ??= "TCP";
}

/**
 * kube's scheme defaults of a pod spec (SetDefaults_PodSpec and friends), also those of pod
 * templates: the writer owns them.
 */
export function defaultPodSpec(spec: Obj): void {
  spec.restartPolicy ??= "Always";
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= "ClusterFirst";
  spec.securityContext ??= {};
  spec.schedulerName ??= "default-scheduler";
  if (typeof spec.serviceAccount === "string" && spec.serviceAccount)
    spec.serviceAccountName ??= spec.serviceAccount;
  for (const key of ["containers", "initContainers"])
    if (Array.isArray(spec[key])) for (const c of spec[key]) if (isPlainObject(c)) defaultContainer(c);
}

/** SetDefaults_Pod adds enableServiceLinks to pods, not to pod templates. */
function defaultPodOnlySpec(spec: Obj): void {
  defaultPodSpec(spec);
  spec.enableServiceLinks ??= true;
}

/**
 * What kube's admission plugins add to a new pod (Priority, ServiceAccount,
 * DefaultTolerationSeconds): set after managedFields are computed, so no one owns them.
 */
function admitPodSpec(spec: Obj): void {
  spec.priority ??= 0;
  spec.preemptionPolicy ??= "PreemptLowerPriority";
  spec.serviceAccountName ??= spec.serviceAccount ?? "default";
  spec.serviceAccount ??= spec.serviceAccountName;
  if (!Array.isArray(spec.tolerations)) spec.tolerations = [];
  const tol = spec.tolerations as Obj[];
  for (const key of ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"])
    if (!tol.some((t) => t.key === key))
      tol.push({ key, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 });
}

function gracePeriod(pod: KubeObject, requested: number | undefined): number {
  const spec = (pod.spec ?? {}) as Obj;
  const phase = ((pod.status ?? {}) as Obj).phase;
  if (!spec.nodeName) return 0;
  if (phase === "Succeeded" || phase === "Failed") return 0;
  if (requested !== undefined && requested >= 0) return requested;
  const g = spec.terminationGracePeriodSeconds;
  return typeof g === "number" && g >= 0 ? g : 30;
}

export const podsDefinition = defineBuiltin({
  group: "",
  version: "v1",
  resource: "pods",
  kind: "Pod",
  namespaced: true,
  schema: "io.k8s.api.core.v1.Pod",
  shortNames: ["po"],
  categories: ["all"],
  status: true,
  extraSubresources: ["binding", "resize"],
  table: podTable,
  fieldLabels: (o) => {
    const spec = (o.spec ?? {}) as Obj;
    const status = (o.status ?? {}) as Obj;
    return {
      "spec.nodeName": String(spec.nodeName ?? ""),
      "spec.restartPolicy": String(spec.restartPolicy ?? ""),
      "spec.schedulerName": String(spec.schedulerName ?? ""),
      "spec.serviceAccountName": String(spec.serviceAccountName ?? ""),
      "spec.hostNetwork": String(spec.hostNetwork ?? false),
      "status.phase": String(status.phase ?? ""),
      "status.podIP": String(status.podIP ?? ""),
      "status.nominatedNodeName": String(status.nominatedNodeName ?? ""),
    };
  },
  strategy: {
    tracksGeneration: true,
    applyDefaults(pod) {
      if (isPlainObject(pod.spec)) defaultPodOnlySpec(pod.spec);
    },
    prepareForCreate(pod) {
      if (!isPlainObject(pod.spec)) pod.spec = {};
      defaultPodOnlySpec(pod.spec as Obj);
      admitPodSpec(pod.spec as Obj);
      const gated =
        Array.isArray((pod.spec as Obj).schedulingGates) &&
        ((pod.spec as Obj).schedulingGates as unknown[]).length > 0;
      pod.status = { phase: "Pending", qosClass: "BestEffort" };
      if (gated)
        (pod.status as Obj).conditions = [
          {
            type: "PodScheduled",
            status: "False",
            reason: "SchedulingGated",
            message: "Scheduling is blocked due to non-empty scheduling gates",
            lastProbeTime: null,
            lastTransitionTime: pod.metadata.creationTimestamp,
          },
        ];
    },
    validate: (pod) => validatePodSpec(pod.spec),
    prepareForUpdate(pod, old, ctx) {
      if (ctx.subresource === "resize") prepareResize(pod, old);
      if (isPlainObject(pod.spec)) admitPodSpec(pod.spec);
    },
    validateUpdate: (pod, old, ctx) =>
      ctx.subresource === "resize"
        ? [...validatePodSpec(pod.spec), ...validateResize(pod, old)]
        : [...validatePodSpec(pod.spec), ...validatePodUpdate(pod, old)],
    gracePeriod,
  },
});
