/** Structural differences between two normalized responses, and the allow-list filter. */
import { isObject } from "./normalize.js";
import type { AllowListEntry, Json, Step, StepResponse } from "./types.js";

export interface Difference {
  step: string;
  /** `status`, `header.content-type`, `body.metadata.labels.app`, `body.items[0]`, ... */
  path: string;
  embedded: Json | undefined;
  real: Json | undefined;
}

function same(a: Json | undefined, b: Json | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function diffValues(
  a: Json | undefined,
  b: Json | undefined,
  path: string,
  out: Omit<Difference, "step">[],
): void {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) diffValues(a[i], b[i], `${path}[${i}]`, out);
    return;
  }
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of [...keys].sort()) diffValues(a[k], b[k], `${path}.${k}`, out);
    return;
  }
  if (!same(a, b)) out.push({ path, embedded: a, real: b });
}

/** What of one step's two responses must be equal, and where they differ. */
export function diffStep(step: Step, embedded: StepResponse, real: StepResponse): Difference[] {
  const out: Omit<Difference, "step">[] = [];
  if (embedded.status !== real.status)
    out.push({ path: "status", embedded: embedded.status, real: real.status });
  for (const h of step.headers ?? []) {
    const value = (r: StepResponse) =>
      h === "content-type" ? r.headers[h]?.split(";")[0]?.trim() : r.headers[h];
    if (value(embedded) !== value(real))
      out.push({ path: `header.${h}`, embedded: value(embedded), real: value(real) });
  }
  const compare = step.compare ?? "full";
  const project = compare === "full" ? (b: Json) => b : compare.project;
  diffValues(project(embedded.body), project(real.body), "body", out);
  return out.map((d) => ({ step: step.name, ...d }));
}

function covers(prefix: string, path: string): boolean {
  return path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`);
}

export function allowedBy(
  entries: readonly AllowListEntry[],
  scenario: string,
  d: Difference,
): AllowListEntry | undefined {
  return entries.find(
    (e) =>
      (typeof e.scenario === "string" ? e.scenario === scenario : e.scenario.includes(scenario)) &&
      (e.step === undefined || e.step === d.step) &&
      covers(e.path, d.path),
  );
}

export function describeDifference(d: Difference): string {
  const show = (v: Json | undefined) => (v === undefined ? "(absent)" : JSON.stringify(v));
  return `${d.step}: ${d.path}\n    embedded: ${show(d.embedded)}\n    real:     ${show(d.real)}`;
}
