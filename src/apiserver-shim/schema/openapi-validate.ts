/**
 * OpenAPI v3 value validation with kube-openapi's semantics (pkg/validation/validate), which
 * is what apiextensions-apiserver runs on every custom resource: the same checks, the same
 * order (type, allOf/anyOf/oneOf/not, string, format, number, array, enum, object), the same
 * error names (`spec.replicas`, `spec.containers[0].image`) and messages (`... in body ...`).
 * The results are turned into field errors in openapi-errors.ts.
 */
import { listItemCorrelator, oldEntry } from "./correlate.js";
import { checkFormat } from "./formats.js";
import { goFloat, goNumber, goQuote } from "./go-format.js";
import { additionalSchema, canonicalJson, type SchemaNode } from "./structural.js";

export type OpenApiCode =
  | "invalidType"
  | "required"
  | "tooLong"
  | "tooShort"
  | "pattern"
  | "enum"
  | "multipleOf"
  | "max"
  | "min"
  | "unique"
  | "maxItems"
  | "minItems"
  | "tooFewProperties"
  | "tooManyProperties"
  | "unallowedProperty";

/** A kube-openapi `errors.Validation` (with a code) or a plain composite message. */
export type OpenApiError =
  | {
      kind: "validation";
      code: OpenApiCode;
      name: string;
      message: string;
      value?: unknown;
      values?: unknown[];
      limit?: number;
    }
  | { kind: "plain"; message: string };

interface Result {
  errors: OpenApiError[];
  matchCount: number;
}

const IN = "body";

type Kind = "null" | "boolean" | "string" | "number" | "array" | "object";

function kindOf(v: unknown): Kind {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return "array";
  switch (typeof v) {
    case "boolean":
      return "boolean";
    case "string":
      return "string";
    case "number":
    case "bigint":
      return "number";
    default:
      return "object";
  }
}

const v = (
  code: OpenApiCode,
  name: string,
  message: string,
  extra: Partial<OpenApiError> = {},
): OpenApiError => ({ kind: "validation", code, name, message, ...extra }) as OpenApiError;

/** `InvalidType`: `<name> in body must be of type <t>[: "<value>"]`. */
function invalidType(name: string, typeName: string, value: unknown): OpenApiError {
  const message =
    typeof value === "string"
      ? `${name} in ${IN} must be of type ${typeName}: ${goQuote(value)}`
      : `${name} in ${IN} must be of type ${typeName}`;
  return v("invalidType", name, message, { value });
}

/**
 * Validates `data` against `s`, naming values from `path` (kube-openapi's `Path`). With
 * `old` (an update), errors of a value equal to its correlated old value are dropped: kube's
 * validation ratcheting (CRDValidationRatcheting, on by default since 1.30).
 */
export function validateOpenApi(
  s: SchemaNode,
  data: unknown,
  path: string,
  old?: { value: unknown },
): Result {
  const res = validateNode(s, data, path, old);
  if (
    res.errors.length > 0 &&
    old &&
    old.value !== undefined &&
    canonicalJson(old.value) === canonicalJson(data)
  ) {
    return { errors: [], matchCount: res.matchCount };
  }
  return res;
}

function validateNode(
  s: SchemaNode,
  data: unknown,
  path: string,
  old: { value: unknown } | undefined,
): Result {
  const res: Result = { errors: [], matchCount: 0 };
  const merge = (r: Result): void => {
    res.errors.push(...r.errors);
    res.matchCount += r.matchCount;
  };
  const kind = kindOf(data);
  if (kind === "null") {
    if (s.types.length > 0 && !s.types.includes("null") && !s.nullable) {
      res.errors.push(invalidType(path, s.types.join(","), "null"));
    }
    const e = enumError(s, data, path);
    if (e) res.errors.push(e);
    return res;
  }
  if (s.types.length > 0 || s.format !== "") {
    res.errors.push(...typeErrors(s, data, kind, path));
    res.matchCount++;
  }
  if (s.allOf.length + s.anyOf.length + s.oneOf.length > 0 || s.not) {
    merge(schemaProps(s, data, path));
    res.matchCount++;
  }
  if (kind === "string") {
    const str = data as string;
    const e = stringError(s, str, path);
    if (e) res.errors.push(e);
    if (s.format && !checkFormat(s.format, str)) res.errors.push(invalidType(path, s.format, str));
    res.matchCount += 2;
  }
  if (kind === "number") {
    res.errors.push(...numberErrors(s, Number(data), path));
    res.matchCount++;
  }
  if (kind === "array") {
    merge(sliceResult(s, data as unknown[], path, old));
    res.matchCount++;
  }
  const e = enumError(s, data, path);
  if (e) res.errors.push(e);
  res.matchCount++;
  if (kind === "object") {
    merge(objectResult(s, data as Record<string, unknown>, path, old));
    res.matchCount++;
  }
  res.matchCount++;
  return res;
}

