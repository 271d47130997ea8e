/**
 * The embedded job controller: for every batch/v1 Job, asks the pure planner
 * (job-status.ts) what to do from the Job and the pods it controls, then creates pods
 * from the template (controller ownerReference with blockOwnerDeletion), deletes the
 * pods the planner names, writes status through the status subresource and deletes
 * finished Jobs whose ttlSecondsAfterFinished passed. Level-triggered like the other
 * shim controllers; `pass` returns when it wants to run again for time-based work.
 */
import { ApiError } from "../errors.js";
import { deleteObject } from "../registry/deletion.js";
import type { GenericStore } from "../registry/generic-store.js";
import { grKey, type ResourceDefinition } from "../registry/resource.js";
import type { ResourceRegistry } from "../registry/resource-registry.js";
import { deepClone, deepEqual, isPlainObject, type KubeObject } from "../types.js";
import { type JobPod, planJob } from "./job-status.js";
import { systemContext } from "./system-context.js";

const MANAGER = "kube-controller-manager";
export const JOBS_GR = "batch/jobs";

type Obj = Record<string, unknown>;

function toJobPod(pod: KubeObject): JobPod {
  const status = (isPlainObject(pod.status) ? pod.status : {}) as Obj;
  const statuses = [
    ...(Array.isArray(status.containerStatuses) ? status.containerStatuses : []),
    ...(Array.isArray(status.initContainerStatuses) ? status.initContainerStatuses : []),
  ].filter(isPlainObject);
  const conds = Array.isArray(status.conditions) ? status.conditions.filter(isPlainObject) : [];
  return {
    name: pod.metadata.name!,
    phase: typeof status.phase === "string" ? status.phase : "Pending",
    deleting: Boolean(pod.metadata.deletionTimestamp),
    ready: conds.some((c) => c.type === "Ready" && c.status === "True"),
    restarts: statuses.reduce((n, s) => n + (typeof s.restartCount === "number" ? s.restartCount : 0), 0),
  };
}

/** The pod a Job creates: its template, a generated name, the controller ownerReference. */
export function podForJob(job: KubeObject): KubeObject {
  const template = deepClone(((job.spec ?? {}) as Obj).template ?? {}) as Obj;
  const meta = (isPlainObject(template.metadata) ? template.metadata : {}) as Obj;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      ...meta,
      name: undefined,
      generateName: `${job.metadata.name}-`,
      namespace: job.metadata.namespace,
      ownerReferences: [
        {
          apiVersion: "batch/v1",
          kind: "Job",
          name: job.metadata.name!,
          uid: job.metadata.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: template.spec ?? {},
  } as KubeObject;
}

export class JobController {
  constructor(
    private readonly store: GenericStore,
    private readonly registry: ResourceRegistry,
  ) {}

  /** One pass over every Job; returns the delay until time-based work is due, if any. */
  pass(): number | undefined {
    const jobsDef = this.registry.get("batch", "v1", "jobs");
    const podsDef = this.registry.get("", "v1", "pods");
    if (!jobsDef || !podsDef) return undefined;
    let next: number | undefined;
    for (const job of this.store.objects.list(JOBS_GR)) {
      const after = this.syncJob(jobsDef, podsDef, job);
      if (after !== undefined) next = next === undefined ? after : Math.min(next, after);
    }
    return next;
  }

  private syncJob(
    jobsDef: ResourceDefinition,
    podsDef: ResourceDefinition,
    job: KubeObject,
  ): number | undefined {
    const ns = job.metadata.namespace!;
    const uid = job.metadata.uid;
    const pods = this.store.objects
      .list(grKey(podsDef), ns)
      .filter((p) => p.metadata.ownerReferences?.some((r) => r.controller && r.uid === uid));
    const plan = planJob(job, pods.map(toJobPod), this.store.clock.now().getTime());
    const ctx = systemContext(this.store.clock, MANAGER);
    if (plan.deleteJob) {
      this.tryDelete(jobsDef, job, "Foreground");
      return undefined;
    }
    for (const name of plan.delete) {
      const pod = pods.find((p) => p.metadata.name === name);
      if (pod) this.tryDelete(podsDef, pod, "Background");
    }
    for (let i = 0; i < plan.create; i++) {
      try {
        this.store.create(podsDef, ns, podForJob(job), ctx);
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
      }
    }
    if (!deepEqual(plan.status, job.status ?? {})) {
      const next = deepClone(job);
      next.status = plan.status;
      try {
        this.store.commitUpdate(jobsDef, job, next, { ...ctx, subresource: "status" });
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
      }
    }
    return plan.requeueAfterMs;
  }

  private tryDelete(def: ResourceDefinition, obj: KubeObject, policy: "Background" | "Foreground"): void {
    try {
      deleteObject(
        this.store,
        def,
        obj.metadata.namespace,
        obj.metadata.name!,
        { propagationPolicy: policy, preconditions: { uid: obj.metadata.uid! } },
        systemContext(this.store.clock, MANAGER),
      );
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
    }
  }
}
