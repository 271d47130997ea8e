/**
 * Small helpers over the parsed CEL AST (cel.expr.Expr from @bufbuild/cel's parser).
 */
import type { parse } from "@bufbuild/cel";

export type ParsedRule = ReturnType<typeof parse>;
export type Expr = ParsedRule["expr"];

/** Calls `visit` on every expression node, depth first. */
export function walkExpr(e: Expr | undefined, visit: (e: Expr) => void): void {
  if (!e) return;
  visit(e);
  const k = e.exprKind;
  switch (k.case) {
    case "selectExpr":
      walkExpr(k.value.operand, visit);
      break;
    case "callExpr":
      walkExpr(k.value.target, visit);
      for (const a of k.value.args) walkExpr(a, visit);
      break;
    case "listExpr":
      for (const a of k.value.elements) walkExpr(a, visit);
      break;
    case "structExpr":
      for (const entry of k.value.entries) {
        if (entry.keyKind.case === "mapKey") walkExpr(entry.keyKind.value, visit);
        walkExpr(entry.value, visit);
      }
      break;
    case "comprehensionExpr":
      walkExpr(k.value.iterRange, visit);
      walkExpr(k.value.accuInit, visit);
      walkExpr(k.value.loopCondition, visit);
      walkExpr(k.value.loopStep, visit);
      walkExpr(k.value.result, visit);
      break;
    default:
      break;
  }
}

/** True when the expression references the identifier `name` anywhere. */
export function referencesIdent(e: Expr | undefined, name: string): boolean {
  let found = false;
  walkExpr(e, (x) => {
    if (x.exprKind.case === "identExpr" && x.exprKind.value.name === name) found = true;
  });
  return found;
}

/** 1-based line and column of an expression id, from the parser's source info. */
export function position(parsed: ParsedRule, id: bigint, source: string): { line: number; column: number } {
  const offset = parsed.sourceInfo?.positions[id.toString()] ?? 0;
  const before = [...source].slice(0, offset).join("");
  const lines = before.split("\n");
  return { line: lines.length, column: (lines[lines.length - 1] ?? "").length + 1 };
}