function typeErrors(s: SchemaNode, data: unknown, kind: Kind, path: string): OpenApiError[] {
  let schType: string;
  let format = "";
  if (kind === "number") {
    const isInt = Number.isInteger(Number(data));
    schType = isInt ? "integer" : "number";
    format = isInt ? "int64" : "float64";
  } else {
    schType = kind;
  }
  const isIntFloat = schType === "integer" && s.types.includes("number");
  if (
    kind !== "string" &&
    kind !== "array" &&
    s.format !== "" &&
    !(
      s.types.includes(schType) ||
      format === s.format ||
      isIntFloat ||
      (s.format === "int64" && format === "int32")
    )
  ) {
    return [invalidType(path, s.format, format)];
  }
  if (
    !(s.types.includes("number") || s.types.includes("integer")) &&
    s.format !== "" &&
    (kind === "string" || kind === "array")
  ) {
    return [];
  }
  if (!(s.types.includes(schType) || isIntFloat)) return [invalidType(path, s.types.join(","), schType)];
  return [];
}

function stringError(s: SchemaNode, data: string, path: string): OpenApiError | undefined {
  const length = s.maxLength !== undefined || s.minLength !== undefined ? [...data].length : 0;
  if (s.maxLength !== undefined && length > s.maxLength) {
    return v("tooLong", path, `${path} in ${IN} should be at most ${s.maxLength} chars long`, {
      value: data,
      limit: s.maxLength,
    });
  }
  if (s.minLength !== undefined && length < s.minLength) {
    return v("tooShort", path, `${path} in ${IN} should be at least ${s.minLength} chars long`, {
      value: data,
    });
  }
  if (s.pattern !== undefined && s.patternRegExp && !s.patternRegExp.test(data)) {
    return v("pattern", path, `${path} in ${IN} should match '${s.pattern}'`, { value: data });
  }
  return undefined;
}

function numberErrors(s: SchemaNode, data: number, path: string): OpenApiError[] {
  const errs: OpenApiError[] = [];
  const isInt = Number.isInteger(data);
  // kube-openapi compares ints with the bound truncated to int64, floats with the float bound.
  const bound = (b: number): string => (isInt ? goNumber(Math.trunc(b)) : goFloat(b));
  const cmpBound = (b: number): number => (isInt ? Math.trunc(b) : b);
  if (s.multipleOf !== undefined && s.multipleOf > 0) {
    const q = data / s.multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9) {
      errs.push(
        v("multipleOf", path, `${path} in ${IN} should be a multiple of ${goNumber(s.multipleOf)}`, {
          value: data,
        }),
      );
    }
  }
  if (s.minimum !== undefined) {
    const m = cmpBound(s.minimum);
    if (s.exclusiveMinimum ? data <= m : data < m) {
      const rel = s.exclusiveMinimum ? "greater than" : "greater than or equal to";
      errs.push(v("min", path, `${path} in ${IN} should be ${rel} ${bound(s.minimum)}`, { value: data }));
    }
  }
  if (s.maximum !== undefined) {
    const m = cmpBound(s.maximum);
    if (s.exclusiveMaximum ? data >= m : data > m) {
      const rel = s.exclusiveMaximum ? "less than" : "less than or equal to";
      errs.push(v("max", path, `${path} in ${IN} should be ${rel} ${bound(s.maximum)}`, { value: data }));
    }
  }
  return errs;
}

function sliceResult(
  s: SchemaNode,
  data: unknown[],
  path: string,
  old: { value: unknown } | undefined,
): Result {
  const res: Result = { errors: [], matchCount: 0 };
  if (s.items) {
    const correlate = old ? listItemCorrelator(s, old.value) : undefined;
    for (let i = 0; i < data.length; i++) {
      const r = validateOpenApi(
        s.items,
        data[i],
        `${path}[${i}]`,
        correlate && { value: correlate(data[i]) },
      );
      res.errors.push(...r.errors);
      res.matchCount += r.matchCount;
    }
  }
  if (s.minItems !== undefined && data.length < s.minItems) {
    res.errors.push(
      v("minItems", path, `${path} in ${IN} should have at least ${s.minItems} items`, {
        value: data.length,
      }),
    );
  }
  if (s.maxItems !== undefined && data.length > s.maxItems) {
    res.errors.push(
      v("maxItems", path, `${path} in ${IN} should have at most ${s.maxItems} items`, {
        value: data.length,
        limit: s.maxItems,
      }),
    );
  }
  if (s.uniqueItems) {
    const seen = new Set(data.map((x) => canonicalJson(x)));
    if (seen.size !== data.length)
      res.errors.push(v("unique", path, `${path} in ${IN} shouldn't contain duplicates`));
  }
  return res;
}

