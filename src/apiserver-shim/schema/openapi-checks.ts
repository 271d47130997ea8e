/**
 * kube-openapi's value checks of one schema node (pkg/validation/validate's type, string,
 * number and enum validators) and the error values they produce, with kube's messages
 * (`<name> in body should be ...`). The walker over objects, lists and combinators that calls
 * them is openapi-validate.ts.
 */
import { goFloat, goNumber, goQuote } from "./go-format.js";
import { canonicalJson, type SchemaNode } from "./structural.js";

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

export interface Result {
  errors: OpenApiError[];
  matchCount: number;
}

export const IN = "body";

export type Kind = "null" | "boolean" | "string" | "number" | "array" | "object";

export function kindOf(v: unknown): Kind {
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

/** A kube-openapi `errors.Validation`: its code, the value's name and the full message. */
export const validationError = (
  code: OpenApiCode,
  name: string,
  message: string,
  extra: Partial<OpenApiError> = {},
): OpenApiError => ({ kind: "validation", code, name, message, ...extra }) as OpenApiError;

/** `InvalidType`: `<name> in body must be of type <t>[: "<value>"]`. */
export function invalidType(name: string, typeName: string, value: unknown): OpenApiError {
  const message =
    typeof value === "string"
      ? `${name} in ${IN} must be of type ${typeName}: ${goQuote(value)}`
      : `${name} in ${IN} must be of type ${typeName}`;
  return validationError("invalidType", name, message, { value });
}

export function typeErrors(s: SchemaNode, data: unknown, kind: Kind, path: string): OpenApiError[] {
  let schType: string;
  let format = "";
  if (kind === "number") {
    // kube decodes a JSON number as int64 when it fits, else as float64: 1e300 is a "number".
    const n = Number(data);
    const isInt = Number.isInteger(n) && Math.abs(n) < 2 ** 63;
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

export function stringError(s: SchemaNode, data: string, path: string): OpenApiError | undefined {
  const length = s.maxLength !== undefined || s.minLength !== undefined ? [...data].length : 0;
  if (s.maxLength !== undefined && length > s.maxLength) {
    return validationError("tooLong", path, `${path} in ${IN} should be at most ${s.maxLength} chars long`, {
      value: data,
      limit: s.maxLength,
    });
  }
  if (s.minLength !== undefined && length < s.minLength) {
    return validationError(
      "tooShort",
      path,
      `${path} in ${IN} should be at least ${s.minLength} chars long`,
      {
        value: data,
      },
    );
  }
  if (s.pattern !== undefined && s.patternRegExp && !s.patternRegExp.test(data)) {
    return validationError("pattern", path, `${path} in ${IN} should match '${s.pattern}'`, { value: data });
  }
  return undefined;
}

export function numberErrors(s: SchemaNode, data: number, path: string): OpenApiError[] {
  const errs: OpenApiError[] = [];
  const isInt = Number.isInteger(data);
  // kube-openapi compares ints with the bound truncated to int64, floats with the float bound.
  const bound = (b: number): string => (isInt ? goNumber(Math.trunc(b)) : goFloat(b));
  const cmpBound = (b: number): number => (isInt ? Math.trunc(b) : b);
  if (s.multipleOf !== undefined && s.multipleOf > 0) {
    const q = data / s.multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9) {
      errs.push(
        validationError(
          "multipleOf",
          path,
          `${path} in ${IN} should be a multiple of ${goNumber(s.multipleOf)}`,
          {
            value: data,
          },
        ),
      );
    }
  }
  if (s.minimum !== undefined) {
    const m = cmpBound(s.minimum);
    if (s.exclusiveMinimum ? data <= m : data < m) {
      const rel = s.exclusiveMinimum ? "greater than" : "greater than or equal to";
      errs.push(
        validationError("min", path, `${path} in ${IN} should be ${rel} ${bound(s.minimum)}`, {
          value: data,
        }),
      );
    }
  }
  if (s.maximum !== undefined) {
    const m = cmpBound(s.maximum);
    if (s.exclusiveMaximum ? data >= m : data > m) {
      const rel = s.exclusiveMaximum ? "less than" : "less than or equal to";
      errs.push(
        validationError("max", path, `${path} in ${IN} should be ${rel} ${bound(s.maximum)}`, {
          value: data,
        }),
      );
    }
  }
  return errs;
}

export function enumError(s: SchemaNode, data: unknown, path: string): OpenApiError | undefined {
  if (!s.enum || s.enum.length === 0) return undefined;
  const key = canonicalJson(data ?? null);
  if (s.enum.some((e) => canonicalJson(e ?? null) === key)) return undefined;
  const listed = s.enum.map((e) => (typeof e === "string" ? e : JSON.stringify(e))).join(" ");
  return validationError("enum", path, `${path} in ${IN} should be one of [${listed}]`, {
    value: data ?? null,
    values: [...s.enum],
  });
}
