/**
 * The `external` handler: a handshake through annotations. The controller writes
 * hooks.petset.dev/request (a JSON HookRequest: the hook's context) on the pet's pod, or on the
 * PetSet for set hooks, and waits until hooks.petset.dev/ack on the same object carries the
 * same id (and attempt, when the ack names one) with result Succeeded or Failed. Then it removes
 * both annotations. `kubectl petset hook ack|fail` and `kubectl petset observe` answer it.
 * Resuming after a restart writes the same request again: an ack already there counts.
 *
 * One object, several runs (v2's request withdrawn while v3's is written): every handshake
 * write to an object is serialized in this process (one at a time, in the order asked, and a
 * write whose run was stopped before its turn is not sent), and a removal is conditional: it
 * reads the object uncached, removes only the request (and ack) of its own id and attempt,
 * and carries the resourceVersion it read (a 409 reads again). So a withdrawal never erases a
 * newer run's request, whatever order the answers come in. Transient errors are retried.
 */
import {
  CoreV1Api,
  CustomObjectsApi,
  type KubernetesObject,
  PatchStrategy,
  setHeaderOptions,
} from "@kubernetes/client-node";
import {
  GROUP,
  HookAckSchema,
  HookAnnotations,
  type HookContext,
  PETSET_PLURAL,
  VERSION,
} from "../../api/index.js";
import { sleep } from "../../util/sleep.js";
import { isConflict, isNotFound } from "../api-errors.js";
import type { HandlerDeps, HookHandler, HookRun } from "./hook-run.js";
import { retryTransient } from "./transient.js";

const POLL_MS = 500;
/** How long a withdrawal keeps trying through transient errors. */
const WITHDRAW_MS = 30_000;
const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

/** The request annotation's value: the context, so an answering script has everything. */
export function hookRequestValue(ctx: HookContext): string {
  return JSON.stringify(ctx);
}

/** The ack for `ctx` found in `annotations`, if any. */
export function findAck(
  annotations: Record<string, string> | undefined,
  ctx: HookContext,
): { ok: boolean; message: string } | undefined {
  const raw = annotations?.[HookAnnotations.ack];
  if (raw === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const ack = HookAckSchema.safeParse(parsed);
  if (!ack.success || ack.data.id !== ctx.id) return undefined;
  const attempt = (parsed as { attempt?: unknown }).attempt;
  if (typeof attempt === "number" && attempt !== ctx.attempt) return undefined;
  return {
    ok: ack.data.result === "Succeeded",
    message: ack.data.message ?? `acknowledged: ${ack.data.result}`,
  };
}

/** Is `raw` (a request annotation) the request of this run (same id and attempt)? */
export function isOwnRequest(raw: string | undefined, ctx: HookContext): boolean {
  if (raw === undefined) return false;
  try {
    const parsed = JSON.parse(raw) as { id?: unknown; attempt?: unknown };
    return parsed.id === ctx.id && (parsed.attempt === undefined || parsed.attempt === ctx.attempt);
  } catch {
    return false;
  }
}

/** Handshake writes per object ("ns/kind/name"), one at a time in the order asked. */
const queues = new Map<string, Promise<unknown>>();

function objectKey(run: HookRun): string {
  const c = run.context;
  return c.pod !== undefined ? `${c.namespace}/pod/${c.pod}` : `${c.namespace}/petset/${c.petSet}`;
}

function serialized<T>(run: HookRun, fn: () => Promise<T>): Promise<T> {
  const key = objectKey(run);
  const before = queues.get(key) ?? Promise.resolve();
  const mine = before.then(fn, fn);
  const tail = mine.catch(() => {});
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  return mine;
}

async function readObject(run: HookRun, deps: HandlerDeps): Promise<KubernetesObject> {
  const ns = run.context.namespace;
  if (run.context.pod !== undefined) {
    const api = deps.kubeConfig.makeApiClient(CoreV1Api);
    return api.readNamespacedPod({ name: run.context.pod, namespace: ns });
  }
  const api = deps.kubeConfig.makeApiClient(CustomObjectsApi);
  return (await api.getNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    plural: PETSET_PLURAL,
    namespace: ns,
    name: run.context.petSet,
  })) as KubernetesObject;
}

