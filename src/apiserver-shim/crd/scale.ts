/**
 * The scale subresource of custom resources: an autoscaling/v1 Scale view of the paths
 * the CRD names (specReplicasPath, statusReplicasPath, labelSelectorPath).
 */
import { badRequest, modifiedConflict, notFound, unsupportedMediaType } from "../errors.js";
import { applyJsonPatch } from "../patch/json-patch.js";
import { applyMergePatch } from "../patch/merge-patch.js";
import type { GenericStore } from "../registry/generic-store.js";
import { JSON_PATCH, MERGE_PATCH, STRATEGIC_PATCH } from "../registry/patching.js";
import type { RequestContext, ResourceDefinition, ScaleSubresource } from "../registry/resource.js";
import { isPlainObject, type KubeObject } from "../types.js";

function segments(path: string): string[] {
  return path.replace(/^\./, "").split(".");
}

function read(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const s of segments(path)) cur = isPlainObject(cur) ? cur[s] : undefined;
  return cur;
}

function write(obj: Record<string, unknown>, path: string, value: unknown): void {
  const segs = segments(path);
  let cur = obj;
  for (const s of segs.slice(0, -1)) {
    if (!isPlainObject(cur[s])) cur[s] = {};
    cur = cur[s] as Record<string, unknown>;
  }
  cur[segs[segs.length - 1]!] = value;
}

export function scaleOf(obj: KubeObject, scale: ScaleSubresource): KubeObject {
  const m = obj.metadata;
  const replicas = Number(read(obj, scale.specReplicasPath) ?? 0);
  const status: Record<string, unknown> = { replicas: Number(read(obj, scale.statusReplicasPath) ?? 0) };
  const selector = scale.labelSelectorOf
    ? scale.labelSelectorOf(obj)
    : scale.labelSelectorPath
      ? read(obj, scale.labelSelectorPath)
      : undefined;
  if (typeof selector === "string" && selector) status.selector = selector;
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: {
      name: m.name,
      ...(m.namespace ? { namespace: m.namespace } : {}),
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      creationTimestamp: m.creationTimestamp,
    },
    // autoscaling/v1 ScaleSpec.replicas is omitempty: kube prints `spec: {}` at 0.
    spec: replicas === 0 ? {} : { replicas },
    status,
  };
}

export function getScale(
  store: GenericStore,
  def: ResourceDefinition,
  ns: string | undefined,
  name: string,
): KubeObject {
  return scaleOf(store.get(def, ns, name), def.scale!);
}

/** PUT …/scale (body: Scale) or PATCH …/scale (patch of the Scale). */
export function updateScale(
  store: GenericStore,
  def: ResourceDefinition,
  ns: string | undefined,
  name: string,
  body: { scale?: unknown; patch?: { type: string; raw: string } },
  ctx: RequestContext,
): KubeObject {
  const stored = store.peek(def, ns, name);
  if (!stored) throw notFound(def, name);
  const current = scaleOf(store.get(def, ns, name), def.scale!);
  let next: unknown = body.scale;
  if (body.patch) {
    const type = body.patch.type.split(";")[0]!.trim();
    let patch: unknown;
    try {
      patch = JSON.parse(body.patch.raw);
    } catch (e) {
      throw badRequest(`error decoding patch: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (type === JSON_PATCH) next = applyJsonPatch(current, patch);
    else if (type === MERGE_PATCH || type === STRATEGIC_PATCH) next = applyMergePatch(current, patch);
    else throw unsupportedMediaType(body.patch.type, [JSON_PATCH, MERGE_PATCH]);
  }
  if (!isPlainObject(next)) throw badRequest("scale must be an object");
  const spec = isPlainObject(next.spec) ? next.spec : {};
  const meta = isPlainObject(next.metadata) ? next.metadata : {};
  if (meta.resourceVersion && meta.resourceVersion !== stored.metadata.resourceVersion)
    throw modifiedConflict(def, name);
  const replicas = spec.replicas;
  // A negative count is the resource's validation to refuse (422 Invalid, as in kube).
  if (typeof replicas !== "number" || !Number.isInteger(replicas))
    throw badRequest(
      `spec.replicas: Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`,
    );
  const obj = store.get(def, ns, name);
  write(obj, def.scale!.specReplicasPath, replicas);
  const updated = store.commitUpdate(def, stored, obj, { ...ctx, subresource: "scale" });
  return scaleOf(updated, def.scale!);
}
