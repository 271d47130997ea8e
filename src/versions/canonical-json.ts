/** A JSON value as it travels over the Kubernetes API. */
export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/**
 * JSON text with object keys sorted by UTF-16 code unit and no whitespace.
 *
 * `JSON.stringify` alone is not canonical: it keeps insertion order, except that keys that
 * look like array indices ("10", "9") always come first in numeric order. Label keys can
 * be such strings, so the order is spelled out here and does not depend on how an object
 * was built. Strings and numbers use `JSON.stringify`'s (ES2019, well-formed) escaping.
 */
export function canonicalJson(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort(compareCodeUnits);
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key] as Json)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Plain code-unit order, spelled out so no locale ever takes part. */
export function compareCodeUnits(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
