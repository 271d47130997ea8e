import jsonPatch from "fast-json-patch";
import { Annotations, type JsonPatchOp, type PetSet } from "../api/index.js";
import { summarizeChange } from "./change-summary.js";
import type { VersionContent } from "./content.js";

/** A change of versioned content: both ends and the JSON Patch between them. */
export interface ContentDelta {
  readonly from: VersionContent | undefined;
  readonly to: VersionContent;
  /** RFC 6902 operations turning `from` into `to`; empty for a first version. */
  readonly patch: JsonPatchOp[];
}

/**
 * The change from the previous version's content to this one's.
 *
 * The patch is computed on the raw content (as written), not the canonical form: applied
 * to the previous version's stored `template`/`volumeClaimTemplates` it gives exactly this
 * version's, so `kubectl petset diff` shows what the user changed and a patch can be
 * replayed. A canonical diff would describe objects nobody wrote. (Defaults added along a
 * real change therefore appear in the patch; they never make a version on their own.)
 */
export function delta(prev: VersionContent | undefined, next: VersionContent): ContentDelta {
  const patch = prev === undefined ? [] : jsonPatch.compare(plainJson(prev), plainJson(next));
  return {
    from: prev,
    to: next,
    patch: patch.map(({ op, path, ...rest }) => ({ op, path, ...rest }) as JsonPatchOp),
  };
}

/** Longest derived summary: a printer column, not a report. */
export const MAX_DERIVED_CAUSE = 200;
/** Longest annotation copied: enough for any sentence, bounded so versions stay small. */
export const MAX_ANNOTATED_CAUSE = 1024;

/**
 * The version's `changeCause`:
 *
 * 1. the PetSet's `kubernetes.io/change-cause` annotation, when present and different
 *    from the one the previous version was made under (`previousAnnotation`, recorded on
 *    that version). An annotation nobody updated describes an older change; repeating it
 *    for every later version is the well-known `kubectl rollout history` wart;
 * 2. otherwise `initial version` for the first version;
 * 3. otherwise a summary of the delta (see change-summary.ts) joined with `; `, cut to
 *    MAX_DERIVED_CAUSE characters.
 */
export function changeCause(petset: PetSet, change: ContentDelta, previousAnnotation?: string): string {
  const annotation = petset.metadata.annotations?.[Annotations.changeCause]?.trim();
  if (annotation && annotation !== previousAnnotation?.trim())
    return truncate(annotation, MAX_ANNOTATED_CAUSE);
  if (change.from === undefined) return "initial version";
  const items = summarizeChange(change.from, change.to);
  if (items.length > 0) return truncate(items.join("; "), MAX_DERIVED_CAUSE);
  const paths = [...new Set(change.patch.map((op) => op.path))];
  return truncate(paths.length > 0 ? `changed ${paths.join(", ")}` : "no visible change", MAX_DERIVED_CAUSE);
}

/**
 * The field manager that last changed the pod-shaping content, from
 * `metadata.managedFields`: among entries of the main resource (subresource entries such
 * as status and scale never touch the template) whose `fieldsV1` owns something under
 * `f:spec` -> `f:template` or `f:volumeClaimTemplates`, the one with the latest `time`.
 *
 * Managed fields record ownership and when each manager last wrote, not who changed
 * which value, so this is the best the API tells: right for the usual one-writer-at-a-time
 * flows (kubectl, a GitOps tool, `kubectl petset rollback`), a guess when several managers
 * share the template. Undefined when no entry qualifies.
 */
export function changedBy(petset: PetSet): string | undefined {
  let best: { manager: string; time: number } | undefined;
  for (const entry of petset.metadata.managedFields ?? []) {
    const { manager, subresource, fieldsV1, time } = entry as Record<string, unknown>;
    if (typeof manager !== "string" || (typeof subresource === "string" && subresource !== "")) continue;
    if (!touchesContent(fieldsV1)) continue;
    const at = timeOf(time);
    if (best === undefined || at >= best.time) best = { manager, time: at };
  }
  return best?.manager;
}

function touchesContent(fieldsV1: unknown): boolean {
  const spec = record(record(fieldsV1)?.["f:spec"]);
  return spec !== undefined && ("f:template" in spec || "f:volumeClaimTemplates" in spec);
}

/** Milliseconds of a managedFields time; entries without one rank first, then by array order. */
function timeOf(time: unknown): number {
  const ms = time instanceof Date ? time.getTime() : typeof time === "string" ? Date.parse(time) : Number.NaN;
  return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 3)}...`;
}

/** The content as it travels over the API: undefined dropped, dates as strings. */
function plainJson(content: VersionContent): object {
  return JSON.parse(JSON.stringify(content)) as object;
}