function objectResult(
  s: SchemaNode,
  data: Record<string, unknown>,
  path: string,
  old: { value: unknown } | undefined,
): Result {
  const res: Result = { errors: [], matchCount: 0 };
  const keys = Object.keys(data);
  if (s.minProperties !== undefined && keys.length < s.minProperties) {
    res.errors.push(
      v("tooFewProperties", path, `${path} in ${IN} should have at least ${s.minProperties} properties`, {
        value: keys.length,
      }),
    );
    return res;
  }
  if (s.maxProperties !== undefined && keys.length > s.maxProperties) {
    res.errors.push(
      v("tooManyProperties", path, `${path} in ${IN} should have at most ${s.maxProperties} properties`, {
        value: keys.length,
        limit: s.maxProperties,
      }),
    );
    return res;
  }
  const additional = additionalSchema(s);
  for (const key of keys) {
    if (s.properties?.has(key)) continue;
    if (s.additionalProperties === false) {
      res.errors.push(
        v("unallowedProperty", path, `${path}.${key} in ${IN} is a forbidden property`, { value: key }),
      );
    } else if (additional) {
      const r = validateOpenApi(
        additional,
        data[key],
        `${path}.${key}`,
        old && { value: oldEntry(old.value, key) },
      );
      res.errors.push(...r.errors);
      res.matchCount += r.matchCount;
    }
  }
  if (s.properties) {
    for (const [name, prop] of s.properties) {
      if (!(name in data)) continue;
      const r = validateOpenApi(
        prop,
        data[name],
        path ? `${path}.${name}` : name,
        old && { value: oldEntry(old.value, name) },
      );
      res.errors.push(...r.errors);
      res.matchCount += r.matchCount;
    }
  }
  for (const k of s.required) {
    if (!(k in data)) res.errors.push(v("required", `${path}.${k}`, `${path}.${k} in ${IN} is required`));
  }
  return res;
}

function schemaProps(s: SchemaNode, data: unknown, path: string): Result {
  const res: Result = { errors: [], matchCount: 0 };
  const merge = (r: Result): void => {
    res.errors.push(...r.errors);
    res.matchCount += r.matchCount;
  };
  if (s.anyOf.length > 0) {
    let best: Result | undefined;
    let ok: Result | undefined;
    for (const sub of s.anyOf) {
      const r = validateOpenApi(sub, data, path);
      if (r.errors.length === 0) {
        ok = r;
        best = undefined;
        break;
      }
      if (!best || r.matchCount > best.matchCount) best = r;
    }
    if (!ok)
      res.errors.push({
        kind: "plain",
        message: `${goQuote(path)} must validate at least one schema (anyOf)`,
      });
    if (best) merge(best);
    else if (ok) merge(ok);
  }
  if (s.oneOf.length > 0) {
    let best: Result | undefined;
    let first: Result | undefined;
    let validated = 0;
    for (const sub of s.oneOf) {
      const r = validateOpenApi(sub, data, path);
      if (r.errors.length === 0) {
        validated++;
        best = undefined;
        first ??= r;
        continue;
      }
      if (validated === 0 && (!best || r.matchCount > best.matchCount)) best = r;
    }
    if (validated !== 1) {
      const extra = validated === 0 ? "Found none valid" : `Found ${validated} valid alternatives`;
      res.errors.push({
        kind: "plain",
        message: `${goQuote(path)} must validate one and only one schema (oneOf). ${extra}`,
      });
      if (best) merge(best);
    } else if (first) {
      merge(first);
    }
  }
  if (s.allOf.length > 0) {
    let validated = 0;
    for (const sub of s.allOf) {
      const r = validateOpenApi(sub, data, path);
      if (r.errors.length === 0) validated++;
      merge(r);
    }
    if (validated !== s.allOf.length) {
      const extra = validated === 0 ? ". None validated" : "";
      res.errors.push({
        kind: "plain",
        message: `${goQuote(path)} must validate all the schemas (allOf)${extra}`,
      });
    }
  }
  if (s.not && validateOpenApi(s.not, data, path).errors.length === 0) {
    res.errors.push({ kind: "plain", message: `${goQuote(path)} must not validate the schema (not)` });
  }
  return res;
}

function enumError(s: SchemaNode, data: unknown, path: string): OpenApiError | undefined {
  if (!s.enum || s.enum.length === 0) return undefined;
  const key = canonicalJson(data ?? null);
  if (s.enum.some((e) => canonicalJson(e ?? null) === key)) return undefined;
  const listed = s.enum.map((e) => (typeof e === "string" ? e : JSON.stringify(e))).join(" ");
  return v("enum", path, `${path} in ${IN} should be one of [${listed}]`, {
    value: data ?? null,
    values: [...s.enum],
  });
}
