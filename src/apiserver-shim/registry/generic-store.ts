/**
 * The generic store: every verb, once, for every resource (k8s.io/apiserver's
 * registry/generic/registry.Store). Resource-specific behaviour comes from the
 * ResourceDefinition's strategy. Objects are stored at their storage version and
 * presented at the requested version (the "None" conversion: only apiVersion changes).
 */
import { managedFieldsAfterUpdate } from "../apply/managed-fields.js";
import {
  ApiError,
  alreadyExists,
  badRequest,
  expired,
  fieldInvalid,
  fieldInvalidGo,
  forbidden,
  invalid,
  modifiedConflict,
  notFound,
} from "../errors.js";
import type { FieldError } from "../schema/index.js";
import {
  checkFieldSelector,
  defaultFieldLabels,
  matchesFields,
  parseFieldSelector,
} from "../selectors/field-selector.js";
import { matchesRequirements, parseLabelSelector } from "../selectors/label-selector.js";
import type { ObjectStore } from "../storage/object-store.js";
import type { Clock } from "../time.js";
import { deepClone, deepEqual, type KubeObject } from "../types.js";
import { decodeContinue, encodeContinue } from "./continue-token.js";
import { goEncode, goZeroObject } from "./go-encoding.js";
import {
  generateName,
  initSystemFields,
  keepSystemFields,
  specChanged,
  validateMetadata,
  validateMetadataUpdate,
  validateName,
} from "./object-meta.js";
import { decodeBody } from "./request-body.js";
import { apiVersionOf, grKey, type RequestContext, type ResourceDefinition } from "./resource.js";
import { present, readOnlyView, storedForm } from "./stored-form.js";

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
}

export interface ListResult {
  /** Read-only views (see readOnlyView): serialise, do not mutate. */
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface WriteOptions {
  /** managedFields were already computed (server-side apply). */
  managedFieldsDone?: boolean;
}

export const NAMESPACES_GR = "/namespaces";

/** kube's message when a continue token's revision was compacted (storage/errors.go). */
const CONTINUE_EXPIRED =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

/**
 * The group kube's validation errors name: that of the internal type, so a view over another
 * resource's storage (events.k8s.io Events over core Events) is refused as `Event "x"`.
 */
function internalGroup(def: ResourceDefinition): string {
  return def.storage ? def.storage.group : def.group;
}

export class GenericStore {
  constructor(
    readonly objects: ObjectStore,
    readonly clock: Clock,
  ) {}

  /** The object as stored (no copy), or undefined. */
  peek(def: ResourceDefinition, ns: string | undefined, name: string): KubeObject | undefined {
    return this.objects.get(grKey(def), def.namespaced ? ns : undefined, name);
  }

  get(def: ResourceDefinition, ns: string | undefined, name: string): KubeObject {
    const o = this.peek(def, ns, name);
    if (!o) throw notFound(def, name);
    return present(def, o);
  }

  list(def: ResourceDefinition, ns: string | undefined, opts: ListOptions): ListResult {
    const match = this.matcher(def, opts);
    const scope = def.namespaced ? ns : undefined;
    // Every page of a list shows the objects as of its first page (kube: one etcd revision).
    const token = opts.continue ? decodeContinue(opts.continue) : undefined;
    const stored = token
      ? this.objects.scanAt(grKey(def), scope, token.rv, token.start)
      : this.objects.scan(grKey(def), scope);
    if (stored === undefined) throw expired(CONTINUE_EXPIRED);
    const rv = token ? String(token.rv) : String(this.objects.currentRv());
    const limit = opts.limit && opts.limit > 0 ? opts.limit : Number.POSITIVE_INFINITY;
    // kube counts the items after a page only when nothing filters them (etcd3 store GetList).
    const counted = !opts.labelSelector && !opts.fieldSelector;
    const page: KubeObject[] = [];
    let remaining = 0;
    for (const o of stored) {
      if (page.length >= limit) {
        remaining++;
        if (!counted) break;
        continue;
      }
      // Match on the stored objects when the view is the same shape; copy only what is returned.
      const view = def.convert ? present(def, o) : o;
      if (match(view)) page.push(view);
    }
    const result: ListResult = {
      items: def.convert ? page : page.map((o) => readOnlyView(def, o)),
      resourceVersion: rv,
    };
    if (remaining > 0) {
      result.continue = encodeContinue(rv, keyOf(page[page.length - 1]!));
      if (counted) result.remainingItemCount = remaining;
    }
    return result;
  }

