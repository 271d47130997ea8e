/**
 * Field selectors (`metadata.name=x,spec.nodeName!=`): each resource names the fields it
 * supports; anything else is a BadRequest, as in kube.
 */
import { badRequest } from "../errors.js";
import type { KubeObject } from "../types.js";

export interface FieldRequirement {
  field: string;
  op: "=" | "!=";
  value: string;
}

/** Supported field labels of an object (always metadata.name and metadata.namespace). */
export type FieldLabels = (obj: KubeObject) => Record<string, string>;

export const defaultFieldLabels: FieldLabels = (obj) => ({
  "metadata.name": obj.metadata.name ?? "",
  "metadata.namespace": obj.metadata.namespace ?? "",
});

export function parseFieldSelector(s: string): FieldRequirement[] {
  const out: FieldRequirement[] = [];
  for (const part of splitTerms(s)) {
    if (!part.trim()) continue;
    const m = /^\s*([^=!\s]+)\s*(==|!=|=)\s*(.*?)\s*$/.exec(part);
    if (!m) throw badRequest(`invalid selector: '${s}'; can't understand '${part}'`);
    out.push({ field: m[1]!, op: m[2] === "!=" ? "!=" : "=", value: unescapeValue(m[3]!) });
  }
  return out;
}

/** Throws BadRequest naming the first field the resource does not support. */
export function checkFieldSelector(
  reqs: FieldRequirement[],
  supported: Set<string>,
  kindLabel: string,
): void {
  for (const r of reqs) {
    if (!supported.has(r.field))
      throw badRequest(`field label not supported: ${r.field}${kindLabel ? "" : ""}`);
  }
}

export function matchesFields(reqs: FieldRequirement[], labels: Record<string, string>): boolean {
  return reqs.every((r) => {
    const v = labels[r.field] ?? "";
    return r.op === "=" ? v === r.value : v !== r.value;
  });
}

function splitTerms(s: string): string[] {
  const out: string[] = [];
  let cur = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "\\" && i + 1 < s.length) {
      cur += c + s[i + 1];
      i++;
    } else if (c === ",") {
      out.push(cur);
      cur = "";
    } else cur += c;
  }
  out.push(cur);
  return out;
}

function unescapeValue(v: string): string {
  return v.replace(/\\(.)/g, "$1");
}
