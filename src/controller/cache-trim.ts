/**
 * What the controller's caches keep of each object: client-go's informer TransformFunc. At
 * 10,000 PetSets and 30,000 pods the caches are most of the controller's memory (issue 29:
 * ≤ 300 MiB RSS there; bytes per object: `node --expose-gc dist/bench/cache-bytes.js`).
 *
 * Rules:
 *  - Pods keep (trimPod):
 *    - metadata: everything but `managedFields` (adoption, hooks, state formats and the
 *      expectations read names, labels, annotations, owners, finalizers and times);
 *    - spec: `containers` and `initContainers` as name, image and resources (in-place resize
 *      compares them with the status, planner/in-place-resize.ts; exec hooks pick a container
 *      by name) and `nodeName` (lost nodes, planner/node-failure.ts);
 *    - status: `phase`; the conditions the planner's view reads (POD_CONDITIONS) as type,
 *      status, reason, message and lastTransitionTime; container statuses as name, image,
 *      ready, restartCount, resources, and of `state` / `lastState` the waiting reason, the
 *      running start and the terminated end (crash loops, planner/views.ts).
 *    A new read of any other pod field must be added here: test/unit/controller/cache-trim.test.ts
 *    checks that the planner's view, adoption's view and the hooks' container list of trimmed
 *    pods equal those of full ones, and that a plan over them is the same.
 *  - Pods, claims, PetSets, PetSetVersions: `metadata.managedFields` is dropped (PetSets keep the
 *    part `changedBy` reads, below). The controller never reads it, and never writes a whole
 *    object back (every write is a patch), so the server's copy is untouched.
 *  - PetSets: managedFields keep only the entries `changedBy` (src/versions/describe.ts) can
 *    name: a string `manager`, no subresource, a `fieldsV1` owning `f:spec` -> `f:template`
 *    or `f:volumeClaimTemplates`; of each, `manager`, `time` and that ownership (one shared,
 *    frozen object per combination), in their order. changedBy names the same author
 *    (a fast-check property in cache-trim.test.ts).
 *  - PetSets and PetSetVersions: the short strings of their spec (images, enum values, label
 *    values) are shared as those of pods are (`internStrings`); the rest of both is parsed and
 *    held once (parsed-cache.ts).
 *  - Nodes keep their name, uid, resourceVersion and Ready condition (status and
 *    lastTransitionTime) only: heartbeats and everything else are dropped (trimNode).
 *  - Times of kept pod and claim fields are the API's strings: client-node's typed lists make
 *    `Date` objects of them (about 80 bytes each), a watch event leaves strings; every reader
 *    takes both (planner/views.ts `toMillis`).
 *  - Strings many objects repeat (namespaces, label and annotation values, owner kinds, images,
 *    condition types, phases, whole-second times) are shared through one bounded table
 *    (`intern`); names, uids and resourceVersions are unique and are not. Owner references
 *    are shared whole (frozen), one copy per content: a PetSet's pods carry the same one.
 *  - Parts many objects repeat are shared whole, one frozen copy per content (`sharedByContent`):
 *    a pod's kept spec (pods of one version on one node), annotations, kept conditions and
 *    container statuses (pods that started in the same second), the planner's container views
 *    (parsed-cache.ts); a parsed PetSet's or version's pod template spec and the spec's other
 *    objects but selector and template (`shareSpecParts`): versions with one template, and their
 *    sets, hold one copy. At 10,000 PetSets x 3 pods: 10,127 -> 6,031 bytes per PetSet with its
 *    pods and version (cache-bytes). Frozen, so a reader that writes to one throws (strict mode)
 *    instead of changing thousands of objects.
 *
 * Trimming is in place at the top level: client-node's informer stores the very object it
 * hands to its first handler, so the cache keeps the trimmed one (and the copy parsed from the
 * wire is freed). A trimmed object is read only, as every cache object.
 */
import { SharedCopies } from "../util/shared-copies.js";

/** Any API object, as the wire or client-node's models shape it. */
interface ApiObject {
  metadata?: object | undefined;
}

type Rec = Record<string, unknown>;