  /** A predicate for label + field selectors; throws BadRequest on bad selectors. */
  matcher(
    def: ResourceDefinition,
    opts: { labelSelector?: string; fieldSelector?: string },
  ): (o: KubeObject) => boolean {
    const labels = opts.labelSelector ? parseLabelSelector(opts.labelSelector) : [];
    const fields = opts.fieldSelector ? parseFieldSelector(opts.fieldSelector) : [];
    const fieldLabels = def.fieldLabels ?? defaultFieldLabels;
    if (fields.length) {
      const probe: KubeObject = { apiVersion: "", kind: "", metadata: {} };
      checkFieldSelector(
        fields,
        new Set(Object.keys({ ...defaultFieldLabels(probe), ...fieldLabels(probe) })),
        def.kind,
      );
    }
    return (o) =>
      matchesRequirements(labels, o.metadata.labels) &&
      (fields.length === 0 || matchesFields(fields, { ...defaultFieldLabels(o), ...fieldLabels(o) }));
  }

  create(
    def: ResourceDefinition,
    ns: string | undefined,
    body: unknown,
    ctx: RequestContext,
    opts: WriteOptions = {},
  ): KubeObject {
    const obj = decodeBody(def, ns, body);
    const m = obj.metadata;
    if (!m.name && m.generateName) m.name = generateName(m.generateName);
    if (m.resourceVersion)
      throw new ApiError(500, "InternalError", "resourceVersion should not be set on objects to be created");
    initSystemFields(obj, ctx.now, def.strategy.tracksGeneration ?? false);
    this.checkUnknownFields(def, obj, ctx);
    def.strategy.applyDefaults?.(obj);
    // kube's field manager sees the decoded, defaulted object, before admission and the
    // strategy: what they set is owned by no one.
    const supplied = m.managedFields !== undefined && m.managedFields.length > 0;
    const managedFields =
      opts.managedFieldsDone || supplied
        ? m.managedFields
        : managedFieldsAfterUpdate({
            old: goZeroObject(apiVersionOf(def), def.kind),
            updated: goEncode(deepClone(obj)),
            type: def.typeRoot(),
            manager: ctx.fieldManager,
            apiVersion: apiVersionOf(def),
            scope: { subresource: "", statusSubresource: !!def.status },
            now: ctx.now,
          });
    def.strategy.prepareForCreate?.(obj, ctx);
    const errs: FieldError[] = [
      ...validateName(m.name, def.nameRule ?? "subdomain"),
      ...validateMetadata(obj),
      ...(def.strategy.validate?.(obj, ctx) ?? []),
    ];
    if (errs.length) throw invalid(internalGroup(def), def.kind, m.name ?? m.generateName ?? "", errs);
    if (def.namespaced) this.checkNamespace(def, m.namespace!, m.name!, true);
    def.strategy.admit?.(obj, ctx);
    def.strategy.canonicalize?.(obj);
    if (managedFields) obj.metadata.managedFields = managedFields;
    else delete obj.metadata.managedFields;
    if (this.peek(def, m.namespace, m.name!)) throw alreadyExists(def, m.name!);
    const encoded = storedForm(def, goEncode(obj));
    if (ctx.dryRun) return present(def, encoded);
    return present(def, this.objects.write(grKey(def), encoded));
  }

