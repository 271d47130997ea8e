/**
 * Resource requests: resolves the definition, builds the request context from query
 * parameters, and maps HTTP methods to store verbs. Responses are objects, lists,
 * Tables or PartialObjectMetadata as the client's Accept header asks.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { getScale, updateScale } from "../crd/scale.js";
import {
  ApiError,
  badRequest,
  fieldForbidden,
  fieldRequired,
  invalid,
  methodNotAllowed,
  NotFoundPage,
  notFound,
  pathNotFound,
  successStatus,
} from "../errors.js";
import { decodeKubeProtobuf, PROTOBUF_CONTENT_TYPE } from "../protobuf/decode.js";
import { type DeleteOptions, deleteCollection, deleteObject } from "../registry/deletion.js";
import type { GenericStore, ListOptions } from "../registry/generic-store.js";
import { patchObject } from "../registry/patching.js";
import type { RequestContext, ResourceDefinition } from "../registry/resource.js";
import type { ResourceRegistry } from "../registry/resource-registry.js";
import { present } from "../registry/stored-form.js";
import { buildTable, type IncludeObject, partialObjectMetadata } from "../tables/table.js";
import { deepClone, isPlainObject, type KubeObject } from "../types.js";
import { parseYamlBody as parseYaml } from "../yaml-body.js";
import { bindPod } from "./binding.js";
import type { ResourceRequest } from "./request-info.js";
import { validateRequestOptions } from "./request-options.js";
import { negotiate, readBody, sendJson, warningHeaders } from "./respond.js";
import { serveWatch, type WatchConfig } from "./watch.js";

export interface HandlerDeps {
  store: GenericStore;
  registry: ResourceRegistry;
  watch: WatchConfig;
  onClose: (fn: () => void) => () => void;
}

const truthy = (v: string | null) => v === "true" || v === "1";

function fieldManagerFrom(q: URLSearchParams, req: IncomingMessage): string {
  const explicit = q.get("fieldManager");
  if (explicit) return explicit;
  const ua = req.headers["user-agent"] ?? "";
  const prefix = ua.split("/")[0]?.trim();
  return prefix || "unknown";
}

function contextFor(
  q: URLSearchParams,
  req: IncomingMessage,
  store: GenericStore,
  sub?: string,
): RequestContext {
  const fv = q.get("fieldValidation") ?? "Warn";
  const ctx: RequestContext = {
    fieldManager: fieldManagerFrom(q, req),
    dryRun: q.getAll("dryRun").includes("All"),
    now: store.clock.now(),
    warnings: [],
    fieldValidation: fv === "Strict" || fv === "Ignore" ? fv : "Warn",
  };
  if (sub) ctx.subresource = sub;
  return ctx;
}

function parseBody(body: Buffer, contentType: string | undefined): unknown {
  if (body.length === 0) return undefined;
  try {
    // An undecodable body is the client's error (400), as kube's decoders answer: a truncated
    // protobuf or a YAML alias cycle answered 500 here (fuzzed input).
    if ((contentType ?? "").startsWith(PROTOBUF_CONTENT_TYPE)) return decodeKubeProtobuf(body);
    const raw = body.toString("utf8");
    if (!raw.trim()) return undefined;
    if (!(contentType ?? "").includes("yaml")) return JSON.parse(raw);
    const parsed: unknown = parseYaml(raw);
    // Aliases may make a cycle, which no JSON object can be.
    JSON.stringify(parsed);
    return parsed;
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw badRequest(`error decoding request body: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function includeObjectOf(q: URLSearchParams): IncludeObject {
  const v = q.get("includeObject");
  return v === "None" || v === "Object" ? v : "Metadata";
}

function listOptions(q: URLSearchParams): ListOptions {
  const opts: ListOptions = {};
  const ls = q.get("labelSelector");
  const fs = q.get("fieldSelector");
  const limit = q.get("limit");
  const cont = q.get("continue");
  if (ls) opts.labelSelector = ls;
  if (fs) opts.fieldSelector = fs;
  if (limit) opts.limit = Number(limit);
  if (cont) opts.continue = cont;
  return opts;
}

function deleteOptions(q: URLSearchParams, body: unknown): DeleteOptions {
  const b = isPlainObject(body) ? body : {};
  const opts: DeleteOptions = {};
  const grace =
    q.get("gracePeriodSeconds") ?? (b.gracePeriodSeconds !== undefined ? String(b.gracePeriodSeconds) : null);
  if (grace !== null && grace !== "") opts.gracePeriodSeconds = Number(grace);
  const policy =
    q.get("propagationPolicy") ?? (typeof b.propagationPolicy === "string" ? b.propagationPolicy : null);
  if (policy) opts.propagationPolicy = policy as DeleteOptions["propagationPolicy"] & string;
  if (q.get("orphanDependents") === "true" || b.orphanDependents === true) opts.orphanDependents = true;
  if (isPlainObject(b.preconditions))
    opts.preconditions = b.preconditions as DeleteOptions["preconditions"] & object;
  return opts;
}

export async function handleResource(
  req: IncomingMessage,
  res: ServerResponse,
  ri: ResourceRequest,
  q: URLSearchParams,
  deps: HandlerDeps,
): Promise<void> {
  const { store, registry } = deps;
  const def = registry.get(ri.group, ri.version, ri.resource);
  if (!def) {
    // Built-in group-versions answer a Status (go-restful); anything else Go's 404 page.
    const builtin = registry.resources(ri.group, ri.version).some((d) => d.strategicMerge);
    throw builtin ? pathNotFound() : new NotFoundPage();
  }
  if (def.namespaced && ri.namespace === undefined && ri.name !== undefined) throw pathNotFound();
  const ns = def.namespaced ? ri.namespace : undefined;
  if (!def.namespaced && ri.namespace !== undefined && ri.resource !== "namespaces") throw pathNotFound();
  const sub = ri.subresource;
  if (sub && !isServedSubresource(def, sub)) throw pathNotFound();
  const method = req.method ?? "GET";
  const rendering = negotiate(req);
  validateRequestOptions(method, q);
  const ctx = contextFor(q, req, store, sub);
  const reply = (code: number, obj: unknown) => sendJson(res, code, obj, warningHeaders(ctx.warnings));
  const renderOne = (o: KubeObject) =>
    rendering === "table"
      ? buildTable(def.table, [o], {
          includeObject: includeObjectOf(q),
          noHeaders: false,
          now: store.clock.now(),
          resourceVersion: o.metadata.resourceVersion ?? "",
        })
      : rendering === "metadata"
        ? partialObjectMetadata(o)
        : o;

  if (method === "GET") {
    if (ri.name === undefined) {
      if (truthy(q.get("watch"))) {
        const lo = listOptions(q);
        const timeout = q.get("timeoutSeconds");
        serveWatch(
          req,
          res,
          store,
          def,
          ns,
          {
            ...(q.has("resourceVersion") ? { resourceVersion: q.get("resourceVersion")! } : {}),
            ...(lo.labelSelector ? { labelSelector: lo.labelSelector } : {}),
            ...(lo.fieldSelector ? { fieldSelector: lo.fieldSelector } : {}),
            allowWatchBookmarks: truthy(q.get("allowWatchBookmarks")),
            sendInitialEvents: truthy(q.get("sendInitialEvents")),
            ...(timeout ? { timeoutSeconds: Number(timeout) } : {}),
            rendering,
            includeObject: includeObjectOf(q),
          },
          deps.watch,
          deps.onClose,
        );
        return;
      }
      if (ns !== undefined && def.namespaced) {
        // kube lists in a missing namespace as empty, not 404.
      }
      if (q.get("resourceVersionMatch") && !q.get("resourceVersion"))
        throw invalid("meta.k8s.io", "ListOptions", "", [
          fieldForbidden(
            "resourceVersionMatch",
            "resourceVersionMatch is forbidden unless resourceVersion is provided",
          ),
        ]);
      const result = store.list(def, ns, listOptions(q));
      if (rendering === "table") {
        reply(
          200,
          buildTable(def.table, result.items, {
            includeObject: includeObjectOf(q),
            noHeaders: false,
            now: store.clock.now(),
            resourceVersion: result.resourceVersion,
            ...(result.continue ? { continueToken: result.continue } : {}),
            ...(result.remainingItemCount !== undefined
              ? { remainingItemCount: result.remainingItemCount }
              : {}),
          }),
        );
        return;
      }
      const metadata: Record<string, unknown> = { resourceVersion: result.resourceVersion };
      if (result.continue) metadata.continue = result.continue;
      // Unstructured (custom resource) lists always carry `continue`, empty on the last page.
      else if (!def.strategicMerge) metadata.continue = "";
      if (result.remainingItemCount !== undefined) metadata.remainingItemCount = result.remainingItemCount;
      const items =
        rendering === "metadata"
          ? result.items.map(partialObjectMetadata)
          : def.strategicMerge
            ? result.items.map(withoutTypeMeta)
            : result.items;
      reply(200, {
        kind: rendering === "metadata" ? "PartialObjectMetadataList" : def.listKind,
        apiVersion:
          rendering === "metadata"
            ? "meta.k8s.io/v1"
            : def.group
              ? `${def.group}/${def.version}`
              : def.version,
        metadata,
        items,
      });
      return;
    }
    if (sub === "scale") return reply(200, getScale(store, def, ns, ri.name));
    return reply(200, renderOne(store.get(def, ns, ri.name)));
  }

  const body = await readBody(req);
  const raw = body.toString("utf8");
  const contentType = req.headers["content-type"];

  if (method === "POST") {
    if (sub === "binding" && ri.name)
      return reply(201, bindPod(store, def, ns!, ri.name, parseBody(body, contentType), ctx));
    if (ri.name !== undefined) throw methodNotAllowed();
    const created = store.create(def, ns, parseBody(body, contentType), ctx);
    return reply(201, renderOne(created));
  }
  if (ri.name === undefined) {
    if (method === "DELETE") {
      if (def.verbs && !def.verbs.includes("deletecollection")) throw methodNotAllowed();
      const items = deleteCollection(
        store,
        def,
        ns,
        listOptions(q),
        deleteOptions(q, parseBody(body, contentType)),
        ctx,
      );
      return reply(200, {
        kind: def.listKind,
        apiVersion: def.group ? `${def.group}/${def.version}` : def.version,
        metadata: { resourceVersion: String(store.objects.currentRv()) },
        items: def.strategicMerge ? items.map(withoutTypeMeta) : items,
      });
    }
    throw methodNotAllowed();
  }
  const name = ri.name;
  if (method === "PUT") {
    if (sub === "scale")
      return reply(200, updateScale(store, def, ns, name, { scale: parseBody(body, contentType) }, ctx));
    const obj = parseBody(body, contentType);
    if (sub === "finalize") return reply(200, finalizeNamespace(store, def, name, obj));
    return reply(200, renderOne(store.update(def, ns, name, obj, ctx)));
  }
  if (method === "PATCH") {
    if (sub === "scale")
      return reply(200, updateScale(store, def, ns, name, { patch: { type: contentType ?? "", raw } }, ctx));
    if ((contentType ?? "").startsWith("application/apply-patch") && !q.get("fieldManager"))
      throw invalid("meta.k8s.io", "PatchOptions", "", [
        fieldRequired("fieldManager", "is required for apply patch"),
      ]);
    const force = truthy(q.get("force"));
    const r = patchObject(store, def, ns, name, contentType ?? "", raw, ctx, force);
    return reply(r.created ? 201 : 200, renderOne(r.object));
  }
  if (method === "DELETE") {
    if (sub) throw methodNotAllowed();
    const opts = deleteOptions(q, parseBody(body, contentType));
    const r = deleteObject(store, def, ns, name, opts, ctx);
    // kube answers 202 only to the deprecated orphanDependents=false; a pending deletion is 200.
    // The object answered is rendered as asked (kube: transformResponseObject), a Status is not.
    if (!r.deleted) return reply(opts.orphanDependents === false ? 202 : 200, renderOne(r.object));
    if (def.strategy.returnDeletedObject) return reply(200, renderOne(r.object));
    return reply(
      200,
      successStatus({ name, group: def.group, kind: def.resource, uid: r.object.metadata.uid ?? "" }),
    );
  }
  throw methodNotAllowed();
}

function isServedSubresource(def: ResourceDefinition, sub: string): boolean {
  if (sub === "status") return !!def.status;
  if (sub === "scale") return !!def.scale;
  return (def.extraSubresources ?? []).includes(sub);
}

/** PUT namespaces/{name}/finalize: sets spec.finalizers (the namespace controller's lever). */
function finalizeNamespace(
  store: GenericStore,
  def: ResourceDefinition,
  name: string,
  body: unknown,
): KubeObject {
  const stored = store.peek(def, undefined, name);
  if (!stored) throw notFound(def, name);
  const spec = isPlainObject(body) && isPlainObject(body.spec) ? body.spec : {};
  const next = deepClone(stored);
  next.spec = {
    ...(isPlainObject(next.spec) ? next.spec : {}),
    finalizers: Array.isArray(spec.finalizers) ? spec.finalizers : [],
  };
  const done =
    !(next.spec as { finalizers: unknown[] }).finalizers.length && !next.metadata.finalizers?.length;
  if (next.metadata.deletionTimestamp && done)
    return present(def, store.objects.remove("/namespaces", stored, next)!);
  if (JSON.stringify(next) === JSON.stringify(stored)) return present(def, stored);
  return present(def, store.objects.write("/namespaces", next));
}

export { ApiError };

/** Items of a built-in (typed) list carry no kind/apiVersion in kube's JSON; custom resources do. */
function withoutTypeMeta(o: KubeObject): KubeObject {
  const { kind: _kind, apiVersion: _apiVersion, ...rest } = o;
  return rest as KubeObject;
}
