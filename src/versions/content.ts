import type { ClaimTemplate, PetSetSpec, PetSetVersion, PodTemplate } from "../api/index.js";
import { isCanonicalDefault } from "./canonical-defaults.js";
import { canonicalJson, compareCodeUnits, type Json, type JsonObject } from "./canonical-json.js";
import { canonicalQuantity } from "./quantity.js";

/**
 * The pod-shaping part of a PetSet spec: what a version records and what decides whether a
 * change is a new version. `replicas`, `paused`, `updateStrategy` and the like are left out
 * on purpose: scaling by an autoscaler must not flood history.
 */
export interface VersionContent {
  readonly template: PodTemplate;
  readonly volumeClaimTemplates: ClaimTemplate[];
}

/**
 * The versioned content exactly as the user wrote it (a deep copy: cache objects are never
 * shared with, or mutated through, what we build from them).
 */
export function versionedContent(
  spec: Pick<PetSetSpec, "template" | "volumeClaimTemplates">,
): VersionContent {
  return structuredClone({ template: spec.template, volumeClaimTemplates: spec.volumeClaimTemplates ?? [] });
}

/** What `specContent` gives a spec without claim templates: one frozen list, so it is a cache key. */
const NO_CLAIMS: ClaimTemplate[] = Object.freeze([]) as unknown as ClaimTemplate[];

/**
 * The spec's versioned content shared, not copied: for comparing only (read only). A sync
 * compares the PetSet with its history every time; a parsed PetSet is one object per cache
 * object (controller/parsed-cache.ts), so its canonical form is computed once, not per sync
 * (`versionedContent`'s copy made every sync a cache miss: ~6 % of the controller's CPU in
 * the versions benchmark, docs/benchmarks.md).
 */
export function specContent(spec: Pick<PetSetSpec, "template" | "volumeClaimTemplates">): VersionContent {
  return { template: spec.template, volumeClaimTemplates: spec.volumeClaimTemplates ?? NO_CLAIMS };
}

/** The versioned content a version recorded (shared, not copied: read only). */
export function contentOf(version: PetSetVersion): VersionContent {
  return { template: version.spec.template, volumeClaimTemplates: version.spec.volumeClaimTemplates };
}

/**
 * Maps whose keys are data, not field names. Their entries are kept even when the value is
 * the empty string (`tier: ""` is a label), no default rule looks inside them, and an empty
 * map means the same as none (pods are stored as protobuf, where the two are one thing).
 */
const FREE_FORM_MAPS = new Set(["labels", "annotations", "nodeSelector", "matchLabels"]);

/** Maps from resource name to quantity: free-form maps whose values are compared by amount. */
const QUANTITY_MAPS = new Set(["requests", "limits", "overhead"]);

/** Single quantity fields (`emptyDir.sizeLimit`, `resourceFieldRef.divisor`). */
const QUANTITY_FIELDS = new Set(["sizeLimit", "divisor"]);

/**
 * The canonical form of versioned content, used for hashing and equality and never stored.
 * Two contents with the same canonical form run the same pods. Rules, each because:
 *
 * 1. Object keys are sorted (by `canonicalJson`): key order carries no meaning in JSON and
 *    differs between kubectl, server-side apply and hand-written YAML.
 * 2. `null` and absent are the same: JSON null is how Kubernetes spells "unset" (merge
 *    patches delete with it, Go writes nil pointers and zero times as null).
 * 3. An empty list is the same as an absent one, at every depth: pods are stored as
 *    protobuf, where an empty repeated field and a missing one cannot be told apart, and Go
 *    omits both. List elements are never dropped or reordered: order is meaning for
 *    containers (start order), env (`$(VAR)` expansion) and args.
 * 4. An empty free-form map (labels, annotations, nodeSelector, matchLabels, requests,
 *    limits, overhead) is the same as an absent one, for the same protobuf reason.
 * 5. Quantities compare by value (`cpu: 1`, `"1"` and `1000m` are one amount), see
 *    quantity.ts. Other int-or-string fields are not touched: a port `"8080"` is a port
 *    *name* to Kubernetes, not the number 8080.
 * 6. A field whose value is the Kubernetes default is the same as an absent one, at the
 *    paths listed in canonical-defaults.ts (each with its reason). Other empty objects are
 *    kept, because there presence is meaning: `emptyDir: {}` picks the volume type and
 *    `labelSelector: {}` in an affinity term matches every pod where an absent one matches
 *    none.
 * 7. Empty strings and `false` are kept: `storageClassName: ""` means "no class" while
 *    absent means "the default class", and `automountServiceAccountToken: false` is not
 *    the default.
 *
 * Equality always recomputes both sides with the running controller's rules (see
 * `sameContent`), so even a later change of these rules cannot cause a rollout by itself.
 */
