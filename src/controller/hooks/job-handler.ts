/**
 * The `job` handler: a batch/v1 Job built from a version's pod template (preRollout: the new
 * version's, so a schema migration runs with the new image before any pet moves; per-pet
 * hooks: the version the pod runs or moves to). One container (job.container, default the
 * first) with the optional image/command/args override and the hook's context as env vars;
 * restartPolicy Never, backoffLimit 0 (retries are the hook's), activeDeadlineSeconds = the
 * hook's timeout, ttlSecondsAfterFinished so finished Jobs are cleaned up. Its pod template
 * carries only hook labels, never the PetSet's selector labels (it is not a pet).
 *
 * The name is deterministic per hook id and attempt, so a controller restarted mid-hook finds
 * the Job it created and waits for it instead of running the hook twice. Before an attempt's
 * Job is created, the hook id's other Jobs are finished or deleted and their pods gone
 * (job-attempts.ts): never two executions of one id at once. Every request is retried while
 * it fails transiently (transient.ts: a 503 or a fence lapse is not the hook's failure); a
 * create whose answer was lost is found by name. Cancelled: the Job is deleted (Foreground:
 * it goes once its pods are gone).
 *
 * Expectations before the write, for Jobs: the intent is the hook's record (Running at this
 * attempt, written by the planner before any Job exists) and the name it determines; Jobs are
 * read uncached, so a create whose answer was lost is seen by the next read, never hidden
 * behind a cache that has not caught up.
 */
import { createHash } from "node:crypto";
import { BatchV1Api, CoreV1Api, type V1Container, type V1Job, type V1PodSpec } from "@kubernetes/client-node";
import { API_VERSION, HookLimits, hookEnv, Labels, PETSET_KIND } from "../../api/index.js";
import { sleep } from "../../util/sleep.js";
import { describeApiError, isAlreadyExists, isNotFound } from "../api-errors.js";
import type { HandlerDeps, HookHandler, HookRun } from "./hook-run.js";
import { awaitOtherAttemptsGone, HookJobAnnotations, HookLabels, type Retry } from "./job-attempts.js";
import { retryTransient } from "./transient.js";

export { HookLabels } from "./job-attempts.js";

const POLL_MS = 1000;

/** `<set>-<hook>-<hash of id+attempt>`, at most 63 characters (a label value, like Job pods' labels). */
export function hookJobName(setName: string, hook: string, id: string, attempt: number): string {
  const hash = createHash("sha256").update(`${id}#${attempt}`).digest("hex").slice(0, 10);
  const suffix = `-${hook.toLowerCase()}-${hash}`;
  return `${setName.slice(0, 63 - suffix.length)}${suffix}`.replace(/-+$/, "");
}

export function buildHookJob(run: HookRun): V1Job {
  const spec = run.spec.job ?? {};
  const template = run.version?.spec.template ?? run.petSet.spec.template;
  const podSpec = (template.spec ?? { containers: [] }) as V1PodSpec;
  const chosen = podSpec.containers.find((c) => c.name === spec.container) ?? podSpec.containers[0];
  const volumeNames = new Set((podSpec.volumes ?? []).map((v) => v.name));
  const env = Object.entries(hookEnv(run.context)).map(([name, value]) => ({ name, value }));
  const container: V1Container = {
    ...(chosen ?? { name: "hook" }),
    ...(spec.image !== undefined ? { image: spec.image } : {}),
    ...(spec.command !== undefined ? { command: spec.command } : {}),
    ...(spec.args !== undefined ? { args: spec.args } : {}),
    env: [...(chosen?.env ?? []).filter((e) => !e.name.startsWith("PETSET_HOOK")), ...env],
    // Claims of volumeClaimTemplates are per pet: a Job has none of them.
    volumeMounts: (chosen?.volumeMounts ?? []).filter((m) => volumeNames.has(m.name)),
  };
  delete container.livenessProbe;
  delete container.readinessProbe;
  delete container.startupProbe;
  delete container.lifecycle;
  const name = hookJobName(run.context.petSet, run.record.hook, run.record.id, run.record.attempts);
  const labels = { [HookLabels.petSet]: run.context.petSet, [HookLabels.hook]: run.record.hook };
  const annotations = {
    [HookJobAnnotations.id]: run.record.id,
    [HookJobAnnotations.attempt]: String(run.record.attempts),
  };
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      name,
      namespace: run.context.namespace,
      labels: { ...labels, [Labels.petSet]: run.context.petSet },
      annotations,
      ownerReferences: [
        {
          apiVersion: API_VERSION,
          kind: PETSET_KIND,
          name: run.context.petSet,
          uid: run.petSet.metadata.uid ?? "",
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: run.spec.timeoutSeconds,
      ttlSecondsAfterFinished: HookLimits.jobTtlSeconds,
      template: {
        metadata: { labels, annotations },
        spec: {
          ...podSpec,
          containers: [container],
          restartPolicy: "Never",
          volumes: podSpec.volumes ?? [],
        },
      },
    },
  };
}