/**
 * Removes this run's request (and an ack of its id) from the object if they are still there:
 * an uncached read, then a patch with that resourceVersion; a 409 reads again.
 */
async function clearOwn(run: HookRun, deps: HandlerDeps, signal: AbortSignal): Promise<void> {
  for (;;) {
    let obj: KubernetesObject;
    try {
      obj = await retryTransient(() => readObject(run, deps), signal);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    const uid = run.record.podUID;
    if (uid !== undefined && obj.metadata?.uid !== uid) return;
    const annotations = obj.metadata?.annotations ?? {};
    const change: Record<string, null> = {};
    if (isOwnRequest(annotations[HookAnnotations.request], run.context))
      change[HookAnnotations.request] = null;
    if (findAck(annotations, run.context) !== undefined) change[HookAnnotations.ack] = null;
    if (Object.keys(change).length === 0) return;
    try {
      await retryTransient(() => annotate(run, deps, change, obj.metadata?.resourceVersion), signal);
      return;
    } catch (err) {
      if (isNotFound(err)) return;
      if (!isConflict(err)) throw err;
    }
  }
}

function annotate(
  run: HookRun,
  deps: HandlerDeps,
  annotations: Record<string, string | null>,
  resourceVersion?: string,
) {
  const ns = run.context.namespace;
  const body = {
    metadata: { annotations, ...(resourceVersion !== undefined ? { resourceVersion } : {}) },
  };
  if (run.context.pod !== undefined) {
    const api = deps.kubeConfig.makeApiClient(CoreV1Api);
    return api.patchNamespacedPod({ name: run.context.pod, namespace: ns, body }, merge);
  }
  const api = deps.kubeConfig.makeApiClient(CustomObjectsApi);
  return api.patchNamespacedCustomObject(
    { group: GROUP, version: VERSION, plural: PETSET_PLURAL, namespace: ns, name: run.context.petSet, body },
    merge,
  );
}

function cachedObject(run: HookRun, deps: HandlerDeps): KubernetesObject | undefined {
  const ns = run.context.namespace;
  if (run.context.pod !== undefined) return deps.caches.pods.get(run.context.pod, ns);
  return deps.caches.petSets.get(run.context.petSet, ns);
}

export const runExternal: HookHandler = async (run, deps, signal) => {
  const uid = run.record.podUID;
  const cached = cachedObject(run, deps);
  if (uid !== undefined && cached?.metadata?.uid !== uid) {
    return { ok: false, message: `pod ${run.context.pod} is gone or was replaced` };
  }
  const existing = findAck(cached?.metadata?.annotations, run.context);
  if (existing === undefined) {
    try {
      await serialized(run, () => {
        // Stopped before its turn (superseded): a later run's request must not be overwritten.
        if (signal.aborted) throw signal.reason;
        return retryTransient(
          () => annotate(run, deps, { [HookAnnotations.request]: hookRequestValue(run.context) }),
          signal,
        );
      });
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (isNotFound(err)) return { ok: false, message: `${run.context.pod ?? run.context.petSet} is gone` };
      throw err;
    }
  }
  let answer = existing;
  while (answer === undefined) {
    await sleep(POLL_MS, signal);
    const obj = cachedObject(run, deps);
    if (obj === undefined || (uid !== undefined && obj.metadata?.uid !== uid)) {
      return { ok: false, message: `pod ${run.context.pod} is gone or was replaced` };
    }
    answer = findAck(obj.metadata?.annotations, run.context);
  }
  try {
    await serialized(run, () => clearOwn(run, deps, signal));
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    deps.logger.warn({ hook: run.record.id, err: String(err) }, "could not clear the hook handshake");
  }
  return answer;
};

/**
 * Withdraw a cancelled run's request (and an ack of its id), only if still its own, after
 * the object's earlier handshake writes (see the header). Best effort, bounded by `signal`.
 */
export async function withdrawExternal(
  run: HookRun,
  deps: HandlerDeps,
  signal: AbortSignal = AbortSignal.timeout(WITHDRAW_MS),
): Promise<void> {
  try {
    await serialized(run, () => clearOwn(run, deps, signal));
  } catch {
    // Gone already, or the Lease was lost: the next leader withdraws it.
  }
}