  /**
   * PUT semantics: `body` replaces the object (subject to the strategy), with an optional
   * resourceVersion precondition. Returns the stored result (the old object on a no-op).
   */
  update(
    def: ResourceDefinition,
    ns: string | undefined,
    name: string,
    body: unknown,
    ctx: RequestContext,
    opts: WriteOptions = {},
  ): KubeObject {
    const old = this.peek(def, ns, name);
    if (!old) throw notFound(def, name);
    const next = decodeBody(def, ns, body);
    if (next.metadata.name && next.metadata.name !== name)
      throw badRequest(
        `the name of the object (${next.metadata.name}) does not match the name on the URL (${name})`,
      );
    next.metadata.name = name;
    const rv = next.metadata.resourceVersion;
    if (rv && rv !== old.metadata.resourceVersion) throw modifiedConflict(def, name);
    // kube's store.Update names the resource where the kind goes (its TODO: "The Invalid error
    // should have a field for Resource") and prints the uint64 0 with %#v: `0x0`, unquoted.
    if (!rv && !def.strategy.allowUnconditionalUpdate && ctx.subresource === undefined)
      throw invalid(def.group, def.resource, name, [
        fieldInvalidGo("metadata.resourceVersion", 0, "0x0", "must be specified for an update"),
      ]);
    return this.commitUpdate(def, old, next, ctx, opts);
  }

  /** Shared tail of update, patch, status and scale writes. */
  commitUpdate(
    def: ResourceDefinition,
    stored: KubeObject,
    proposed: KubeObject,
    ctx: RequestContext,
    opts: WriteOptions = {},
  ): KubeObject {
    const old = goEncode(present(def, stored));
    let next = proposed;
    // A uid that is not the stored one is refused (422), as kube's ValidateObjectMetaUpdate does:
    // clients put it in a patch as a precondition (e.g. when adopting an object).
    const suppliedUid = next.metadata.uid;
    keepSystemFields(next, old);
    this.checkUnknownFields(def, next, ctx);
    def.strategy.applyDefaults?.(next);
    const sub = ctx.subresource ?? "";
    if (sub === "status") {
      if (def.strategy.prepareForStatusUpdate) def.strategy.prepareForStatusUpdate(next, old, ctx);
      else next = onlyStatusFrom(next, old);
    } else {
      if (def.status) {
        if (old.status === undefined) delete next.status;
        else next.status = deepClone(old.status);
      }
      def.strategy.prepareForUpdate?.(next, old, ctx);
    }
    const metadataUpdate = validateMetadataUpdate(next, old);
    if (suppliedUid && suppliedUid !== old.metadata.uid)
      metadataUpdate.push(fieldInvalid("metadata.uid", suppliedUid, "field is immutable"));
    // kube checks ObjectMeta updates twice: in the common fields of every update
    // (rest.BeforeUpdate) and again in the strategy's ValidateUpdate, so a refused metadata
    // change is two causes (the message names it once).
    const errs: FieldError[] = [...validateMetadata(next), ...metadataUpdate, ...metadataUpdate];
    if (sub === "status") errs.push(...(def.strategy.validateStatusUpdate?.(next, old, ctx) ?? []));
    else errs.push(...(def.strategy.validateUpdate?.(next, old, ctx) ?? []));
    if (errs.length) throw invalid(internalGroup(def), def.kind, old.metadata.name!, errs);
    if (sub === "") def.strategy.admitUpdate?.(next, old, ctx);
    def.strategy.canonicalize?.(next);
    if (def.strategy.tracksGeneration && specChanged(next, old, !!def.status))
      next.metadata.generation = (old.metadata.generation ?? 0) + 1;
    next.apiVersion = apiVersionOf(def);
    next.kind = def.kind;
    next = goEncode(next);
    next.metadata.resourceVersion = old.metadata.resourceVersion;
    if (!opts.managedFieldsDone) {
      const supplied = next.metadata.managedFields;
      const keepSupplied =
        supplied !== undefined && supplied.length > 0 && !deepEqual(supplied, old.metadata.managedFields);
      if (!keepSupplied) {
        next.metadata.managedFields = old.metadata.managedFields;
        const mf = managedFieldsAfterUpdate({
          old,
          updated: next,
          type: def.typeRoot(),
          manager: ctx.fieldManager,
          apiVersion: apiVersionOf(def),
          scope: { subresource: sub, statusSubresource: !!def.status },
          now: ctx.now,
        });
        if (mf) next.metadata.managedFields = mf;
        else delete next.metadata.managedFields;
      } else if (supplied.length === 1 && Object.keys(supplied[0] ?? {}).length === 0) {
        delete next.metadata.managedFields; // `[{}]` resets ownership, as in kube
      }
    }
    if (sameIgnoringManagedFields(next, old)) return old;
    if (ctx.dryRun) return next;
    const m = next.metadata;
    const finalized = !m.finalizers?.length && !def.strategy.pendingFinalization?.(next);
    if (m.deletionTimestamp && finalized && !(m.deletionGracePeriodSeconds ?? 0)) {
      // kube's deleteWithoutFinalizers answers with the updated object at the resourceVersion
      // it was last stored with; only the DELETED event carries the deletion's.
      const final = storedForm(def, next);
      this.objects.remove(grKey(def), stored, final);
      return present(def, {
        ...final,
        metadata: { ...final.metadata, resourceVersion: old.metadata.resourceVersion },
      });
    }
    return present(def, this.objects.write(grKey(def), storedForm(def, next)));
  }

