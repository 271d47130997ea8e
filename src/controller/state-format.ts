/**
 * Format versions of the state the controller keeps in the API, so controllers of different
 * releases can take turns on one cluster (an upgrade, a rollback of the controller) without
 * misreading each other's work in flight.
 *
 * What carries a format (STATE_FORMAT, src/api):
 * - PetSetVersion `status.formatVersion`: the rollout facts, step state and hook records on
 *   that version's status. Stamped on every status write (planner/version-facts.ts, the hook
 *   record writer).
 * - Pod annotation `petset.dev/state-format`: what the controller writes on a pet's pod
 *   (version marks, started and target version). Stamped when a pod is created, relabelled or
 *   patched in place (planner/pod-template.ts `versionMarks`).
 * - The Lease carries no data of ours: its holder identity is an opaque `<host>-<pid>`,
 *   compared only for equality, in Kubernetes' own coordination.k8s.io fields. No format.
 * - External hook requests (`hooks.petset.dev/request`) are a contract with outside actors,
 *   documented in docs/hooks.md; fields are only ever added. No format.
 *
 * Rules (checkStateFormats, pure, table-tested in test/unit/controller/state-format.test.ts):
 * - Absent = format 0: what releases before format versions wrote (the previous release,
 *   test/upgrade/previous-release.env). Every format in KNOWN_FORMATS is read as is; a
 *   controller writes only STATE_FORMAT, so a newer controller "upgrades on write".
 * - A format above STATE_FORMAT, or one that is not a whole number, was written by a newer
 *   controller (or by hand): this controller does not act on that PetSet at all (no plan, no
 *   hook run, no history GC); it reports a log line, an Event and Progressing=False with
 *   reason UnsupportedStateFormat naming the objects and formats, and looks again later.
 * - The check reads the raw cached objects, before any parsing: a newer format may not even
 *   parse, and a version dropped as malformed would be a version lost.
 */
import { STATE_FORMAT, STATE_FORMAT_ANNOTATION } from "../api/state-format.js";

/** Formats this controller reads, and what each one is. */
export const KNOWN_FORMATS: Readonly<Record<number, string>> = {
  0: "no format field: written before format versions (release 6648dc2 and older)",
  1: "status.formatVersion on versions, petset.dev/state-format on pods",
};

/** The objects of one PetSet as the caches hold them (unparsed). */
export interface StateObjects {
  versions: readonly { metadata?: { name?: string }; status?: unknown }[];
  pods: readonly { metadata?: { name?: string; annotations?: Record<string, string> } }[];
}

export interface FormatFinding {
  /** e.g. `PetSetVersion web-v3 status.formatVersion` or `pod web-0 annotation petset.dev/state-format`. */
  where: string;
  /** As written (a number, or the text when it is not one). */
  format: string;
}

export type StateFormatVerdict = { ok: true } | { ok: false; findings: FormatFinding[]; message: string };

/** The format a written value says: absent -> 0, a whole number -> itself, anything else -> undefined. */
export function parseFormat(raw: unknown): number | undefined {
  if (raw === undefined || raw === null) return 0;
  if (typeof raw === "number") return Number.isSafeInteger(raw) && raw >= 0 ? raw : undefined;
  if (typeof raw === "string" && /^[0-9]{1,9}$/.test(raw)) return Number(raw);
  return undefined;
}

function understood(raw: unknown, known: number): boolean {
  const format = parseFormat(raw);
  return format !== undefined && format <= known;
}

const shown = (raw: unknown) => (typeof raw === "string" ? JSON.stringify(raw) : String(raw));

/** Whether this controller (reading formats up to `known`) may act on a PetSet with these objects. */
export function checkStateFormats(objects: StateObjects, known: number = STATE_FORMAT): StateFormatVerdict {
  const findings: FormatFinding[] = [];
  for (const v of objects.versions) {
    const status = v.status;
    const raw =
      typeof status === "object" && status !== null
        ? (status as { formatVersion?: unknown }).formatVersion
        : undefined;
    if (!understood(raw, known))
      findings.push({
        where: `PetSetVersion ${v.metadata?.name ?? "?"} status.formatVersion`,
        format: shown(raw),
      });
  }
  for (const pod of objects.pods) {
    const raw = pod.metadata?.annotations?.[STATE_FORMAT_ANNOTATION];
    if (!understood(raw, known))
      findings.push({
        where: `pod ${pod.metadata?.name ?? "?"} annotation ${STATE_FORMAT_ANNOTATION}`,
        format: shown(raw),
      });
  }
  if (findings.length === 0) return { ok: true };
  const listed = findings
    .slice(0, 5)
    .map((f) => `${f.where} ${f.format}`)
    .join(", ");
  const more = findings.length > 5 ? ` and ${findings.length - 5} more` : "";
  return {
    ok: false,
    findings,
    message:
      `state written in a format this controller does not know (${listed}${more}); it reads formats up to ${known}. ` +
      "A newer petset controller wrote it: this one does not act on the PetSet. Run the newer controller " +
      '(docs/operations.md, "Rolling back the controller")',
  };
}