function jobResult(job: V1Job): { ok: boolean; message: string } | undefined {
  for (const c of job.status?.conditions ?? []) {
    if (c.status !== "True") continue;
    if (c.type === "Complete") return { ok: true, message: `Job ${job.metadata?.name} completed` };
    if (c.type === "Failed")
      return {
        ok: false,
        message: `Job ${job.metadata?.name} failed: ${c.reason ?? ""} ${c.message ?? ""}`.trim(),
      };
  }
  return undefined;
}

export const runJob: HookHandler = async (run, deps, signal) => {
  const apis = {
    batch: deps.kubeConfig.makeApiClient(BatchV1Api),
    core: deps.kubeConfig.makeApiClient(CoreV1Api),
  };
  const job = buildHookJob(run);
  const name = job.metadata?.name ?? "";
  const namespace = run.context.namespace;
  const log = deps.logger.child({ hook: run.record.id, attempt: run.record.attempts, job: name });
  const retry: Retry = (what, fn) =>
    retryTransient(fn, signal, (err, n) => {
      if (n === 0 || n % 10 === 0)
        log.warn({ err: describeApiError(err), retry: n }, `${what}: transient error, retrying`);
    });
  const others = new Set<string>();
  for (let a = 1; a < run.record.attempts; a++)
    others.add(hookJobName(run.context.petSet, run.record.hook, run.record.id, a));
  await awaitOtherAttemptsGone(run, apis, { own: name, others }, signal, retry, (what) =>
    log.info({ waitingFor: what }, "waiting until the hook's other attempts are gone"),
  );
  /** Seen live (or created) by this run: a later NotFound means it was deleted. */
  let seen = false;
  for (;;) {
    let current: V1Job | undefined;
    try {
      current = await retry(`read Job ${name}`, () => apis.batch.readNamespacedJob({ name, namespace }));
    } catch (err) {
      if (!isNotFound(err)) throw err;
      current = undefined;
    }
    if (current?.metadata?.deletionTimestamp) {
      if (seen) return { ok: false, message: `Job ${name} was deleted` };
      // A cancelled run's Job of this attempt, still going: wait until it is gone.
      await sleep(POLL_MS, signal);
      continue;
    }
    if (current === undefined) {
      if (seen) return { ok: false, message: `Job ${name} was deleted` };
      try {
        await retry(`create Job ${name}`, () => apis.batch.createNamespacedJob({ namespace, body: job }));
      } catch (err) {
        if (!isAlreadyExists(err))
          return { ok: false, message: `could not create Job ${name}: ${describeApiError(err)}` };
      }
      seen = true;
      continue;
    }
    seen = true;
    const result = jobResult(current);
    if (result !== undefined) return result;
    await sleep(POLL_MS, signal);
  }
};

/** Delete the Job of a cancelled run (Foreground: it goes with its pods). Best effort. */
export async function deleteHookJob(run: HookRun, deps: HandlerDeps): Promise<void> {
  const api = deps.kubeConfig.makeApiClient(BatchV1Api);
  const name = hookJobName(run.context.petSet, run.record.hook, run.record.id, run.record.attempts);
  try {
    await api.deleteNamespacedJob({
      name,
      namespace: run.context.namespace,
      propagationPolicy: "Foreground",
    });
  } catch {
    // Gone already, or no Lease: the hook's next attempt deletes it (job-attempts.ts), or the
    // TTL or the PetSet's deletion does.
  }
}
