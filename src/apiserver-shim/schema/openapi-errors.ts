/**
 * kube-openapi results to field errors, as apiextensions-apiserver's
 * `kubeOpenAPIResultToFieldErrors` converts them: the error name becomes the field path,
 * required/enum/too-long/too-many/type errors get their own field error types, everything else
 * is `Invalid value` with the kube-openapi message as detail.
 */
import { type FieldError, type FieldPath, fieldErrors } from "./field-error.js";
import type { OpenApiError } from "./openapi-validate.js";

export function openApiErrorsToFieldErrors(errors: readonly OpenApiError[], root: FieldPath): FieldError[] {
  return errors.map((err) => {
    if (err.kind === "plain") return fieldErrors.invalid(root.toString(), "", err.message);
    const path = err.name.length > 0 && err.name !== "." ? root.child(err.name.replace(/^\./, "")) : root;
    const field = path.toString();
    const value = err.value ?? "";
    switch (err.code) {
      case "required":
        return fieldErrors.required(field);
      case "enum":
        return fieldErrors.notSupported(
          field,
          err.value ?? null,
          (err.values ?? []).map((x) => (typeof x === "string" ? x : JSON.stringify(x))),
        );
      case "tooLong":
        return fieldErrors.tooLong(field, value, err.limit ?? -1);
      case "maxItems":
      case "tooManyProperties":
        return fieldErrors.tooMany(field, typeof err.value === "number" ? err.value : -1, err.limit ?? -1);
      case "invalidType":
        return fieldErrors.typeInvalid(field, value, err.message);
      default:
        return fieldErrors.invalid(field, value, err.message);
    }
  });
}
