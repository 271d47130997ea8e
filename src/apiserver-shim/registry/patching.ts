/**
 * PATCH: JSON patch, merge patch, strategic merge patch (built-ins) and server-side apply.
 * Every patch is applied to the current object and then goes through the update path,
 * so validation, generation, managedFields and no-op detection are shared with PUT.
 */

import { serverSideApply } from "../apply/managed-fields.js";
import { ApiError, badRequest, modifiedConflict, notFound, unsupportedMediaType } from "../errors.js";
import { applyJsonPatch } from "../patch/json-patch.js";
import { applyMergePatch } from "../patch/merge-patch.js";
import { applyStrategicMergePatch } from "../patch/strategic-merge-patch.js";
import { deepClone, isPlainObject, type KubeObject } from "../types.js";
import { parseYamlBody as parseYaml } from "../yaml-body.js";
import type { GenericStore } from "./generic-store.js";
import { decodeBody } from "./request-body.js";
import { apiVersionOf, type RequestContext, type ResourceDefinition } from "./resource.js";
import { present } from "./stored-form.js";

export const JSON_PATCH = "application/json-patch+json";
export const MERGE_PATCH = "application/merge-patch+json";
export const STRATEGIC_PATCH = "application/strategic-merge-patch+json";
export const APPLY_PATCH = "application/apply-patch+yaml";
const APPLY_PATCH_CBOR = "application/apply-patch+cbor";
const KNOWN_PATCH_TYPES = new Set([JSON_PATCH, MERGE_PATCH, STRATEGIC_PATCH, APPLY_PATCH, APPLY_PATCH_CBOR]);

export interface PatchResult {
  object: KubeObject;
  created: boolean;
}

export function acceptedPatchTypes(def: ResourceDefinition): string[] {
  return def.strategicMerge
    ? [JSON_PATCH, MERGE_PATCH, STRATEGIC_PATCH, APPLY_PATCH]
    : [JSON_PATCH, MERGE_PATCH, APPLY_PATCH];
}

export function patchObject(
  store: GenericStore,
  def: ResourceDefinition,
  ns: string | undefined,
  name: string,
  contentType: string,
  raw: string,
  ctx: RequestContext,
  force: boolean,
): PatchResult {
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  // Not a patch type at all: kube's handler refuses it before looking at the resource.
  if (!KNOWN_PATCH_TYPES.has(type))
    throw new ApiError(415, "UnsupportedMediaType", "415: Unsupported Media Type", {});
  if (!acceptedPatchTypes(def).includes(type) || type === APPLY_PATCH_CBOR)
    throw unsupportedMediaType(contentType, acceptedPatchTypes(def));
  if (type === APPLY_PATCH) return apply(store, def, ns, name, raw, ctx, force);
  const patch = parseJson(raw);
  const stored = store.peek(def, ns, name);
  if (!stored) throw notFound(def, name);
  const current = present(def, stored);
  let patched: unknown;
  if (type === JSON_PATCH) patched = applyJsonPatch(current, patch);
  else if (type === MERGE_PATCH) patched = applyMergePatch(current, patch);
  else patched = applyStrategicMergePatch(current, patch, def.typeRoot());
  if (!isPlainObject(patched)) throw badRequest("patched object is not a JSON object");
  const next = patched as KubeObject;
  if (!isPlainObject(next.metadata)) next.metadata = {};
  if (next.metadata.resourceVersion !== stored.metadata.resourceVersion) {
    if (next.metadata.resourceVersion) throw modifiedConflict(def, name);
    next.metadata.resourceVersion = stored.metadata.resourceVersion;
  }
  next.metadata.name = name;
  const checked = decodeBody(def, ns, next);
  return { object: store.commitUpdate(def, stored, checked, ctx), created: false };
}

function apply(
  store: GenericStore,
  def: ResourceDefinition,
  ns: string | undefined,
  name: string,
  raw: string,
  ctx: RequestContext,
  force: boolean,
): PatchResult {
  if (!ctx.fieldManager || ctx.fieldManager === "unknown")
    throw new ApiError(
      422,
      "Invalid",
      `PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`,
    );
  let config: unknown;
  try {
    config = parseYaml(raw);
  } catch (e) {
    throw badRequest(`error decoding YAML: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!isPlainObject(config)) throw badRequest("apply patch must be a YAML or JSON object");
  const cfg = config as KubeObject;
  const av = apiVersionOf(def);
  if (!cfg.apiVersion || !cfg.kind)
    throw badRequest(`invalid object type: ${cfg.apiVersion ?? ""}, Kind=${cfg.kind ?? ""}`);
  if (cfg.apiVersion !== av || cfg.kind !== def.kind)
    throw badRequest(
      `the API version in the data (${cfg.apiVersion}) does not match the expected API version (${av})`,
    );
  if (!isPlainObject(cfg.metadata)) cfg.metadata = {};
  if (cfg.metadata.name && cfg.metadata.name !== name)
    throw badRequest(
      `the name of the object (${cfg.metadata.name}) does not match the name on the URL (${name})`,
    );
  cfg.metadata.name = name;
  if (def.namespaced && ns) cfg.metadata.namespace = cfg.metadata.namespace ?? ns;
  delete cfg.metadata.managedFields;
  const stored = store.peek(def, ns, name);
  const scope = { subresource: ctx.subresource ?? "", statusSubresource: !!def.status };
  const live = stored ? present(def, stored) : undefined;
  const liveRv = stored?.metadata.resourceVersion;
  if (cfg.metadata.resourceVersion && cfg.metadata.resourceVersion !== liveRv)
    throw modifiedConflict(def, name);
  const merged = serverSideApply({
    live,
    config: deepClone(cfg),
    type: def.typeRoot(),
    manager: ctx.fieldManager,
    apiVersion: av,
    scope,
    force,
    now: ctx.now,
  });
  if (!stored) {
    if (ctx.subresource) throw notFound(def, name);
    delete merged.metadata.resourceVersion;
    return { object: store.create(def, ns, merged, ctx, { managedFieldsDone: true }), created: true };
  }
  merged.metadata.resourceVersion = liveRv;
  const checked = decodeBody(def, ns, merged);
  return {
    object: store.commitUpdate(def, stored, checked, ctx, { managedFieldsDone: true }),
    created: false,
  };
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (e) {
    throw badRequest(`error decoding patch: ${e instanceof Error ? e.message : String(e)}`);
  }
}
