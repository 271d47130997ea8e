/**
 * Pruning of unknown fields, as apiextensions-apiserver's schema/pruning does it: every field
 * the structural schema does not declare is dropped, except under
 * `x-kubernetes-preserve-unknown-fields` and, for embedded resources (and the resource root),
 * `apiVersion`, `kind` (strings) and `metadata` (an object; the server coerces it to ObjectMeta).
 */
import { isRecord, type JSONSchemaProps, type SchemaNode, schemaNode } from "./structural.js";

/** Prunes `obj` in place against the CRD version's `openAPIV3Schema`, treating it as a resource root. */
export function pruneUnknownFields(schema: JSONSchemaProps, obj: unknown): void {
  pruneValue(obj, schemaNode(schema), true);
}

function pruneValue(x: unknown, s: SchemaNode | undefined, embedded: boolean): void {
  if (s?.preserveUnknownFields) {
    skipPrune(x, s, embedded || s.embeddedResource);
    return;
  }
  if (Array.isArray(x)) {
    for (const item of x) pruneValue(item, s?.items, s?.items?.embeddedResource ?? false);
    return;
  }
  if (!isRecord(x)) return;
  if (!s) {
    for (const k of Object.keys(x)) delete x[k];
    return;
  }
  const isEmbedded = embedded || s.embeddedResource;
  const additional = s.additionalProperties;
  for (const [k, v] of Object.entries(x)) {
    if (isEmbedded && keepsResourceField(k, v)) continue;
    const prop = s.properties?.get(k);
    if (prop) {
      pruneValue(v, prop, prop.embeddedResource);
    } else if (typeof additional === "object") {
      pruneValue(v, additional, additional.embeddedResource);
    } else if (additional === true) {
      // additionalProperties: true keeps the field (only legal with preserve-unknown-fields).
    } else {
      delete x[k];
    }
  }
}

/** Under preserve-unknown-fields unknown fields stay, but declared ones are still pruned below. */
function skipPrune(x: unknown, s: SchemaNode, embedded: boolean): void {
  if (Array.isArray(x)) {
    if (s.items) for (const item of x) pruneValue(item, s.items, s.items.embeddedResource);
    return;
  }
  if (!isRecord(x)) return;
  const additional = s.additionalProperties;
  for (const [k, v] of Object.entries(x)) {
    if (embedded && keepsResourceField(k, v)) continue;
    const prop = s.properties?.get(k);
    if (prop) pruneValue(v, prop, prop.embeddedResource);
    else if (typeof additional === "object") pruneValue(v, additional, additional.embeddedResource);
  }
}

function keepsResourceField(k: string, v: unknown): boolean {
  switch (k) {
    case "apiVersion":
    case "kind":
      return typeof v === "string";
    case "metadata":
      return isRecord(v);
    default:
      return false;
  }
}
