/**
 * What the API shows of a chaos run's hooks while it runs, with the time the harness saw each
 * change (epoch ms; creationTimestamp and pod times have only second resolution):
 * - when each hook Job first appeared (the controller's decision to start that attempt);
 * - each hook Job pod as an execution: open from when it was seen Running (or already
 *   finished) until it was seen Succeeded/Failed, or gone from the API. On the real backend
 *   kwok runs no Job process, so these are the Jobs' executions; a pod deleted while running
 *   counts as running until the API no longer has it (confirmed gone).
 * Each stream lists, then watches from the list's resourceVersion; a broken watch (an API
 * server restart) lists again, and an object missing from that list counts as gone then.
 */
import {
  BatchV1Api,
  CoreV1Api,
  type KubeConfig,
  type V1Job,
  type V1Pod,
  Watch,
} from "@kubernetes/client-node";
import type { HookExecution } from "./hook-outcome.js";

const HOOK_PETSET_LABEL = "hooks.petset.dev/petset";
const ID_ANNOTATION = "hooks.petset.dev/id";
const ATTEMPT_ANNOTATION = "hooks.petset.dev/attempt";

interface Meta {
  metadata?: { uid?: string; name?: string; resourceVersion?: string; annotations?: Record<string, string> };
}

export interface JobSeen {
  name: string;
  id: string;
  attempt: number;
  seenAt: number;
}

interface PodRun {
  id: string;
  attempt: number;
  startedAt?: number;
  endedAt?: number;
  phase?: string;
}

export interface HookRecorder {
  jobs(): JobSeen[];
  /** Hook Job pods that ran (or run), as executions with times; `end` unset while running. */
  jobExecutions(): HookExecution[];
  stop(): void;
}

type List = { items: Meta[]; metadata?: { resourceVersion?: string } };

function stream(
  kc: KubeConfig,
  path: string,
  params: Record<string, string>,
  list: () => Promise<List>,
  on: (type: "ADDED" | "MODIFIED" | "DELETED", obj: Meta) => void,
): () => void {
  let stopped = false;
  let abort: AbortController | undefined;
  const known = new Map<string, Meta>();
  const key = (o: Meta) => o.metadata?.uid ?? o.metadata?.name ?? "";
  const apply = (type: "ADDED" | "MODIFIED" | "DELETED", o: Meta) => {
    if (type === "DELETED") known.delete(key(o));
    else known.set(key(o), o);
    on(type, o);
  };
  void (async () => {
    while (!stopped) {
      try {
        const result = await list();
        const present = new Set(result.items.map(key));
        for (const [k, o] of known) if (!present.has(k)) apply("DELETED", o);
        for (const o of result.items) apply(known.has(key(o)) ? "MODIFIED" : "ADDED", o);
        const rv = result.metadata?.resourceVersion ?? "";
        await new Promise<void>((resolve) => {
          new Watch(kc)
            .watch(
              path,
              { ...params, resourceVersion: rv, allowWatchBookmarks: true },
              (type: string, obj: Meta) => {
                if (type === "ADDED" || type === "MODIFIED" || type === "DELETED") apply(type, obj);
              },
              () => resolve(),
            )
            .then(
              (a) => {
                abort = a;
                if (stopped) a.abort();
              },
              () => resolve(),
            );
        });
      } catch {
        // The API server restarts: list again.
      }
      if (!stopped) await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return () => {
    stopped = true;
    abort?.abort();
  };
}

export function startHookRecorder(kc: KubeConfig, namespace: string): HookRecorder {
  const jobs = new Map<string, JobSeen>();
  const pods = new Map<string, PodRun>();
  const batch = kc.makeApiClient(BatchV1Api);
  const core = kc.makeApiClient(CoreV1Api);
  const labelSelector = HOOK_PETSET_LABEL;
  const hookOf = (o: Meta) => ({
    id: o.metadata?.annotations?.[ID_ANNOTATION] ?? "",
    attempt: Number(o.metadata?.annotations?.[ATTEMPT_ANNOTATION] ?? "0"),
  });
  const stops = [
    stream(
      kc,
      `/apis/batch/v1/namespaces/${namespace}/jobs`,
      { labelSelector },
      async () => (await batch.listNamespacedJob({ namespace, labelSelector })) as List,
      (type, o) => {
        const name = (o as V1Job).metadata?.name ?? "";
        if (type !== "DELETED" && !jobs.has(name)) jobs.set(name, { name, ...hookOf(o), seenAt: Date.now() });
      },
    ),
    stream(
      kc,
      `/api/v1/namespaces/${namespace}/pods`,
      { labelSelector },
      async () => (await core.listNamespacedPod({ namespace, labelSelector })) as List,
      (type, o) => {
        const uid = o.metadata?.uid ?? "";
        const run = pods.get(uid) ?? { ...hookOf(o) };
        pods.set(uid, run);
        const now = Date.now();
        const phase = (o as V1Pod).status?.phase;
        if (type === "DELETED") {
          if (run.startedAt !== undefined) run.endedAt ??= now;
          return;
        }
        run.phase = phase;
        if (phase === "Running" || phase === "Succeeded" || phase === "Failed") run.startedAt ??= now;
        if (phase === "Succeeded" || phase === "Failed") run.endedAt ??= now;
      },
    ),
  ];
  return {
    jobs: () => [...jobs.values()],
    jobExecutions: () =>
      [...pods.values()]
        .filter((p) => p.startedAt !== undefined)
        .map((p) => ({
          id: p.id,
          attempt: p.attempt,
          start: p.startedAt ?? 0,
          at: p.startedAt ?? 0,
          ...(p.endedAt !== undefined ? { end: p.endedAt } : {}),
        })),
    stop: () => {
      for (const s of stops) s();
    },
  };
}
