/**
 * StatefulSet manifest -> PetSet manifest (pure). PetSet field names match apps/v1 where
 * they overlap (SPEC.md), so converting keeps those fields as written, changes apiVersion
 * and kind, and drops what the API server set (status, uid, resourceVersion, managedFields,
 * ...). What a PetSet cannot express is refused with the field named, never dropped quietly:
 * a manifest in Git that silently lost a field would drift from the running set.
 */
import { API_VERSION, PETSET_KIND } from "../../../api/index.js";
import { selectorMatches } from "../../../controller/planner/ownership.js";
import { PluginError } from "../errors.js";
import { STATEFULSET_API_VERSION, STATEFULSET_KIND } from "./objects.js";

type Json = Record<string, unknown>;

/** A StatefulSet field petset cannot express, or a manifest that is no StatefulSet. */
export class ConvertError extends PluginError {
  override name = "ConvertError";
  constructor(
    readonly what: string,
    readonly field: string,
    detail: string,
  ) {
    super("Invalid", `${what}: ${field ? `${field}: ` : ""}${detail}`);
  }
}

/** Spec fields carried over unchanged (same name, same meaning). */
const SAME_FIELDS = [
  "replicas",
  "selector",
  "serviceName",
  "template",
  "volumeClaimTemplates",
  "podManagementPolicy",
  "ordinals",
  "updateStrategy",
  "minReadySeconds",
  "revisionHistoryLimit",
  "persistentVolumeClaimRetentionPolicy",
] as const;

/** Annotations the API server or kubectl wrote about the StatefulSet, not the user. */
const DROPPED_ANNOTATIONS = new Set(["kubectl.kubernetes.io/last-applied-configuration"]);
/**
 * Object labels and annotations under `petset.dev/` are bookkeeping of petset's tools (adopt's
 * and release's snapshots, where an object came from), never part of a manifest for Git.
 */
const BOOKKEEPING_PREFIX = "petset.dev/";

/** Labels or annotations of the object's metadata, without bookkeeping and `dropped`. */
function userKeys(map: unknown, dropped: ReadonlySet<string> = new Set()): Json {
  if (!isObject(map)) return {};
  return Object.fromEntries(
    Object.entries(map).filter(([k]) => !dropped.has(k) && !k.startsWith(BOOKKEEPING_PREFIX)),
  );
}

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The PetSet manifest for a StatefulSet object (as read from a file or the API). Keeps
 * metadata.name, namespace, labels and annotations; the overlapping spec fields; nothing
 * else. Throws ConvertError naming the first field petset cannot express.
 */
export function convertStatefulSet(object: unknown): Json {
  if (!isObject(object)) throw new ConvertError("manifest", "", "not an object");
  const metadata = isObject(object.metadata) ? object.metadata : {};
  const name = typeof metadata.name === "string" ? metadata.name : "";
  const what = `statefulset "${name || "<no name>"}"`;
  if (object.kind !== STATEFULSET_KIND)
    throw new ConvertError(what, "kind", `is ${JSON.stringify(object.kind)}, expected StatefulSet`);
  if (object.apiVersion !== STATEFULSET_API_VERSION)
    throw new ConvertError(what, "apiVersion", `is ${JSON.stringify(object.apiVersion)}, expected apps/v1`);
  if (name === "") throw new ConvertError(what, "metadata.name", "is required");
  if (!isObject(object.spec)) throw new ConvertError(what, "spec", "is required");
  const spec = object.spec;

  for (const key of Object.keys(spec))
    if (!(SAME_FIELDS as readonly string[]).includes(key))
      throw new ConvertError(what, `spec.${key}`, "has no PetSet equivalent");
  const out: Json = {};
  for (const key of SAME_FIELDS) if (spec[key] !== undefined && spec[key] !== null) out[key] = spec[key];
  if (out.serviceName === "") delete out.serviceName;

  checkSelector(what, out);
  checkEnum(what, out, "podManagementPolicy", ["OrderedReady", "Parallel"]);
  checkUpdateStrategy(what, out.updateStrategy);
  checkKeys(what, "spec.ordinals", out.ordinals, ["start"]);
  checkRetention(what, out.persistentVolumeClaimRetentionPolicy);
  out.template = cleanTemplate(out.template);
  if (out.volumeClaimTemplates !== undefined)
    out.volumeClaimTemplates = cleanClaimTemplates(what, out.volumeClaimTemplates);

  const labels = userKeys(metadata.labels);
  const annotations = userKeys(metadata.annotations, DROPPED_ANNOTATIONS);
  return {
    apiVersion: API_VERSION,
    kind: PETSET_KIND,
    metadata: {
      name,
      ...(typeof metadata.namespace === "string" ? { namespace: metadata.namespace } : {}),
      ...(Object.keys(labels).length > 0 ? { labels } : {}),
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    },
    spec: out,
  };
}

