/**
 * OpenAPI v3 value validation with kube-openapi's semantics (pkg/validation/validate), which
 * is what apiextensions-apiserver runs on every custom resource: the same checks, the same
 * order (type, allOf/anyOf/oneOf/not, string, format, number, array, enum, object), the same
 * error names (`spec.replicas`, `spec.containers[0].image`) and messages (`... in body ...`).
 * The checks of one node are in openapi-checks.ts; the results are turned into field errors
 * in openapi-errors.ts.
 */
import { listItemCorrelator, oldEntry } from "./correlate.js";
import { checkFormat } from "./formats.js";
import { goQuote } from "./go-format.js";
import {
  enumError,
  IN,
  invalidType,
  kindOf,
  numberErrors,
  type Result,
  stringError,
  typeErrors,
  validationError,
} from "./openapi-checks.js";
import { additionalSchema, canonicalJson, type SchemaNode } from "./structural.js";

export type { OpenApiCode, OpenApiError } from "./openapi-checks.js";

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
      validationError("minItems", path, `${path} in ${IN} should have at least ${s.minItems} items`, {
        value: data.length,
      }),
    );
  }
  if (s.maxItems !== undefined && data.length > s.maxItems) {
    res.errors.push(
      validationError("maxItems", path, `${path} in ${IN} should have at most ${s.maxItems} items`, {
        value: data.length,
        limit: s.maxItems,
      }),
    );
  }
  if (s.uniqueItems) {
    const seen = new Set(data.map((x) => canonicalJson(x)));
    if (seen.size !== data.length)
      res.errors.push(validationError("unique", path, `${path} in ${IN} shouldn't contain duplicates`));
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
      validationError(
        "tooFewProperties",
        path,
        `${path} in ${IN} should have at least ${s.minProperties} properties`,
        {
          value: keys.length,
        },
      ),
    );
    return res;
  }
  if (s.maxProperties !== undefined && keys.length > s.maxProperties) {
    res.errors.push(
      validationError(
        "tooManyProperties",
        path,
        `${path} in ${IN} should have at most ${s.maxProperties} properties`,
        {
          value: keys.length,
          limit: s.maxProperties,
        },
      ),
    );
    return res;
  }
  const additional = additionalSchema(s);
  for (const key of keys) {
    if (s.properties?.has(key)) continue;
    if (s.additionalProperties === false) {
      res.errors.push(
        validationError("unallowedProperty", path, `${path}.${key} in ${IN} is a forbidden property`, {
          value: key,
        }),
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
    if (!(k in data))
      res.errors.push(validationError("required", `${path}.${k}`, `${path}.${k} in ${IN} is required`));
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