/** The `f:spec` children `changedBy` looks for. */
const CONTENT_FIELDS = ["f:template", "f:volumeClaimTemplates"] as const;

/** The pod conditions the planner's view reads (planner/views.ts). */
export const POD_CONDITIONS: ReadonlySet<string> = new Set([
  "Ready",
  "PodResizePending",
  "PodResizeInProgress",
]);

/**
 * Keeps of a node only its name, uid, resourceVersion and Ready condition (status, time): what
 * lost-node decisions read (planner/node-failure.ts). Heartbeats change nothing kept.
 */
export function trimNode(obj: ApiObject & { spec?: object | undefined; status?: object | undefined }): void {
  const meta = asRecord(obj.metadata) ?? {};
  obj.metadata = { name: meta.name, uid: meta.uid, resourceVersion: meta.resourceVersion };
  const status = asRecord(obj.status);
  const conditions = Array.isArray(status?.conditions) ? status.conditions : [];
  const ready = conditions.map(asRecord).find((c) => c?.type === "Ready");
  obj.spec = {};
  obj.status = {
    conditions:
      ready === undefined
        ? []
        : [{ type: "Ready", status: ready.status, lastTransitionTime: ready.lastTransitionTime }],
  };
}

/** Keeps of a pod what the controller reads (rules above). */
export function trimPod(obj: ApiObject & { spec?: object | undefined; status?: object | undefined }): void {
  obj.metadata = trimMeta(obj.metadata);
  const spec = asRecord(obj.spec);
  if (spec !== undefined) {
    const kept: Rec = {};
    for (const field of ["containers", "initContainers"] as const)
      if (Array.isArray(spec[field])) kept[field] = spec[field].map(containerSpec);
    if (typeof spec.nodeName === "string") kept.nodeName = intern(spec.nodeName);
    obj.spec = sharedByContent(kept);
  }
  const status = asRecord(obj.status);
  if (status !== undefined) {
    const kept: Rec = {};
    if (status.phase !== undefined) kept.phase = intern(status.phase);
    if (Array.isArray(status.conditions)) kept.conditions = sharedByContent(podConditions(status.conditions));
    for (const field of ["containerStatuses", "initContainerStatuses"] as const)
      if (Array.isArray(status[field])) kept[field] = sharedByContent(status[field].map(containerStatus));
    obj.status = kept;
  }
}

/** Claims: managedFields dropped, times as strings, repeated strings shared. */
export function trimClaim(obj: ApiObject): void {
  obj.metadata = trimMeta(obj.metadata);
}

function containerSpec(container: unknown): Rec {
  const c = asRecord(container) ?? {};
  const kept: Rec = { name: intern(c.name), image: intern(c.image) };
  if (c.resources !== undefined) kept.resources = c.resources;
  return kept;
}

function podConditions(conditions: readonly unknown[]): Rec[] {
  const kept: Rec[] = [];
  for (const condition of conditions) {
    const c = asRecord(condition);
    if (c === undefined || typeof c.type !== "string" || !POD_CONDITIONS.has(c.type)) continue;
    const k: Rec = { type: intern(c.type), status: intern(c.status) };
    if (c.reason !== undefined) k.reason = intern(c.reason);
    if (c.message !== undefined) k.message = c.message;
    if (c.lastTransitionTime != null) k.lastTransitionTime = time(c.lastTransitionTime);
    kept.push(k);
  }
  return kept;
}

function containerStatus(status: unknown): Rec {
  const s = asRecord(status) ?? {};
  const kept: Rec = { name: intern(s.name), ready: s.ready, restartCount: s.restartCount };
  if (s.image !== undefined) kept.image = intern(s.image);
  if (s.resources !== undefined) kept.resources = s.resources;
  const state = containerState(s.state);
  if (state !== undefined) kept.state = state;
  const last = containerState(s.lastState);
  if (last !== undefined) kept.lastState = last;
  return kept;
}

