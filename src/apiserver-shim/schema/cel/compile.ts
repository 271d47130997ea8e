/**
 * Compiles the `x-kubernetes-validations` of a schema node once: parse, static check, plan.
 * Results are cached per node (WeakMap), so a CRD's rules compile on first use and every later
 * validation only evaluates them.
 */
import { type CelInput, type CelResult, parse, plan } from "@bufbuild/cel";
import type { FieldPath } from "../field-error.js";
import { additionalSchema, type SchemaNode, type ValidationRule } from "../structural.js";
import { type ParsedRule, referencesIdent } from "./ast.js";
import { checkRule } from "./check.js";
import { validationEnv } from "./environment.js";

export type Program = (bindings: Record<string, CelInput>) => CelResult;

export interface CompiledRule {
  readonly rule: ValidationRule;
  readonly program?: Program;
  readonly messageProgram?: Program;
  /** Transition rule: evaluated only when there is a correlated old value (or optionalOldSelf). */
  readonly usesOldSelf: boolean;
  /** `fieldPath` resolved against the schema, as path steps below the rule's node. */
  readonly fieldPath?: (base: FieldPath) => FieldPath;
  /** Why the rule (or its messageExpression or fieldPath) does not compile, in cel-go's words. */
  readonly error?: string;
}

const cache = new WeakMap<SchemaNode, readonly CompiledRule[]>();

export function compiledRules(node: SchemaNode): readonly CompiledRule[] {
  let rules = cache.get(node);
  if (!rules) {
    rules = node.validations.map((r) => compileRule(r, node));
    cache.set(node, rules);
  }
  return rules;
}

function parseExpression(source: string): ParsedRule | string {
  try {
    return parse(source);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return `ERROR: ${message.startsWith("<input>") ? message : `<input>:1:1: ${message}`}`;
  }
}

export function compileRule(rule: ValidationRule, node: SchemaNode): CompiledRule {
  const parsed = parseExpression(rule.rule);
  if (typeof parsed === "string") return { rule, usesOldSelf: false, error: `compilation failed: ${parsed}` };
  const usesOldSelf = referencesIdent(parsed.expr, "oldSelf");
  const checkError = checkRule(parsed, rule.rule, node, true);
  if (checkError) return { rule, usesOldSelf, error: `compilation failed: ${checkError}` };
  const env = validationEnv();
  const program = plan(env, parsed) as Program;
  let messageProgram: Program | undefined;
  if (rule.messageExpression !== undefined && rule.messageExpression.trim() !== "") {
    const msg = parseExpression(rule.messageExpression);
    if (typeof msg === "string")
      return { rule, usesOldSelf, error: `messageExpression compilation failed: ${msg}` };
    const msgCheck = checkRule(msg, rule.messageExpression, node, true);
    if (msgCheck) return { rule, usesOldSelf, error: `messageExpression compilation failed: ${msgCheck}` };
    messageProgram = plan(env, msg) as Program;
  }
  let fieldPath: CompiledRule["fieldPath"];
  if (rule.fieldPath) {
    const resolved = resolveFieldPath(rule.fieldPath, node);
    if (typeof resolved === "string") return { rule, usesOldSelf, error: resolved };
    fieldPath = resolved;
  }
  return { rule, program, messageProgram, usesOldSelf, ...(fieldPath ? { fieldPath } : {}) };
}

/**
 * `fieldPath` is a JSON path of field (`.a`) and map-key (`['k']`) accessors valid for the
 * schema; named properties become `.child`, map keys `[key]` (kube's ValidFieldPath).
 */
export function resolveFieldPath(path: string, node: SchemaNode): ((base: FieldPath) => FieldPath) | string {
  const steps: Array<{ name: string; named: boolean }> = [];
  let s: SchemaNode | undefined = node;
  const re = /\.([^.[\]]+)|\['((?:[^'\\]|\\.)*)'\]/y;
  let pos = 0;
  while (pos < path.length) {
    re.lastIndex = pos;
    const m = re.exec(path);
    if (!m)
      return `fieldPath: Invalid value: ${JSON.stringify(path)}: expected [ or . but got: ${path.slice(pos)}`;
    pos = re.lastIndex;
    const name = m[1] ?? (m[2] ?? "").replace(/\\(.)/g, "$1");
    if (!s) return `fieldPath: Invalid value: ${JSON.stringify(path)}: does not refer to a valid field`;
    if (s.properties) {
      s = s.properties.get(name);
      if (!s) return `fieldPath: Invalid value: ${JSON.stringify(path)}: does not refer to a valid field`;
      steps.push({ name, named: true });
    } else if (additionalSchema(s)) {
      s = additionalSchema(s);
      steps.push({ name, named: false });
    } else {
      return `fieldPath: Invalid value: ${JSON.stringify(path)}: does not refer to a valid field`;
    }
  }
  return (base) => steps.reduce((p, st) => (st.named ? p.child(st.name) : p.key(st.name)), base);
}
