/**
 * The `external` handler: a handshake through annotations. The controller writes
 * hooks.petset.dev/request (a JSON HookRequest: the hook's context) on the pet's pod, or on the
 * PetSet for set hooks, and waits until hooks.petset.dev/ack on the same object carries the
 * same id (and attempt, when the ack names one) with result Succeeded or Failed. Then it removes
 * both annotations. `kubectl petset hook ack|fail` and `kubectl petset observe` answer it.
 * Resuming after a restart writes the same request again: an ack already there counts.
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
import { isNotFound } from "../api-errors.js";
import { type HandlerDeps, type HookHandler, type HookRun, sleep } from "./hook-run.js";

const POLL_MS = 500;
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

function annotate(run: HookRun, deps: HandlerDeps, annotations: Record<string, string | null>) {
  const ns = run.context.namespace;
  const body = { metadata: { annotations } };
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
      await annotate(run, deps, { [HookAnnotations.request]: hookRequestValue(run.context) });
    } catch (err) {
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
    await annotate(run, deps, { [HookAnnotations.request]: null, [HookAnnotations.ack]: null });
  } catch (err) {
    if (!isNotFound(err))
      deps.logger.warn({ hook: run.record.id, err: String(err) }, "could not clear the hook handshake");
  }
  return answer;
};

/** Withdraw a pending request (the hook was cancelled). Best effort. */
export async function withdrawExternal(run: HookRun, deps: HandlerDeps): Promise<void> {
  const obj = cachedObject(run, deps);
  const raw = obj?.metadata?.annotations?.[HookAnnotations.request];
  if (raw === undefined || !raw.includes(JSON.stringify(run.context.id))) return;
  try {
    await annotate(run, deps, { [HookAnnotations.request]: null, [HookAnnotations.ack]: null });
  } catch {
    // Gone already, or the Lease was lost: the next leader withdraws it.
  }
}
