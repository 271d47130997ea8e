/**
 * What the embedded job controller does with one Job, as a pure function of the Job, its
 * pods and the time (kube 1.33 pkg/controller/job semantics for NonIndexed Jobs): the new
 * status, how many pods to create, which to delete, and when to look again (deadline,
 * TTL). Not supported: Indexed completion, podFailurePolicy, successPolicy,
 * backoffLimitPerIndex, managedBy, the pod-creation backoff after failures, the
 * job-tracking finalizer (a terminal pod deleted before the controller counted it is
 * missed; the counters never go down).
 */
import { isPlainObject, type KubeObject } from "../types.js";

type Obj = Record<string, unknown>;

/** A pod of the Job as the planner needs it. */
export interface JobPod {
  name: string;
  phase: string;
  deleting: boolean;
  ready: boolean;
  /** Sum of the containers' restartCount (OnFailure jobs count restarts against backoffLimit). */
  restarts: number;
}

export interface JobCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastProbeTime: string;
  lastTransitionTime: string;
}

export interface JobPlan {
  status: Obj;
  /** Pods to create from the template. */
  create: number;
  /** Names of active pods to delete. */
  delete: string[];
  /** Delete the Job itself (ttlSecondsAfterFinished passed). */
  deleteJob: boolean;
  /** Look again after this long (deadline or TTL pending), if set. */
  requeueAfterMs?: number;
}

const num = (v: unknown, fallback = 0): number => (typeof v === "number" ? v : fallback);
const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

export function jobConditions(job: KubeObject): JobCondition[] {
  const status = isPlainObject(job.status) ? job.status : {};
  return (Array.isArray(status.conditions) ? status.conditions : []).filter(
    isPlainObject,
  ) as unknown as JobCondition[];
}

function trueCondition(conds: JobCondition[], type: string): JobCondition | undefined {
  return conds.find((c) => c.type === type && c.status === "True");
}

/** The finished condition (Complete or Failed, True), if the Job is finished. */
export function finishedCondition(job: KubeObject): JobCondition | undefined {
  const conds = jobConditions(job);
  return trueCondition(conds, "Complete") ?? trueCondition(conds, "Failed");
}

function withCondition(conds: JobCondition[], type: string, reason: string, message: string, now: string) {
  if (trueCondition(conds, type)) return conds;
  return [
    ...conds.filter((c) => c.type !== type),
    { type, status: "True", reason, message, lastProbeTime: now, lastTransitionTime: now },
  ];
}

const SUCCESS = { reason: "CompletionsReached", message: "Reached expected number of succeeded pods" };
const BACKOFF = { reason: "BackoffLimitExceeded", message: "Job has reached the specified backoff limit" };
const DEADLINE = { reason: "DeadlineExceeded", message: "Job was active longer than specified deadline" };

/** TTL handling of a finished Job: delete now, or look again later. */
function planFinished(job: KubeObject, done: JobCondition, nowMs: number): JobPlan {
  const spec = (isPlainObject(job.spec) ? job.spec : {}) as Obj;
  const plan: JobPlan = { status: (job.status ?? {}) as Obj, create: 0, delete: [], deleteJob: false };
  const ttl = spec.ttlSecondsAfterFinished;
  if (typeof ttl !== "number" || job.metadata.deletionTimestamp) return plan;
  const status = plan.status;
  const finishedAt = Date.parse(
    String(
      done.type === "Complete" ? (status.completionTime ?? done.lastTransitionTime) : done.lastTransitionTime,
    ),
  );
  const left = (Number.isNaN(finishedAt) ? nowMs : finishedAt) + ttl * 1000 - nowMs;
  if (left <= 0) plan.deleteJob = true;
  else plan.requeueAfterMs = left;
  return plan;
}

