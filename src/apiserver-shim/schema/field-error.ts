/**
 * Field errors as kube-apiserver reports them (k8s.io/apimachinery `field.Error`): a machine
 * type, the field path and the full detail line `<field>: <Type string>[: <bad value>][: <detail>]`
 * that ends up in the `Status` causes and message.
 */
import { goBadValue, goQuote } from "./go-format.js";

export type FieldErrorType =
  | "FieldValueRequired"
  | "FieldValueInvalid"
  | "FieldValueNotSupported"
  | "FieldValueTypeInvalid"
  | "FieldValueForbidden"
  | "FieldValueTooLong"
  | "FieldValueTooMany"
  | "FieldValueDuplicate"
  | "FieldValueNotFound";

export interface FieldError {
  type: FieldErrorType;
  /** Path like `spec.template.spec.containers[0].image`. */
  field: string;
  /** The full kube-style line, e.g. `spec.replicas: Invalid value: -1: spec.replicas in body should be ...`. */
  message: string;
  badValue?: unknown;
}

const TYPE_STRINGS: Record<FieldErrorType, string> = {
  FieldValueRequired: "Required value",
  FieldValueInvalid: "Invalid value",
  FieldValueNotSupported: "Unsupported value",
  FieldValueTypeInvalid: "Invalid value",
  FieldValueForbidden: "Forbidden",
  FieldValueTooLong: "Too long",
  FieldValueTooMany: "Too many",
  FieldValueDuplicate: "Duplicate value",
  FieldValueNotFound: "Not found",
};

/** Marks a bad value that the error body leaves out (kube's `omitValue`). */
export const OMIT_VALUE: unique symbol = Symbol("omitValue");

/** Types whose body never prints the bad value. */
const VALUELESS = new Set<FieldErrorType>(["FieldValueRequired", "FieldValueForbidden", "FieldValueTooLong"]);

function makeError(type: FieldErrorType, field: string, badValue: unknown, detail: string): FieldError {
  let body = TYPE_STRINGS[type];
  if (!VALUELESS.has(type) && badValue !== OMIT_VALUE) body += `: ${goBadValue(badValue)}`;
  if (detail) body += `: ${detail}`;
  const err: FieldError = { type, field, message: `${field}: ${body}` };
  if (!VALUELESS.has(type) && badValue !== OMIT_VALUE && badValue !== undefined) err.badValue = badValue;
  return err;
}

export const fieldErrors = {
  required: (field: string, detail = ""): FieldError => makeError("FieldValueRequired", field, "", detail),
  invalid: (field: string, value: unknown, detail: string): FieldError =>
    makeError("FieldValueInvalid", field, value, detail),
  typeInvalid: (field: string, value: unknown, detail: string): FieldError =>
    makeError("FieldValueTypeInvalid", field, value, detail),
  forbidden: (field: string, detail: string): FieldError =>
    makeError("FieldValueForbidden", field, "", detail),
  duplicate: (field: string, value: unknown): FieldError =>
    makeError("FieldValueDuplicate", field, value, ""),
  notFound: (field: string, value: unknown): FieldError => makeError("FieldValueNotFound", field, value, ""),
  notSupported: (field: string, value: unknown, supported: readonly string[]): FieldError =>
    makeError(
      "FieldValueNotSupported",
      field,
      value,
      supported.length > 0 ? `supported values: ${supported.map(goQuote).join(", ")}` : "",
    ),
  tooLong: (field: string, value: unknown, maxLength: number): FieldError =>
    makeError(
      "FieldValueTooLong",
      field,
      value,
      maxLength >= 0
        ? `may not be more than ${maxLength} ${maxLength === 1 ? "byte" : "bytes"}`
        : "value is too long",
    ),
  tooMany: (field: string, actual: number, max: number): FieldError =>
    makeError(
      "FieldValueTooMany",
      field,
      actual >= 0 ? actual : OMIT_VALUE,
      max >= 0 ? `must have at most ${max} items` : "has too many items",
    ),
};

/**
 * A field path built like `field.Path`: `Child` joins with dots, `Index` and `Key` append
 * `[i]` / `[key]`. The empty path prints as `<nil>`, as kube does for errors at the root.
 */
export class FieldPath {
  private constructor(private readonly text: string) {}

  static readonly root = new FieldPath("");

  static of(text: string): FieldPath {
    return new FieldPath(text);
  }

  child(name: string): FieldPath {
    return new FieldPath(this.text === "" ? name : `${this.text}.${name}`);
  }

  index(i: number): FieldPath {
    return new FieldPath(`${this.text}[${i}]`);
  }

  key(k: string): FieldPath {
    return new FieldPath(`${this.text}[${k}]`);
  }

  toString(): string {
    return this.text === "" ? "<nil>" : this.text;
  }
}
