/**
 * The schema checks kube-apiserver runs when a CRD is created or updated: each version's
 * `openAPIV3Schema` must be structural (apiextensions schema/validation.go) and its CEL rules
 * must compile. Field paths and messages follow kube's
 * (`spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: ...`).
 */
import { compileRule } from "./cel/compile.js";
import { type FieldError, FieldPath, fieldErrors } from "./field-error.js";
import { goQuote } from "./go-format.js";
import { isRecord, type SchemaNode, schemaNode, type ValidationRule } from "./structural.js";

const VALUE_VALIDATION_FORBIDDEN = [
  "type",
  "description",
  "default",
  "nullable",
  "additionalProperties",
  "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-embedded-resource",
  "x-kubernetes-int-or-string",
  "x-kubernetes-list-type",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-map-type",
];

export function validateCrdSchema(crd: unknown): FieldError[] {
  const spec = isRecord(crd) && isRecord(crd.spec) ? crd.spec : {};
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  const errs: FieldError[] = [];
  versions.forEach((version, i) => {
    if (!isRecord(version) || !isRecord(version.schema) || !isRecord(version.schema.openAPIV3Schema)) return;
    const path = FieldPath.of(`spec.versions[${i}].schema.openAPIV3Schema`);
    const root = version.schema.openAPIV3Schema;
    if (root.type !== "object") {
      errs.push(
        root.type === undefined
          ? fieldErrors.required(path.child("type").toString(), "must not be empty at the root")
          : fieldErrors.invalid(path.child("type").toString(), root.type, "must be object at the root"),
      );
    }
    checkNode(schemaNode(root), path, { root: true, correlatable: true }, errs);
  });
  return errs;
}

interface Context {
  root: boolean;
  correlatable: boolean;
}

function checkNode(s: SchemaNode, path: FieldPath, ctx: Context, errs: FieldError[]): void {
  const raw = s.raw;
  const at = (k: string): string => path.child(k).toString();
  if (s.intOrString) {
    if (s.type !== "")
      errs.push(
        fieldErrors.invalid(at("type"), s.type, "must be empty if x-kubernetes-int-or-string is true"),
      );
  } else if (s.type === "" && !s.preserveUnknownFields && !ctx.root) {
    errs.push(fieldErrors.required(at("type"), "must not be empty for specified object fields"));
  }
  if (s.type === "array" && !s.items) errs.push(fieldErrors.required(at("items"), "must be specified"));
  if (s.properties && s.additionalProperties !== undefined) {
    errs.push(
      fieldErrors.forbidden(
        at("additionalProperties"),
        "additionalProperties and properties are mutual exclusive",
      ),
    );
  }
  if (s.embeddedResource && s.type !== "object") {
    errs.push(
      fieldErrors.invalid(at("type"), s.type, "must be object if x-kubernetes-embedded-resource is true"),
    );
  }
  if (s.listType === "map") {
    if (s.listMapKeys.length === 0) {
      errs.push(
        fieldErrors.required(
          at("x-kubernetes-list-map-keys"),
          'must not be empty if x-kubernetes-list-type is "map"',
        ),
      );
    }
    for (const key of s.listMapKeys) {
      const prop = s.items?.properties?.get(key);
      if (!prop) {
        errs.push(
          fieldErrors.invalid(
            at("x-kubernetes-list-map-keys"),
            s.listMapKeys.join(","),
            `entries must all be names of item properties`,
          ),
        );
      } else if (!s.items?.required.includes(key) && !prop.hasDefault) {
        errs.push(
          fieldErrors.required(
            path.child("items").child("properties").key(key).child("default").toString(),
            "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
          ),
        );
      }
    }
  }
  for (const [name, list] of [
    ["allOf", s.allOf],
    ["anyOf", s.anyOf],
    ["oneOf", s.oneOf],
  ] as const) {
    list.forEach((sub, i) => {
      checkValueValidation(sub, path.child(name).index(i), errs);
    });
  }
  if (s.not) checkValueValidation(s.not, path.child("not"), errs);
  checkRules(s.validations, s, path, ctx, errs);
  if (ctx.root && s.properties?.get("metadata"))
    checkRootMetadata(s.properties.get("metadata") as SchemaNode, path, errs);
  for (const [name, prop] of s.properties ?? []) {
    checkNode(
      prop,
      path.child("properties").key(name),
      { root: false, correlatable: ctx.correlatable },
      errs,
    );
  }
  if (typeof s.additionalProperties === "object") {
    checkNode(
      s.additionalProperties,
      path.child("additionalProperties"),
      { root: false, correlatable: ctx.correlatable },
      errs,
    );
  }
  if (s.items) {
    const correlatable = ctx.correlatable && s.listType === "map";
    checkNode(s.items, path.child("items"), { root: false, correlatable }, errs);
  }
  if (raw.uniqueItems === true)
    errs.push(
      fieldErrors.forbidden(
        at("uniqueItems"),
        "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
      ),
    );
}

