/**
 * Never two executions of one hook id at once, for Job hooks (SPEC rule 10): before an
 * attempt's Job is created, every other Job of the same hook id (an earlier attempt, or one
 * left by another controller) is finished or gone, and none of their pods still runs.
 *
 * Rules:
 *  - The Jobs of a hook id: its hook's Jobs (labels hooks.petset.dev/petset and /hook) whose
 *    annotation hooks.petset.dev/id is the id, and the deterministic names of its attempts.
 *    Their pods: the hook's pods owned by one of those Jobs (pods keep the ownerReference
 *    while the garbage collector deletes them), or annotated with the id and another attempt.
 *  - A Job without a Complete or Failed condition is deleted (Foreground: the Job object
 *    stays until its pods are gone) and waited for; a pod is waited for until it is gone or
 *    has a terminal phase (Succeeded, Failed). A finished Job whose pods are done is left for
 *    its TTL (its logs stay readable).
 *  - Every read is uncached (the caches do not hold Jobs; a Job whose create answer was lost
 *    is seen here all the same) and transient errors are retried (transient.ts).
 *  - A pod that never ends (its node is lost and nothing deletes the pod) keeps the next
 *    attempt waiting until the hook's timeout: the attempt fails as timed out and the
 *    failure policy applies. Never a second execution beside one that may still run.
 */
import type { BatchV1Api, CoreV1Api, V1Job, V1Pod } from "@kubernetes/client-node";
import { sleep } from "../../util/sleep.js";
import { isNotFound } from "../api-errors.js";
import type { HookRun } from "./hook-run.js";

const POLL_MS = 1000;

export const HookLabels = {
  petSet: "hooks.petset.dev/petset",
  hook: "hooks.petset.dev/hook",
} as const;

export const HookJobAnnotations = {
  id: "hooks.petset.dev/id",
  attempt: "hooks.petset.dev/attempt",
} as const;

export interface JobApis {
  batch: BatchV1Api;
  core: CoreV1Api;
}

/** A call with transient errors retried (transient.ts retryTransient, bound to the run). */
export type Retry = <T>(what: string, fn: () => Promise<T>) => Promise<T>;

export function isFinished(job: V1Job): boolean {
  return (job.status?.conditions ?? []).some(
    (c) => c.status === "True" && (c.type === "Complete" || c.type === "Failed"),
  );
}

const terminal = (pod: V1Pod) => pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed";

/**
 * What still runs of the hook id's other Jobs: pure, over the hook's Jobs and pods as listed.
 * `names` are the deterministic names of the id's other attempts.
 */
export function otherAttempts(
  id: string,
  ownName: string,
  attempt: number,
  names: ReadonlySet<string>,
  jobs: readonly V1Job[],
  pods: readonly V1Pod[],
): { unfinished: V1Job[]; running: V1Pod[] } {
  const mine = jobs.filter((j) => {
    const name = j.metadata?.name ?? "";
    return name !== ownName && (names.has(name) || j.metadata?.annotations?.[HookJobAnnotations.id] === id);
  });
  const jobNames = new Set([...names, ...mine.map((j) => j.metadata?.name ?? "")]);
  jobNames.delete(ownName);
  const running = pods.filter((p) => {
    if (terminal(p)) return false;
    const owned = (p.metadata?.ownerReferences ?? []).some((r) => r.kind === "Job" && jobNames.has(r.name));
    const a = p.metadata?.annotations;
    const tagged = a?.[HookJobAnnotations.id] === id && a[HookJobAnnotations.attempt] !== String(attempt);
    return owned || tagged;
  });
  return { unfinished: mine.filter((j) => !isFinished(j)), running };
}

/**
 * Resolves once no other Job of the run's hook id runs (see the header), deleting the
 * unfinished ones; rejects when `signal` aborts.
 */
export async function awaitOtherAttemptsGone(
  run: HookRun,
  apis: JobApis,
  names: { own: string; others: ReadonlySet<string> },
  signal: AbortSignal,
  retry: Retry,
  onWait: (what: string) => void,
): Promise<void> {
  const namespace = run.context.namespace;
  const labelSelector = `${HookLabels.petSet}=${run.context.petSet},${HookLabels.hook}=${run.record.hook}`;
  let told = "";
  for (;;) {
    const jobs = await retry("list hook Jobs", () =>
      apis.batch.listNamespacedJob({ namespace, labelSelector }),
    );
    const pods = await retry("list hook pods", () =>
      apis.core.listNamespacedPod({ namespace, labelSelector }),
    );
    const { unfinished, running } = otherAttempts(
      run.record.id,
      names.own,
      run.record.attempts,
      names.others,
      jobs.items,
      pods.items,
    );
    if (unfinished.length === 0 && running.length === 0) return;
    for (const job of unfinished) {
      if (job.metadata?.deletionTimestamp) continue;
      const name = job.metadata?.name ?? "";
      await retry(`delete Job ${name}`, async () => {
        try {
          await apis.batch.deleteNamespacedJob({ name, namespace, propagationPolicy: "Foreground" });
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      });
    }
    const what = [
      ...unfinished.map((j) => `Job ${j.metadata?.name}`),
      ...running.map((p) => `pod ${p.metadata?.name}`),
    ].join(", ");
    if (what !== told) onWait(what);
    told = what;
    await sleep(POLL_MS, signal);
  }
}
