/**
 * Label selectors in kube's string syntax (`a=b,c!=d,e in (x,y),f notin (z),g,!h`) and
 * in the structured LabelSelector form. Both compile to the same requirement list.
 */
import { badRequest } from "../errors.js";
import { isPlainObject } from "../types.js";

export type Operator = "=" | "!=" | "in" | "notin" | "exists" | "!" | "gt" | "lt";

export interface Requirement {
  key: string;
  op: Operator;
  values: string[];
}

export type LabelMatcher = (labels: Record<string, string> | undefined) => boolean;

export function matchesRequirements(reqs: Requirement[], labels: Record<string, string> = {}): boolean {
  return reqs.every((r) => {
    const has = Object.hasOwn(labels, r.key);
    const v = labels[r.key];
    switch (r.op) {
      case "=":
      case "in":
        return has && r.values.includes(v!);
      case "!=":
      case "notin":
        return !has || !r.values.includes(v!);
      case "exists":
        return has;
      case "!":
        return !has;
      case "gt":
      case "lt": {
        if (!has) return false;
        const n = Number(v);
        const bound = Number(r.values[0]);
        if (Number.isNaN(n)) return false;
        return r.op === "gt" ? n > bound : n < bound;
      }
    }
    return false;
  });
}

/** Parses kube's selector string; throws BadRequest on malformed input. */
export function parseLabelSelector(s: string): Requirement[] {
  const reqs: Requirement[] = [];
  let i = 0;
  const src = s.trim();
  const fail = (why: string): never => {
    throw badRequest(`unable to parse requirement: ${why}`);
  };
  const skipWs = () => {
    while (i < src.length && /\s/.test(src[i]!)) i++;
  };
  const readIdent = (): string => {
    skipWs();
    const start = i;
    while (i < src.length && /[A-Za-z0-9_.\-/]/.test(src[i]!)) i++;
    return src.slice(start, i);
  };
  while (i < src.length) {
    skipWs();
    if (src[i] === "!") {
      i++;
      const key = readIdent();
      if (!key) fail(`missing key after '!' in "${s}"`);
      reqs.push({ key, op: "!", values: [] });
    } else {
      const key = readIdent();
      if (!key) fail(`found '${src[i] ?? "end of string"}', expected: identifier in "${s}"`);
      skipWs();
      const rest = src.slice(i);
      if (rest.startsWith("==")) {
        i += 2;
        reqs.push({ key, op: "=", values: [readIdent()] });
      } else if (rest.startsWith("!=")) {
        i += 2;
        reqs.push({ key, op: "!=", values: [readIdent()] });
      } else if (rest.startsWith("=")) {
        i += 1;
        reqs.push({ key, op: "=", values: [readIdent()] });
      } else if (rest.startsWith(">")) {
        i += 1;
        reqs.push({ key, op: "gt", values: [readIdent()] });
      } else if (rest.startsWith("<")) {
        i += 1;
        reqs.push({ key, op: "lt", values: [readIdent()] });
      } else if (/^(in|notin)\s*\(/.test(rest)) {
        const op = rest.startsWith("in") ? "in" : "notin";
        i += op.length;
        skipWs();
        i++; // (
        const values: string[] = [];
        for (;;) {
          values.push(readIdent());
          skipWs();
          if (src[i] === ",") {
            i++;
            continue;
          }
          if (src[i] === ")") {
            i++;
            break;
          }
          fail(`found '${src[i] ?? "end of string"}', expected: ',', or ')' in "${s}"`);
        }
        reqs.push({ key, op, values: values.filter((v) => v !== "" || values.length === 1) });
      } else {
        reqs.push({ key, op: "exists", values: [] });
      }
    }
    skipWs();
    if (i < src.length) {
      if (src[i] !== ",") fail(`found '${src[i]}', expected: ',' or end of string in "${s}"`);
      i++;
    }
  }
  return reqs;
}

/** Compiles a structured `LabelSelector` (matchLabels + matchExpressions). */
export function labelSelectorRequirements(sel: unknown): Requirement[] {
  if (!isPlainObject(sel)) return [];
  const reqs: Requirement[] = [];
  if (isPlainObject(sel.matchLabels))
    for (const [k, v] of Object.entries(sel.matchLabels)) reqs.push({ key: k, op: "=", values: [String(v)] });
  if (Array.isArray(sel.matchExpressions)) {
    for (const e of sel.matchExpressions) {
      if (!isPlainObject(e)) continue;
      const values = Array.isArray(e.values) ? e.values.map(String) : [];
      const op =
        e.operator === "In"
          ? "in"
          : e.operator === "NotIn"
            ? "notin"
            : e.operator === "Exists"
              ? "exists"
              : "!";
      reqs.push({ key: String(e.key), op, values });
    }
  }
  return reqs;
}

/** The selector in kube's canonical string form (what scale's status.selector holds). */
export function formatRequirements(reqs: Requirement[]): string {
  return reqs
    .map((r) => {
      switch (r.op) {
        case "=":
          return `${r.key}=${r.values[0]}`;
        case "!=":
          return `${r.key}!=${r.values[0]}`;
        case "in":
        case "notin":
          return `${r.key} ${r.op} (${[...r.values].sort().join(",")})`;
        case "exists":
          return r.key;
        case "!":
          return `!${r.key}`;
        case "gt":
          return `${r.key}>${r.values[0]}`;
        case "lt":
          return `${r.key}<${r.values[0]}`;
      }
      return "";
    })
    .sort()
    .join(",");
}