/** Inside allOf/anyOf/oneOf/not only value validations are allowed (no types, no defaults). */
function checkValueValidation(s: SchemaNode, path: FieldPath, errs: FieldError[]): void {
  for (const key of VALUE_VALIDATION_FORBIDDEN) {
    if (s.raw[key] === undefined) continue;
    // kube allows the int-or-string idiom anyOf: [{type: integer}, {type: string}].
    if (key === "type" && (s.raw.type === "integer" || s.raw.type === "string")) continue;
    errs.push(fieldErrors.forbidden(path.child(key).toString(), "must be empty to be structural"));
  }
  for (const [name, prop] of s.properties ?? [])
    checkValueValidation(prop, path.child("properties").key(name), errs);
  if (s.items) checkValueValidation(s.items, path.child("items"), errs);
}

function checkRootMetadata(meta: SchemaNode, path: FieldPath, errs: FieldError[]): void {
  for (const [name] of meta.properties ?? []) {
    if (name !== "name" && name !== "generateName") {
      errs.push(
        fieldErrors.forbidden(
          path.child("properties").key("metadata").child("properties").key(name).toString(),
          "must not be specified",
        ),
      );
    }
  }
}

function checkRules(
  rules: readonly ValidationRule[],
  s: SchemaNode,
  path: FieldPath,
  ctx: Context,
  errs: FieldError[],
): void {
  rules.forEach((rule, i) => {
    const rulePath = path.child("x-kubernetes-validations").index(i);
    if (rule.rule.trim() === "") {
      errs.push(fieldErrors.required(rulePath.child("rule").toString(), "rule is not specified"));
      return;
    }
    const compiled = compileRule(rule, s);
    if (compiled.error) {
      const field = compiled.error.startsWith("messageExpression")
        ? rulePath.child("messageExpression").toString()
        : compiled.error.startsWith("fieldPath")
          ? rulePath.child("fieldPath").toString()
          : rulePath.child("rule").toString();
      const detail = compiled.error.replace(/^fieldPath: Invalid value: "[^"]*": /, "");
      errs.push(ruleError(field, rule, detail));
      return;
    }
    if (compiled.usesOldSelf && !ctx.correlatable && rule.optionalOldSelf !== true) {
      errs.push(
        fieldErrors.invalid(
          rulePath.child("rule").toString(),
          rule.rule,
          `oldSelf cannot be used on the uncorrelatable portion of the schema within ${path.toString()}`,
        ),
      );
    }
    if (rule.optionalOldSelf === true && !compiled.usesOldSelf) {
      errs.push(
        fieldErrors.invalid(
          rulePath.child("optionalOldSelf").toString(),
          true,
          "may not be set if oldSelf is not used in rule",
        ),
      );
    }
  });
}

/** kube prints the rule struct with `%#v`: `apiextensions.ValidationRule{Rule:"...", ...}`. */
function ruleError(field: string, rule: ValidationRule, detail: string): FieldError {
  const ptr = (t: string, v: unknown): string => (v === undefined ? `(*${t})(nil)` : `(*${t})(0xc000000000)`);
  const value =
    `apiextensions.ValidationRule{Rule:${goQuote(rule.rule)}, Message:${goQuote(rule.message ?? "")}, ` +
    `MessageExpression:${goQuote(rule.messageExpression ?? "")}, Reason:${ptr("apiextensions.FieldValueErrorReason", rule.reason)}, ` +
    `FieldPath:${goQuote(rule.fieldPath ?? "")}, OptionalOldSelf:${ptr("bool", rule.optionalOldSelf)}}`;
  return {
    type: "FieldValueInvalid",
    field,
    message: `${field}: Invalid value: ${value}: ${detail}`,
    badValue: rule,
  };
}
