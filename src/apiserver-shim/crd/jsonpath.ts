/**
 * The JSONPath subset CRD printer columns use (kube's "simple JSONPath"): `.a.b`, `[N]`,
 * `[*]`, `['key.with.dots']`, and filters `[?(@.type=="Ready")]`.
 */
import { isPlainObject } from "../types.js";

type Step =
  | { field: string }
  | { index: number }
  | { all: true }
  | { filter: { path: string[]; value: string } };

export function parseJsonPath(expr: string): Step[] {
  let s = expr.trim();
  if (s.startsWith("{") && s.endsWith("}")) s = s.slice(1, -1);
  if (s.startsWith("$")) s = s.slice(1);
  const steps: Step[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === ".") {
      i++;
      const start = i;
      while (i < s.length && s[i] !== "." && s[i] !== "[") i++;
      const name = s.slice(start, i);
      if (name) steps.push({ field: name });
    } else if (c === "[") {
      const end = matchBracket(s, i);
      const inner = s.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === "*") steps.push({ all: true });
      else if (/^-?\d+$/.test(inner)) steps.push({ index: Number(inner) });
      else if (/^['"].*['"]$/.test(inner)) steps.push({ field: inner.slice(1, -1) });
      else {
        const m = /^\?\(@\.([\w.]+)\s*==\s*['"]?([^'"]*)['"]?\)$/.exec(inner);
        if (!m) throw new Error(`unsupported JSONPath ${expr}`);
        steps.push({ filter: { path: m[1]!.split("."), value: m[2]! } });
      }
    } else {
      const start = i;
      while (i < s.length && s[i] !== "." && s[i] !== "[") i++;
      steps.push({ field: s.slice(start, i) });
    }
  }
  return steps;
}

function matchBracket(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === "[") depth++;
    else if (s[i] === "]" && --depth === 0) return i;
  }
  throw new Error(`unbalanced brackets in ${s}`);
}

/** All values the path selects (missing keys select nothing). */
export function evaluateJsonPath(steps: Step[], root: unknown): unknown[] {
  let cur: unknown[] = [root];
  for (const st of steps) {
    const next: unknown[] = [];
    for (const v of cur) {
      if ("field" in st) {
        if (isPlainObject(v) && v[st.field] !== undefined) next.push(v[st.field]);
      } else if ("index" in st) {
        if (Array.isArray(v)) {
          const x = v[st.index < 0 ? v.length + st.index : st.index];
          if (x !== undefined) next.push(x);
        }
      } else if ("all" in st) {
        if (Array.isArray(v)) next.push(...v);
        else if (isPlainObject(v)) next.push(...Object.values(v));
      } else if (Array.isArray(v)) {
        for (const item of v) {
          let probe: unknown = item;
          for (const p of st.filter.path) probe = isPlainObject(probe) ? probe[p] : undefined;
          if (probe !== undefined && String(probe) === st.filter.value) next.push(item);
        }
      }
    }
    cur = next;
  }
  return cur;
}
