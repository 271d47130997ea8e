/**
 * A static check of a rule against the schema it sits on, standing in for cel-go's type
 * checker where CRD authors most often go wrong: references to undeclared variables and to
 * fields the schema does not declare. Messages are cel-go's (`ERROR: <input>:1:5: undefined
 * field 'foo'` followed by the source line and a caret).
 */

import { additionalSchema, type SchemaNode } from "../structural.js";
import { type Expr, type ParsedRule, position } from "./ast.js";

const TYPE_IDENTS = new Set([
  "int",
  "uint",
  "double",
  "bool",
  "string",
  "bytes",
  "list",
  "map",
  "null_type",
  "type",
  "dyn",
]);

interface Issue {
  id: bigint;
  message: string;
}

/** Schema of what an expression evaluates to, when the check can tell. */
type Scope = ReadonlyMap<string, SchemaNode | undefined>;

export function checkRule(
  parsed: ParsedRule,
  source: string,
  self: SchemaNode,
  withOldSelf: boolean,
): string | undefined {
  const scope = new Map<string, SchemaNode | undefined>([["self", self]]);
  scope.set("oldSelf", withOldSelf ? self : undefined);
  const issues: Issue[] = [];
  infer(parsed.expr, scope, issues);
  if (issues.length === 0) return undefined;
  return issues.map((i) => formatIssue(parsed, source, i)).join("\n");
}

export function formatIssue(parsed: ParsedRule, source: string, issue: Issue): string {
  const { line, column } = position(parsed, issue.id, source);
  const text = source.split("\n")[line - 1] ?? "";
  return `ERROR: <input>:${line}:${column}: ${issue.message}\n | ${text}\n | ${".".repeat(column - 1)}^`;
}

function objectWithClosedFields(s: SchemaNode): boolean {
  return !!s.properties && !s.preserveUnknownFields && !additionalSchema(s) && !s.embeddedResource;
}

function infer(e: Expr | undefined, scope: Scope, issues: Issue[]): SchemaNode | undefined {
  if (!e) return undefined;
  const k = e.exprKind;
  switch (k.case) {
    case "identExpr": {
      const name = k.value.name;
      if (scope.has(name)) return scope.get(name);
      if (!TYPE_IDENTS.has(name))
        issues.push({ id: e.id, message: `undeclared reference to '${name}' (in container '')` });
      return undefined;
    }
    case "selectExpr": {
      const operand = infer(k.value.operand, scope, issues);
      if (!operand) return undefined;
      const prop = operand.properties?.get(k.value.field);
      if (prop) return prop;
      const additional = additionalSchema(operand);
      if (additional) return additional;
      if (objectWithClosedFields(operand) && !isMetaField(operand, k.value.field)) {
        issues.push({ id: e.id, message: `undefined field '${k.value.field}'` });
      }
      return undefined;
    }
    case "callExpr": {
      infer(k.value.target, scope, issues);
      const args = k.value.args.map((a) => infer(a, scope, issues));
      if (k.value.function === "_[_]" && args[0]) return args[0].items ?? additionalSchema(args[0]);
      return undefined;
    }
    case "listExpr":
      for (const el of k.value.elements) infer(el, scope, issues);
      return undefined;
    case "structExpr":
      for (const entry of k.value.entries) {
        if (entry.keyKind.case === "mapKey") infer(entry.keyKind.value, scope, issues);
        infer(entry.value, scope, issues);
      }
      return undefined;
    case "comprehensionExpr": {
      const c = k.value;
      const range = infer(c.iterRange, scope, issues);
      infer(c.accuInit, scope, issues);
      const inner = new Map(scope);
      inner.set(c.accuVar, undefined);
      // Iterating a list binds its items; iterating a map binds its (string) keys.
      inner.set(c.iterVar, range?.items);
      if (c.iterVar2) inner.set(c.iterVar2, undefined);
      infer(c.loopCondition, inner, issues);
      infer(c.loopStep, inner, issues);
      const resultScope = new Map(scope);
      resultScope.set(c.accuVar, undefined);
      infer(c.result, resultScope, issues);
      return undefined;
    }
    default:
      return undefined;
  }
}

/** apiVersion, kind and metadata are declared on every resource root and embedded resource. */
function isMetaField(s: SchemaNode, field: string): boolean {
  return s.embeddedResource && (field === "apiVersion" || field === "kind" || field === "metadata");
}
