/**
 * The `kubectl.kubernetes.io/last-applied-configuration` annotation exactly as `kubectl apply`
 * writes it when it creates an object (k8s.io/kubectl pkg/util/apply.go, CreateApplyAnnotation):
 * the manifest as read, with `metadata.namespace` set for namespaced kinds, its own
 * last-applied annotation removed and `metadata.annotations` present (`{}` when empty), encoded
 * as Go's encoding/json encodes an unstructured object: keys sorted, `<`, `>`, `&`, U+2028 and
 * U+2029 escaped, a trailing newline. Byte for byte, so that a later `kubectl apply -f` of the
 * same file finds nothing to change and says `unchanged` (no "missing annotation" warning).
 */

export const LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The manifest with kubectl's last-applied annotation added (a copy; the input is not changed). */
export function withLastApplied(manifest: Record<string, unknown>): Record<string, unknown> {
  const metadata = (manifest.metadata ?? {}) as Record<string, unknown>;
  const { [LAST_APPLIED_ANNOTATION]: _previous, ...annotations } = (metadata.annotations ?? {}) as Record<
    string,
    string
  >;
  const config = { ...manifest, metadata: { ...metadata, annotations } };
  return {
    ...manifest,
    metadata: {
      ...metadata,
      annotations: { ...annotations, [LAST_APPLIED_ANNOTATION]: `${goJson(config as Json)}\n` },
    },
  };
}

/** Go's `json.Marshal` of a decoded JSON value (map keys sorted, HTML-safe strings). */
export function goJson(value: Json): string {
  if (value === null || typeof value === "boolean" || typeof value === "number") return JSON.stringify(value);
  if (typeof value === "string") return goString(value);
  if (Array.isArray(value)) return `[${value.map(goJson).join(",")}]`;
  const keys = Object.keys(value)
    .filter((k) => value[k] !== undefined)
    .sort(byUtf8);
  return `{${keys.map((k) => `${goString(k)}:${goJson(value[k] as Json)}`).join(",")}}`;
}

function goString(s: string): string {
  return JSON.stringify(s).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** Go sorts map keys as byte strings (UTF-8), not as UTF-16 code units. */
function byUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}