/** Of a container state: the waiting reason, the running start, the terminated end. */
function containerState(value: unknown): Rec | undefined {
  const state = asRecord(value);
  if (state === undefined) return undefined;
  const kept: Rec = {};
  const waiting = asRecord(state.waiting);
  if (waiting !== undefined)
    kept.waiting = waiting.reason === undefined ? {} : { reason: intern(waiting.reason) };
  const running = asRecord(state.running);
  if (running !== undefined)
    kept.running = running.startedAt == null ? {} : { startedAt: time(running.startedAt) };
  const terminated = asRecord(state.terminated);
  if (terminated !== undefined)
    kept.terminated = terminated.finishedAt == null ? {} : { finishedAt: time(terminated.finishedAt) };
  return kept;
}

/** Metadata without managedFields, times as strings, repeated strings shared (a new plain object). */
function trimMeta(metadata: object | undefined): Rec | undefined {
  const meta = asRecord(metadata);
  if (meta === undefined) return undefined;
  const kept: Rec = {};
  for (const [k, v] of Object.entries(meta)) {
    if (v === undefined || k === "managedFields") continue;
    if (k === "namespace" || k === "generateName") kept[k] = intern(v);
    else if (k === "creationTimestamp" || k === "deletionTimestamp") kept[k] = time(v);
    else if (k === "labels") kept[k] = internValues(v);
    else if (k === "annotations") kept[k] = sharedByContent(internValues(v));
    else if (k === "ownerReferences" && Array.isArray(v)) kept[k] = sharedOwnerReferences(v);
    else kept[k] = v;
  }
  return kept;
}

/**
 * Owner references, one copy per content: the pods of a PetSet carry the same one (about 0.2 KB
 * a pod). A table of their own, sized for one entry per PetSet: they would crowd the repeated
 * parts below out of theirs.
 */
const ownerRefs = new SharedCopies(16_384);

function sharedOwnerReferences(refs: readonly unknown[]): readonly unknown[] {
  return ownerRefs.share(refs.map(ownerReference));
}

function ownerReference(ref: unknown): unknown {
  const r = asRecord(ref);
  if (r === undefined) return ref;
  const kept: Rec = {};
  for (const [k, v] of Object.entries(r)) {
    if (v === undefined) continue;
    kept[k] = k === "apiVersion" || k === "kind" || k === "name" ? intern(v) : v;
  }
  return kept;
}

function internValues(value: unknown): unknown {
  const map = asRecord(value);
  if (map === undefined) return value;
  const kept: Rec = {};
  for (const [k, v] of Object.entries(map)) kept[k] = intern(v);
  return kept;
}

/** Drops `metadata.managedFields` (PetSetVersions, StorageClasses). */
export function dropManagedFields(obj: ApiObject): void {
  const meta = asRecord(obj.metadata);
  if (meta !== undefined && "managedFields" in meta) delete meta.managedFields;
}

/** Keeps of a PetSet's managedFields the entries `changedBy` can name, as much as it reads. */
export function trimPetSetManagedFields(obj: ApiObject): void {
  const meta = asRecord(obj.metadata);
  const entries = meta?.managedFields;
  if (meta === undefined || !Array.isArray(entries)) return;
  const kept: Rec[] = [];
  for (const entry of entries) {
    const e = asRecord(entry);
    if (e === undefined || typeof e.manager !== "string") continue;
    if (typeof e.subresource === "string" && e.subresource !== "") continue;
    const owned = contentOwnership(e.fieldsV1);
    if (owned === undefined) continue;
    kept.push({ manager: intern(e.manager), time: time(e.time), fieldsV1: owned });
  }
  meta.managedFields = kept;
}

/** One frozen ownership object per combination of CONTENT_FIELDS owned. */
const OWNERSHIP = new Map<string, Rec>();

function contentOwnership(fieldsV1: unknown): Rec | undefined {
  const spec = asRecord(asRecord(fieldsV1)?.["f:spec"]);
  if (spec === undefined) return undefined;
  const owned = CONTENT_FIELDS.filter((f) => f in spec);
  if (owned.length === 0) return undefined;
  const key = owned.join(",");
  let shared = OWNERSHIP.get(key);
  if (shared === undefined) {
    const fields = Object.freeze(Object.fromEntries(owned.map((f) => [f, Object.freeze({})])));
    shared = Object.freeze({ "f:spec": fields });
    OWNERSHIP.set(key, shared);
  }
  return shared;
}

