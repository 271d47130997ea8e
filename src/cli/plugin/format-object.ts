import { stringify } from "yaml";

export type ObjectFormat = "yaml" | "json";

/**
 * Objects as `kubectl get -o yaml|json` prints them: managedFields left out (as kubectl
 * does unless --show-managed-fields), several objects wrapped in a `v1` List.
 */
export function formatObjects(objects: readonly unknown[], format: ObjectFormat, asList: boolean): string {
  const cleaned = objects.map(withoutManagedFields);
  const value = asList
    ? { apiVersion: "v1", kind: "List", items: cleaned, metadata: { resourceVersion: "" } }
    : cleaned[0];
  return format === "json" ? `${JSON.stringify(value, null, 4)}\n` : toYaml(value);
}

/** YAML in kubectl's style: sequences not indented under their key, no line folding. */
export function toYaml(value: unknown): string {
  return stringify(JSON.parse(JSON.stringify(value ?? null)), { indentSeq: false, lineWidth: 0 });
}

function withoutManagedFields(object: unknown): unknown {
  if (!isRecord(object) || !isRecord(object.metadata)) return object;
  const { managedFields: _dropped, ...metadata } = object.metadata;
  // Rebuilt entry by entry so `metadata` keeps its place after apiVersion and kind.
  return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, k === "metadata" ? metadata : v]));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
