/**
 * Validation of a custom resource against its CRD version schema, in the order
 * apiextensions-apiserver's strategy runs it: OpenAPI value validation (kube-openapi), the
 * list-type set/map invariants, then — unless a blocking error (type, required, enum, too
 * long, too many) means the object does not have the shape the rules were written for — the
 * CEL rules. With `oldObj` (an update) transition rules run and unchanged values ratchet.
 */
import { validateCel } from "./cel/validator.js";
import { type FieldError, FieldPath, fieldErrors } from "./field-error.js";
import { validateListSetsAndMaps } from "./list-type.js";
import { openApiErrorsToFieldErrors } from "./openapi-errors.js";
import { validateOpenApi } from "./openapi-validate.js";
import { type JSONSchemaProps, schemaNode } from "./structural.js";

const BLOCKING = new Set<FieldError["type"]>([
  "FieldValueNotSupported",
  "FieldValueRequired",
  "FieldValueTooLong",
  "FieldValueTooMany",
  "FieldValueTypeInvalid",
]);

export const CEL_SKIPPED_DETAIL =
  "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation";

/** `extra`: the strategy's own checks (the scale replicas paths), placed after the OpenAPI errors as kube does. */
export function validateObject(
  schema: JSONSchemaProps,
  obj: unknown,
  oldObj?: unknown,
  extra: readonly FieldError[] = [],
): FieldError[] {
  const root = schemaNode(schema);
  const isUpdate = oldObj !== undefined && oldObj !== null;
  const openApi = validateOpenApi(root, obj, "", isUpdate ? { value: oldObj } : undefined);
  const errs = openApiErrorsToFieldErrors(openApi.errors, FieldPath.root);
  errs.push(...extra);
  // On update the list invariants ratchet as a whole: only checked if the old object met them.
  if (!isUpdate || validateListSetsAndMaps(root, oldObj).length === 0)
    errs.push(...validateListSetsAndMaps(root, obj));
  if (errs.some((e) => BLOCKING.has(e.type))) {
    errs.push(fieldErrors.invalid(FieldPath.root.toString(), null, CEL_SKIPPED_DETAIL));
    return errs;
  }
  errs.push(...validateCel(root, obj, isUpdate ? oldObj : undefined, FieldPath.root));
  return errs;
}