/**
 * Shares the strings every PetSet and version repeats outside its spec (in place): apiVersion,
 * kind, namespace, label values, the type, status and reason of status conditions (10,000
 * PetSets held 10,000 copies of each), and owner references' apiVersion, kind and name.
 */
export function internEnvelope(
  obj: ApiObject & { apiVersion?: unknown; kind?: unknown; status?: unknown },
): void {
  if (typeof obj.apiVersion === "string") obj.apiVersion = intern(obj.apiVersion);
  if (typeof obj.kind === "string") obj.kind = intern(obj.kind);
  const meta = asRecord(obj.metadata);
  if (meta !== undefined) {
    if (typeof meta.namespace === "string") meta.namespace = intern(meta.namespace);
    if (meta.labels !== undefined) meta.labels = internValues(meta.labels);
    // Not shared as pods' are: a version's one owner reference is its own (sharing cost 88 bytes).
    if (Array.isArray(meta.ownerReferences)) meta.ownerReferences = meta.ownerReferences.map(ownerReference);
  }
  const conditions = asRecord(obj.status)?.conditions;
  if (Array.isArray(conditions))
    for (const condition of conditions) {
      const c = asRecord(condition);
      if (c === undefined) continue;
      c.type = intern(c.type);
      c.status = intern(c.status);
      if (c.reason !== undefined) c.reason = intern(c.reason);
    }
}

/**
 * One frozen copy per content of the parts of a pod many pods repeat: the kept spec (same
 * version, same node), annotations, the kept conditions and container statuses (same second)
 * and the planner's container views (parsed-cache.ts); and of PetSets and versions what
 * `shareSpecParts` names. Fewer entries than `intern`'s table: each holds its key (about 0.1 KB).
 */
const sharedParts = new SharedCopies(4_096);

export function sharedByContent<T>(value: T): T {
  return sharedParts.share(value);
}

/**
 * Shares (sharedByContent) the parts of a parsed PetSet's or version's spec that sets repeat:
 * the pod template's spec and every other object of the spec but the selector and the
 * template (strategies, retention policies, claim templates, a version's delta). In place.
 */
export function shareSpecParts(obj: object): void {
  const spec = asRecord(asRecord(obj)?.spec);
  if (spec === undefined) return;
  for (const [k, v] of Object.entries(spec))
    if (k !== "selector" && k !== "template" && typeof v === "object" && v !== null)
      spec[k] = sharedByContent(v);
  const template = asRecord(spec.template);
  if (template !== undefined && template.spec !== undefined) template.spec = sharedByContent(template.spec);
}

/**
 * Shares every short string of a JSON tree (in place): a PetSet's or a version's spec, where
 * images, enum values and label values repeat across thousands of objects.
 */
export function internStrings(value: unknown): unknown {
  if (typeof value === "string") return intern(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = internStrings(value[i]);
  } else if (typeof value === "object" && value !== null && !(value instanceof Date)) {
    const rec = value as Rec;
    for (const key of Object.keys(rec)) rec[key] = internStrings(rec[key]);
  }
  return value;
}

/**
 * Shared copies of short strings. Bounded: when full the table starts again (strings already
 * shared stay shared), so a long-running controller does not grow it with every new time.
 */
const INTERN_MAX_LENGTH = 64;
const INTERN_MAX_ENTRIES = 16_384;
let interned = new Map<string, string>();

export function intern<T>(value: T): T {
  if (typeof value !== "string" || value.length > INTERN_MAX_LENGTH) return value;
  const known = interned.get(value);
  if (known !== undefined) return known as T;
  if (interned.size >= INTERN_MAX_ENTRIES) interned = new Map();
  interned.set(value, value);
  return value;
}

/** A time as the API's string (client-node's typed lists hold Date objects), shared. */
function time(value: unknown): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? value : intern(apiTime(value));
  return intern(value);
}

/** RFC 3339 as the API writes it: whole seconds without a fraction, else milliseconds. */
function apiTime(d: Date): string {
  const iso = d.toISOString();
  return iso.endsWith(".000Z") ? `${iso.slice(0, -5)}Z` : iso;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