  /** Internal write for the shim's own controllers (GC, namespace and CRD finalizers). */
  writeInternal(def: ResourceDefinition, obj: KubeObject, manager: string): KubeObject | undefined {
    const old = this.peek(def, obj.metadata.namespace, obj.metadata.name!);
    if (!old) return undefined;
    const ctx: RequestContext = {
      fieldManager: manager,
      dryRun: false,
      now: this.clock.now(),
      warnings: [],
      fieldValidation: "Ignore",
    };
    const next = deepClone(obj);
    next.metadata.resourceVersion = old.metadata.resourceVersion;
    return this.commitUpdate(def, old, next, ctx);
  }

  checkNamespace(def: ResourceDefinition, ns: string, name: string, creating: boolean): void {
    const nsObj = this.objects.get(NAMESPACES_GR, undefined, ns);
    if (!nsObj) throw notFound({ group: "", resource: "namespaces" }, ns);
    if (creating && nsObj.metadata.deletionTimestamp)
      throw forbidden(
        def,
        name,
        `unable to create new content in namespace ${ns} because it is being terminated`,
        [
          {
            reason: "NamespaceTerminating",
            message: `namespace ${ns} is being terminated`,
            field: "metadata.namespace",
          },
        ],
      );
  }

  private checkUnknownFields(def: ResourceDefinition, obj: KubeObject, ctx: RequestContext): void {
    const unknown = ctx.fieldValidation === "Ignore" ? [] : (def.strategy.unknownFields?.(obj) ?? []);
    def.strategy.dropUnknownFields?.(obj);
    if (!unknown.length) return;
    const list = unknown.map((f) => `unknown field "${f}"`);
    if (ctx.fieldValidation === "Strict")
      throw badRequest(
        `${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: strict decoding error: ${list.join(", ")}`,
      );
    ctx.warnings.push(...list);
  }
}

function onlyStatusFrom(next: KubeObject, old: KubeObject): KubeObject {
  const out = deepClone(old);
  if (next.status === undefined) delete out.status;
  else out.status = next.status;
  if (next.metadata.managedFields !== undefined) out.metadata.managedFields = next.metadata.managedFields;
  else delete out.metadata.managedFields;
  return out;
}

function sameIgnoringManagedFields(a: KubeObject, b: KubeObject): boolean {
  if (!deepEqual(a.metadata.managedFields, b.metadata.managedFields)) {
    const strip = (o: KubeObject) => ({ ...o, metadata: { ...o.metadata, managedFields: undefined } });
    // Ownership-only changes are real writes in kube too, but timestamps alone are not.
    return deepEqual(strip(a), strip(b)) && deepEqual(withoutTimes(a), withoutTimes(b));
  }
  return deepEqual(a, b);
}

function withoutTimes(o: KubeObject): unknown {
  return (o.metadata.managedFields ?? []).map((e) => ({ ...e, time: undefined }));
}

function keyOf(o: KubeObject): string {
  return `${o.metadata.namespace ?? ""}/${o.metadata.name}`;
}
