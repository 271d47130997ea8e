/**
 * What the controller's caches keep of each object: client-go's informer TransformFunc. At
 * 10,000 PetSets and 30,000 pods the caches are most of the controller's memory, and the
 * largest part nothing reads is `metadata.managedFields`: one `fieldsV1` tree per field
 * manager, an object per owned field (a heap snapshot of 2,000 x 3 counted 194,000 `"."`
 * leaves alone; docs/benchmarks.md, section 4).
 *
 * Rules:
 *  - Pods keep their metadata, `spec.containers` and `spec.initContainers` as name, image and
 *    resources (in-place resize compares them with the status, planner/in-place-resize.ts),
 *    `spec.nodeName` (lost nodes, planner/node-failure.ts), and `status.phase`, `conditions`, `containerStatuses` and `initContainerStatuses`: what
 *    the planner's pod view (planner/views.ts), adoption, the history GC and the hooks (exec
 *    picks a container by name) read. A new read of any other pod field must be added here
 *    (test/unit/controller/cache-trim.test.ts checks the view of a full pod is unchanged).
 *  - Pods, claims and PetSetVersions: `metadata.managedFields` is dropped. The controller
 *    never reads it, and never writes a whole object back (every write is a patch), so the
 *    server's copy is untouched.
 *  - PetSets: each entry keeps `manager`, `operation`, `subresource`, `time`, `apiVersion`
 *    and `fieldsType`; its `fieldsV1` keeps only `f:spec` -> `f:template` and
 *    `f:spec` -> `f:volumeClaimTemplates` (as empty objects), which is all `changedBy`
 *    (src/versions/describe.ts) reads to name who changed the pod-shaping content.
 *
 *  - Nodes keep their name, uid, resourceVersion and Ready condition (status and
 *    lastTransitionTime) only: heartbeats and everything else are dropped (trimNode).
 *
 * Trimming is in place: client-node's informer stores the very object it hands to its first
 * handler, so the cache keeps the trimmed one (and the copy parsed from the wire is freed).
 */
/** Any API object, as the wire or client-node's models shape it. */
interface ApiObject {
  metadata?: object | undefined;
}

/** The `f:spec` children `changedBy` looks for. */
const CONTENT_FIELDS = ["f:template", "f:volumeClaimTemplates"] as const;

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

/** Keeps of a pod what the controller reads (rule above); managedFields go too. */
export function trimPod(obj: ApiObject & { spec?: object | undefined; status?: object | undefined }): void {
  dropManagedFields(obj);
  const spec = asRecord(obj.spec);
  if (spec !== undefined) {
    const kept: Record<string, unknown> = {};
    for (const field of ["containers", "initContainers"] as const)
      if (Array.isArray(spec[field])) kept[field] = spec[field].map(nameAndImage);
    if (typeof spec.nodeName === "string") kept.nodeName = spec.nodeName;
    obj.spec = kept;
  }
  const status = asRecord(obj.status);
  if (status !== undefined) {
    const kept: Record<string, unknown> = {};
    for (const field of POD_STATUS_FIELDS) if (status[field] !== undefined) kept[field] = status[field];
    obj.status = kept;
  }
}

const POD_STATUS_FIELDS = ["phase", "conditions", "containerStatuses", "initContainerStatuses"] as const;

function nameAndImage(container: unknown): { name?: unknown; image?: unknown; resources?: unknown } {
  const c = asRecord(container) ?? {};
  return { name: c.name, image: c.image, ...(c.resources !== undefined ? { resources: c.resources } : {}) };
}

/** Drops `metadata.managedFields` (claims, PetSetVersions). */
export function dropManagedFields(obj: ApiObject): void {
  const meta = asRecord(obj.metadata);
  if (meta !== undefined && "managedFields" in meta) delete meta.managedFields;
}

/** Keeps of each PetSet managedFields entry what `changedBy` reads. */
export function trimPetSetManagedFields(obj: ApiObject): void {
  const entries = asRecord(obj.metadata)?.managedFields;
  if (!Array.isArray(entries)) return;
  for (const entry of entries) {
    const e = asRecord(entry);
    if (e !== undefined && "fieldsV1" in e) e.fieldsV1 = contentOwnership(e.fieldsV1);
  }
}

function contentOwnership(fieldsV1: unknown): Record<string, unknown> {
  const spec = asRecord(asRecord(fieldsV1)?.["f:spec"]);
  if (spec === undefined) return {};
  const kept: Record<string, unknown> = {};
  for (const f of CONTENT_FIELDS) if (f in spec) kept[f] = {};
  return Object.keys(kept).length > 0 ? { "f:spec": kept } : {};
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