export function canonicalContent(content: VersionContent): JsonObject {
  return canonicalObject(
    { template: content.template, volumeClaimTemplates: content.volumeClaimTemplates },
    "",
  );
}

/** Whether two contents run the same pods, judged by today's canonical rules. */
export function sameContent(a: VersionContent, b: VersionContent): boolean {
  return canonicalContentJson(a) === canonicalContentJson(b);
}

/**
 * Canonical JSON computed once per content, keyed by its template object. Recorded content
 * is read only and each cached version is parsed once (controller/sync.ts), so a sync
 * comparing the PetSet with its whole history canonicalizes only the PetSet's side; that
 * recomputation, once per version per sync, was most of a sync's CPU (docs/benchmarks.md).
 * The canonical rules are this process's, so a cached form is never stale.
 */
const canonicalJsonCache = new WeakMap<object, { claims: readonly ClaimTemplate[]; json: string }>();

export function canonicalContentJson(content: VersionContent): string {
  const hit = canonicalJsonCache.get(content.template);
  if (hit !== undefined && hit.claims === content.volumeClaimTemplates) return hit.json;
  const json = canonicalJson(canonicalContent(content));
  canonicalJsonCache.set(content.template, { claims: content.volumeClaimTemplates, json });
  return json;
}

function canonicalValue(value: unknown, path: string): Json | undefined {
  if (value === null || value === undefined) return undefined;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((item) => canonicalValue(item, `${path}[]`) ?? null);
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : undefined;
    case "object":
      return canonicalObject(value as Record<string, unknown>, path);
    default:
      return undefined;
  }
}

function canonicalObject(object: Readonly<Record<string, unknown>>, path: string): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(object).sort(compareCodeUnits)) {
    const childPath = path === "" ? key : `${path}.${key}`;
    const raw = object[key];
    let child: Json | undefined;
    if (FREE_FORM_MAPS.has(key)) child = canonicalMap(raw, childPath, false);
    else if (QUANTITY_MAPS.has(key)) child = canonicalMap(raw, childPath, true);
    else if (QUANTITY_FIELDS.has(key)) child = quantityOrValue(raw, childPath);
    else child = canonicalValue(raw, childPath);
    if (child === undefined || (Array.isArray(child) && child.length === 0)) continue;
    if (isCanonicalDefault(childPath, child, object)) continue;
    out[key] = child;
  }
  return out;
}

function canonicalMap(value: unknown, path: string, quantities: boolean): Json | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return canonicalValue(value, path);
  const out: JsonObject = {};
  for (const [key, entry] of Object.entries(value)) {
    const child = quantities ? quantityOrValue(entry, path) : canonicalValue(entry, path);
    if (child !== undefined) out[key] = child;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** A quantity's exact value, or the value untouched when it is not a quantity (invalid anyway). */
function quantityOrValue(value: unknown, path: string): Json | undefined {
  if (typeof value === "string" || typeof value === "number") {
    const quantity = canonicalQuantity(value);
    if (quantity !== undefined) return quantity;
  }
  return canonicalValue(value, path);
}