function checkSelector(what: string, spec: Json): void {
  const selector = spec.selector;
  if (!isObject(selector)) throw new ConvertError(what, "spec.selector", "is required");
  const matchLabels = isObject(selector.matchLabels) ? selector.matchLabels : {};
  const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
  if (Object.keys(matchLabels).length === 0 && expressions.length === 0)
    throw new ConvertError(what, "spec.selector", "is empty: a PetSet needs matchLabels or matchExpressions");
  const template = isObject(spec.template) ? spec.template : {};
  const templateMeta = isObject(template.metadata) ? template.metadata : {};
  const labels = isObject(templateMeta.labels) ? (templateMeta.labels as Record<string, string>) : {};
  if (!selectorMatches(selector, labels))
    throw new ConvertError(what, "spec.selector", "does not match spec.template.metadata.labels");
}

function checkEnum(what: string, spec: Json, key: string, allowed: readonly string[]): void {
  const value = spec[key];
  if (value !== undefined && !allowed.includes(String(value)))
    throw new ConvertError(
      what,
      `spec.${key}`,
      `${JSON.stringify(value)} is not one of ${allowed.join(", ")}`,
    );
}

function checkKeys(what: string, path: string, value: unknown, allowed: readonly string[]): void {
  if (value === undefined) return;
  if (!isObject(value)) throw new ConvertError(what, path, "must be an object");
  for (const key of Object.keys(value))
    if (!allowed.includes(key)) throw new ConvertError(what, `${path}.${key}`, "has no PetSet equivalent");
}

function checkUpdateStrategy(what: string, strategy: unknown): void {
  checkKeys(what, "spec.updateStrategy", strategy, ["type", "rollingUpdate"]);
  if (!isObject(strategy)) return;
  checkEnum(what, { "updateStrategy.type": strategy.type }, "updateStrategy.type", [
    "RollingUpdate",
    "OnDelete",
  ]);
  checkKeys(what, "spec.updateStrategy.rollingUpdate", strategy.rollingUpdate, [
    "partition",
    "maxUnavailable",
  ]);
  const rolling = isObject(strategy.rollingUpdate) ? strategy.rollingUpdate : {};
  const max = rolling.maxUnavailable;
  if (max !== undefined && !(typeof max === "number" ? max > 0 : /^[0-9]*[1-9][0-9]*%$/.test(String(max))))
    throw new ConvertError(
      what,
      "spec.updateStrategy.rollingUpdate.maxUnavailable",
      `${JSON.stringify(max)}: must be a positive integer or a percentage greater than 0%`,
    );
}

function checkRetention(what: string, policy: unknown): void {
  const path = "spec.persistentVolumeClaimRetentionPolicy";
  checkKeys(what, path, policy, ["whenDeleted", "whenScaled"]);
  if (!isObject(policy)) return;
  for (const key of ["whenDeleted", "whenScaled"])
    checkEnum(what, { [`${path.slice(5)}.${key}`]: policy[key] }, `${path.slice(5)}.${key}`, [
      "Retain",
      "Delete",
    ]);
}

/** The template as written, without the `creationTimestamp: null` Go writes into every one. */
function cleanTemplate(template: unknown): Json {
  if (!isObject(template)) return {};
  const copy = structuredClone(template);
  if (isObject(copy.metadata)) {
    delete copy.metadata.creationTimestamp;
    if (Object.keys(copy.metadata).length === 0) delete copy.metadata;
  }
  return copy;
}

/** Claim templates without observed state (`status`) and server-written metadata. */
function cleanClaimTemplates(what: string, templates: unknown): Json[] {
  if (!Array.isArray(templates)) throw new ConvertError(what, "spec.volumeClaimTemplates", "must be a list");
  const seen = new Set<string>();
  return templates.map((t, i) => {
    const path = `spec.volumeClaimTemplates[${i}]`;
    if (!isObject(t)) throw new ConvertError(what, path, "must be an object");
    const copy = structuredClone(t);
    delete copy.status;
    const meta = isObject(copy.metadata) ? copy.metadata : {};
    delete meta.creationTimestamp;
    const claim = meta.name;
    if (typeof claim !== "string" || claim === "")
      throw new ConvertError(what, `${path}.metadata.name`, "is required");
    if (seen.has(claim)) throw new ConvertError(what, `${path}.metadata.name`, `"${claim}" is used twice`);
    seen.add(claim);
    return copy;
  });
}
