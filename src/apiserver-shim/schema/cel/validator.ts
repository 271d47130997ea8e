/**
 * Evaluates `x-kubernetes-validations` over an object, as apiextensions-apiserver's
 * schema/cel Validator does: rules run on every non-null value of their node, top-down;
 * transition rules (those using `oldSelf`) run only where an old value correlates (same map
 * key, same list-map item keys; never through atomic or set lists) unless `optionalOldSelf`;
 * failures and evaluation errors become field errors worded like kube's.
 */
import { type CelInput, type CelResult, isCelError } from "@bufbuild/cel";
import { listItemCorrelator } from "../correlate.js";
import { type FieldError, type FieldPath, fieldErrors } from "../field-error.js";
import {
  additionalSchema,
  canonicalJson,
  isRecord,
  type SchemaNode,
  type ValidationRule,
} from "../structural.js";
import { type CompiledRule, compiledRules, type Program } from "./compile.js";
import { optionalOf } from "./environment.js";
import { toCel } from "./values.js";

const MAX_MESSAGE_EXPRESSION_BYTES = 5 * 1024;

export function validateCel(root: SchemaNode, obj: unknown, oldObj: unknown, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  walk(root, obj, oldObj, path, errs);
  return errs;
}

function walk(s: SchemaNode, obj: unknown, oldObj: unknown, path: FieldPath, errs: FieldError[]): void {
  if (obj === null || obj === undefined) return;
  const old = oldObj ?? undefined;
  if (s.validations.length > 0) evaluateRules(s, obj, old === null ? undefined : old, path, errs);
  for (const sub of s.allOf) walk(sub, obj, old, path, errs);
  if (Array.isArray(obj)) {
    if (!s.items) return;
    const correlate = listItemCorrelator(s, old);
    for (let i = 0; i < obj.length; i++) walk(s.items, obj[i], correlate(obj[i]), path.index(i), errs);
    return;
  }
  if (!isRecord(obj)) return;
  const oldMap = isRecord(old) ? old : undefined;
  const additional = additionalSchema(s);
  for (const [k, v] of Object.entries(obj)) {
    const prop = s.properties?.get(k);
    if (prop) walk(prop, v, oldMap?.[k], path.child(k), errs);
    else if (additional) walk(additional, v, oldMap?.[k], path.key(k), errs);
  }
}

function evaluateRules(s: SchemaNode, obj: unknown, old: unknown, path: FieldPath, errs: FieldError[]): void {
  const type = s.type;
  let self: CelInput | undefined;
  let oldSelf: CelInput | undefined;
  let unchanged: boolean | undefined;
  for (const compiled of compiledRules(s)) {
    const rule = compiled.rule;
    if (compiled.error) {
      errs.push(fieldErrors.invalid(path.toString(), type, `rule compile error: ${compiled.error}`));
      continue;
    }
    if (!compiled.program) continue;
    const optionalOldSelf = rule.optionalOldSelf === true;
    if (compiled.usesOldSelf && old === undefined && !optionalOldSelf) continue;
    self ??= toCel(s, obj);
    const bindings: Record<string, CelInput> = { self };
    if (compiled.usesOldSelf || compiled.messageProgram) {
      oldSelf ??= old === undefined ? null : toCel(s, old);
      bindings.oldSelf = optionalOldSelf
        ? optionalOf(old === undefined ? undefined : (oldSelf as never))
        : oldSelf;
    }
    const result = run(compiled.program, bindings);
    if (isCelError(result)) {
      errs.push(fieldErrors.invalid(path.toString(), type, runtimeErrorDetail(result.message, rule)));
      continue;
    }
    if (result === true) continue;
    // Ratcheting: a rule that does not look at oldSelf does not fail an unchanged value.
    if (!compiled.usesOldSelf && old !== undefined) {
      unchanged ??= canonicalJson(obj) === canonicalJson(old);
      if (unchanged) continue;
    }
    const target = compiled.fieldPath ? compiled.fieldPath(path) : path;
    const detail = messageFromExpression(compiled, bindings) ?? ruleMessageOrDefault(rule);
    errs.push(errorForReason(target.toString(), type, detail, rule.reason));
  }
}

function run(program: Program, bindings: Record<string, CelInput>): CelResult {
  try {
    return program(bindings);
  } catch (e) {
    return { message: e instanceof Error ? e.message : String(e) } as CelResult;
  }
}

function messageFromExpression(
  compiled: CompiledRule,
  bindings: Record<string, CelInput>,
): string | undefined {
  if (!compiled.messageProgram) return undefined;
  const result = run(compiled.messageProgram, bindings);
  if (typeof result !== "string") return undefined;
  const msg = result.trim();
  if (msg === "" || msg.includes("\n") || Buffer.byteLength(msg) > MAX_MESSAGE_EXPRESSION_BYTES)
    return undefined;
  return msg;
}

function ruleErrorString(rule: ValidationRule): string {
  return rule.message ? rule.message.trim() : rule.rule.trim();
}

function ruleMessageOrDefault(rule: ValidationRule): string {
  return rule.message ? rule.message.trim() : `failed rule: ${ruleErrorString(rule)}`;
}

/** cel-go's wording of the runtime errors kube users see. */
function runtimeErrorDetail(message: string, rule: ValidationRule): string {
  if (message.includes("no matching overload") || message.startsWith("no such overload")) {
    return `'no such overload': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`;
  }
  const translated = message
    .replace(/^field not found: (.*)$/, "no such key: $1")
    .replace(/^index (-?\d+) out of bounds.*$/, "index out of bounds: $1")
    .replace(/^\w+ divide by zero$/, "division by zero")
    .replace(/^\w+ modulus by zero$/, "modulus by zero")
    .replace(/^\w+ overflow during .*$/, "integer overflow");
  return `${translated} evaluating rule: ${ruleErrorString(rule)}`;
}

function errorForReason(field: string, type: string, detail: string, reason: string | undefined): FieldError {
  switch (reason) {
    case "FieldValueForbidden":
      return fieldErrors.forbidden(field, detail);
    case "FieldValueRequired":
      return fieldErrors.required(field, detail);
    case "FieldValueDuplicate":
      return fieldErrors.duplicate(field, type);
    default:
      return fieldErrors.invalid(field, type, detail);
  }
}