export function planJob(job: KubeObject, pods: readonly JobPod[], nowMs: number): JobPlan {
  const done = finishedCondition(job);
  if (done) return planFinished(job, done, nowMs);
  const now = iso(nowMs);
  const spec = (isPlainObject(job.spec) ? job.spec : {}) as Obj;
  const prev = (isPlainObject(job.status) ? job.status : {}) as Obj;
  const template = isPlainObject(spec.template) ? spec.template : {};
  const restartPolicy = isPlainObject(template.spec) ? template.spec.restartPolicy : undefined;
  const backoffLimit = num(spec.backoffLimit, 6);
  const parallelism = num(spec.parallelism, 1);
  const completions = typeof spec.completions === "number" ? spec.completions : undefined;
  const suspended = spec.suspend === true;

  const active = pods.filter((p) => !p.deleting && p.phase !== "Succeeded" && p.phase !== "Failed");
  const terminating = pods.filter((p) => p.deleting && p.phase !== "Succeeded" && p.phase !== "Failed");
  const succeeded = Math.max(num(prev.succeeded), pods.filter((p) => p.phase === "Succeeded").length);
  const failed = Math.max(num(prev.failed), pods.filter((p) => p.phase === "Failed").length);
  const startTime = typeof prev.startTime === "string" ? prev.startTime : suspended ? undefined : now;

  let conds = jobConditions(job);
  let target: "success" | "failure" | undefined = trueCondition(conds, "SuccessCriteriaMet")
    ? "success"
    : trueCondition(conds, "FailureTarget")
      ? "failure"
      : undefined;
  let requeueAfterMs: number | undefined;
  if (!target) {
    const restarts = active.reduce((n, p) => n + p.restarts, 0);
    const pastOnFailure =
      restartPolicy === "OnFailure" && (backoffLimit === 0 ? restarts > 0 : restarts >= backoffLimit);
    const deadline = typeof spec.activeDeadlineSeconds === "number" ? spec.activeDeadlineSeconds : undefined;
    const leftMs =
      deadline !== undefined && startTime && !suspended
        ? Date.parse(startTime) + deadline * 1000 - nowMs
        : undefined;
    if (failed > backoffLimit || pastOnFailure) {
      conds = withCondition(conds, "FailureTarget", BACKOFF.reason, BACKOFF.message, now);
      target = "failure";
    } else if (leftMs !== undefined && leftMs <= 0) {
      conds = withCondition(conds, "FailureTarget", DEADLINE.reason, DEADLINE.message, now);
      target = "failure";
    } else if (leftMs !== undefined) requeueAfterMs = leftMs;
  }

  let create = 0;
  let toDelete: JobPod[] = [];
  if (!target) {
    const reached =
      completions !== undefined ? succeeded >= completions : succeeded > 0 && active.length === 0;
    if (reached) {
      conds = withCondition(conds, "SuccessCriteriaMet", SUCCESS.reason, SUCCESS.message, now);
      target = "success";
    } else if (suspended || job.metadata.deletionTimestamp) {
      toDelete = suspended ? active : [];
    } else {
      // NonIndexed: never more than parallelism, never more than the completions left.
      let want = completions !== undefined ? Math.min(parallelism, completions - succeeded) : parallelism;
      if (completions === undefined && succeeded > 0) want = active.length;
      // podReplacementPolicy Failed waits for terminating pods to be gone before replacing them.
      const busy = active.length + (spec.podReplacementPolicy === "Failed" ? terminating.length : 0);
      if (busy < want) create = want - busy;
      else if (active.length > want) toDelete = active.slice(want);
    }
  }
  if (target) toDelete = active;
  const stillTerminating = terminating.length + toDelete.length;
  if (target && stillTerminating === 0) {
    const interim = trueCondition(conds, target === "success" ? "SuccessCriteriaMet" : "FailureTarget")!;
    const type = target === "success" ? "Complete" : "Failed";
    conds = withCondition(conds, type, interim.reason ?? "", interim.message ?? "", now);
  }
  const status: Obj = {
    ...prev,
    ...(conds.length ? { conditions: conds } : {}),
    ...(startTime ? { startTime } : {}),
    active: active.length - toDelete.length + create,
    succeeded,
    failed,
    terminating: stillTerminating,
    ready: active.filter((p) => p.ready && !toDelete.includes(p)).length,
    uncountedTerminatedPods: {},
  };
  if (trueCondition(conds, "Complete") && !status.completionTime) status.completionTime = now;
  for (const key of ["active", "succeeded", "failed"]) if (status[key] === 0) delete status[key];
  const plan: JobPlan = { status, create, delete: toDelete.map((p) => p.name), deleteJob: false };
  if (requeueAfterMs !== undefined) plan.requeueAfterMs = requeueAfterMs;
  return plan;
}
