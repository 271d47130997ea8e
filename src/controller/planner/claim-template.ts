/**
 * What a claim template asks of a claim (claim-updates.ts, the plugin, the tests): its storage
 * request, class, access modes, volumeAttributesClassName, labels and annotations; and storage
 * quantities as exact byte counts, so `1Gi` and `1024Mi` compare equal. Pure.
 */
import type { ClaimTemplate } from "../../api/index.js";
import { canonicalQuantity } from "../../versions/quantity.js";

/** Bytes of a storage quantity (rounded up), undefined when absent or not a quantity. */
export function storageBytes(q: string | number | undefined): bigint | undefined {
  if (q === undefined) return undefined;
  const exact = canonicalQuantity(q);
  if (exact === undefined || exact.startsWith("-")) return undefined;
  const [whole = "0", fraction] = exact.split(".");
  return BigInt(whole) + (fraction !== undefined ? 1n : 0n);
}

/** The shortest binary-suffixed spelling of a byte count that is exact. */
export function formatBytes(bytes: bigint): string {
  for (const [suffix, shift] of [
    ["Ti", 40n],
    ["Gi", 30n],
    ["Mi", 20n],
    ["Ki", 10n],
  ] as const) {
    const unit = 1n << shift;
    if (bytes >= unit && bytes % unit === 0n) return `${bytes / unit}${suffix}`;
  }
  return String(bytes);
}

export interface TemplateFacts {
  name: string;
  request?: string;
  storageClassName?: string;
  accessModes?: readonly string[];
  volumeAttributesClassName?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

function strings(value: unknown): Record<string, string> {
  if (value === null || typeof value !== "object") return {};
  return Object.fromEntries(
    Object.entries(value).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
}

export function templateFacts(t: ClaimTemplate): TemplateFacts {
  const spec = (t.spec ?? {}) as {
    resources?: { requests?: { storage?: string | number } };
    storageClassName?: string;
    accessModes?: string[];
    volumeAttributesClassName?: string;
  };
  const request = spec.resources?.requests?.storage;
  return {
    name: t.metadata.name,
    ...(request !== undefined ? { request: String(request) } : {}),
    ...(spec.storageClassName ? { storageClassName: spec.storageClassName } : {}),
    ...(spec.accessModes !== undefined ? { accessModes: spec.accessModes } : {}),
    ...(spec.volumeAttributesClassName ? { volumeAttributesClassName: spec.volumeAttributesClassName } : {}),
    labels: strings(t.metadata.labels),
    annotations: strings(t.metadata.annotations),
  };
}
