/**
 * What `kubectl petset hook` and `observe` read: the hook records on a PetSet's versions and
 * the pending `external` handshakes (hooks.petset.dev/request annotations on its pods or on
 * the PetSet itself), and how an answer is written (hooks.petset.dev/ack).
 */
import {
  HookAnnotations,
  type HookContext,
  HookContextSchema,
  type HookRecord,
  Labels,
  type PetSet,
  type PetSetVersion,
} from "../../api/index.js";
import { PluginError } from "./errors.js";
import type { PetSetApi } from "./petset-api.js";

export interface PendingRequest {
  context: HookContext;
  /** The pod carrying the request, or undefined for the PetSet's own. */
  pod?: { name: string; resourceVersion: string };
  answered: boolean;
}

function parseRequest(raw: string | undefined): HookContext | undefined {
  if (raw === undefined) return undefined;
  try {
    const parsed = HookContextSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function answered(annotations: Record<string, string> | undefined, ctx: HookContext): boolean {
  const raw = annotations?.[HookAnnotations.ack];
  if (raw === undefined) return false;
  try {
    const ack = JSON.parse(raw) as { id?: unknown; attempt?: unknown };
    return ack.id === ctx.id && (ack.attempt === undefined || ack.attempt === ctx.attempt);
  } catch {
    return false;
  }
}

export async function pendingRequests(api: PetSetApi, petSet: PetSet): Promise<PendingRequest[]> {
  const name = petSet.metadata.name ?? "";
  const out: PendingRequest[] = [];
  const own = parseRequest(petSet.metadata.annotations?.[HookAnnotations.request]);
  if (own !== undefined) out.push({ context: own, answered: answered(petSet.metadata.annotations, own) });
  for (const pod of await api.listPods()) {
    if (pod.metadata.labels?.[Labels.petSet] !== name) continue;
    const ctx = parseRequest(pod.metadata.annotations?.[HookAnnotations.request]);
    if (ctx === undefined || ctx.petSet !== name) continue;
    out.push({
      context: ctx,
      pod: { name: pod.metadata.name ?? "", resourceVersion: pod.metadata.resourceVersion ?? "" },
      answered: answered(pod.metadata.annotations, ctx),
    });
  }
  return out.sort((a, b) => a.context.id.localeCompare(b.context.id));
}

/** Writes the ack for a pending request (conditional on the pod's resourceVersion). */
export async function acknowledge(
  api: PetSetApi,
  request: PendingRequest,
  result: "Succeeded" | "Failed",
  message: string | undefined,
): Promise<void> {
  const ack = JSON.stringify({
    id: request.context.id,
    attempt: request.context.attempt,
    result,
    ...(message !== undefined && message !== "" ? { message: message.slice(0, 1024) } : {}),
  });
  const annotations = { [HookAnnotations.ack]: ack };
  if (request.pod !== undefined) {
    await api.patchPodMetadata(request.pod.name, { annotations }, request.pod.resourceVersion);
  } else {
    await api.patchPetSet(request.context.petSet, { metadata: { annotations } });
  }
}

/** Every hook record on the versions, newest start first. */
export function hookRecords(versions: readonly PetSetVersion[]): HookRecord[] {
  return versions
    .flatMap((v) => v.status?.hooks ?? [])
    .sort((a, b) => b.startedAt.localeCompare(a.startedAt) || a.id.localeCompare(b.id));
}

/** The one item `id` names, or the only candidate when no id is given; a clear error otherwise. */
export function pick<T>(
  items: readonly T[],
  id: string | undefined,
  idOf: (t: T) => string,
  what: string,
): T {
  if (id !== undefined) {
    const found = items.find((t) => idOf(t) === id);
    if (found === undefined)
      throw new PluginError(
        "NotFound",
        `no ${what} with id ${id}${items.length > 0 ? ` (there are: ${items.map(idOf).join(", ")})` : ""}`,
      );
    return found;
  }
  const [only, ...rest] = items;
  if (only === undefined) throw new PluginError("NotFound", `no ${what}`);
  if (rest.length > 0)
    throw new PluginError(
      "BadRequest",
      `${items.length} ${what}s: name one by id: ${items.map(idOf).join(", ")}`,
    );
  return only;
}
