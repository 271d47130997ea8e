/**
 * CRD structural schemas as kube-apiserver (apiextensions-apiserver) applies them to custom
 * resources: pruning, defaulting, OpenAPI + CEL validation, the published OpenAPI v3 document,
 * and the structural checks on the CRD itself. See docs/apiserver-shim.md.
 */

export { validateCrdSchema } from "./crd-validation.js";
export { applyDefaults } from "./defaulting.js";
export type { FieldError, FieldErrorType } from "./field-error.js";
export { crdToOpenApiV3 } from "./openapi-v3.js";
export { pruneUnknownFields } from "./prune.js";
export type { JSONSchemaProps } from "./structural.js";
export { validateObject } from "./validate.js";
