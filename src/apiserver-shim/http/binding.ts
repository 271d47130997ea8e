/** POST pods/{name}/binding: what a scheduler does to place a pod on a node. */
import { badRequest, conflict, notFound, successStatus } from "../errors.js";
import type { GenericStore } from "../registry/generic-store.js";
import type { RequestContext, ResourceDefinition } from "../registry/resource.js";
import { grKey } from "../registry/resource.js";
import { rfc3339 } from "../time.js";
import { deepClone, isPlainObject } from "../types.js";

export function bindPod(
  store: GenericStore,
  def: ResourceDefinition,
  ns: string,
  name: string,
  body: unknown,
  ctx: RequestContext,
): unknown {
  const target = isPlainObject(body) && isPlainObject(body.target) ? body.target : undefined;
  const node = target?.name;
  if (typeof node !== "string" || !node) throw badRequest("target.name: Required value");
  const stored = store.peek(def, ns, name);
  if (!stored) throw notFound(def, name);
  const spec = (stored.spec ?? {}) as Record<string, unknown>;
  if (spec.nodeName)
    throw conflict(def, name, `pod ${name} is already assigned to node "${String(spec.nodeName)}"`);
  if (stored.metadata.deletionTimestamp)
    throw conflict(def, name, `pod ${name} is being deleted, cannot be assigned to a host`);
  if (ctx.dryRun) return successStatus({});
  const next = deepClone(stored);
  (next.spec as Record<string, unknown>).nodeName = node;
  const status = (isPlainObject(next.status) ? next.status : {}) as Record<string, unknown>;
  const conds = (Array.isArray(status.conditions) ? status.conditions : []).filter(
    (c) => !(isPlainObject(c) && c.type === "PodScheduled"),
  );
  conds.push({
    type: "PodScheduled",
    status: "True",
    lastProbeTime: null,
    lastTransitionTime: rfc3339(ctx.now),
  });
  status.conditions = conds;
  next.status = status;
  store.objects.write(grKey(def), next);
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 };
}
