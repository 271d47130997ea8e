import type { PetSetVersion } from "../../api/index.js";
import type { PodView } from "./views.js";

/** Content key of a pod whose hash is unknown (no label, unknown version): always outdated. */
export const UNKNOWN_CONTENT = "<unknown>";

/** Lookups over one PetSet's versions. Versions with equal hashes have equal content. */
export interface VersionIndex {
  /** Ascending by version number. */
  readonly sorted: readonly PetSetVersion[];
  readonly newest: PetSetVersion | undefined;
  byNumber(n: number | undefined): PetSetVersion | undefined;
  /** Newest version with this hash. */
  newestWithHash(hash: string): PetSetVersion | undefined;
  /** The content (hash) a pod runs: its hash label, else the hash of its version label. */
  contentOf(pod: PodView): string;
}

export function indexVersions(versions: readonly PetSetVersion[]): VersionIndex {
  const sorted = [...versions].sort((a, b) => a.spec.version - b.spec.version);
  const byNumber = new Map(sorted.map((v) => [v.spec.version, v]));
  const byHash = new Map<string, PetSetVersion>();
  for (const v of sorted) byHash.set(v.spec.hash, v);
  return {
    sorted,
    newest: sorted[sorted.length - 1],
    byNumber: (n) => (n === undefined ? undefined : byNumber.get(n)),
    newestWithHash: (hash) => byHash.get(hash),
    contentOf: (pod) =>
      pod.hash ??
      (pod.version !== undefined ? byNumber.get(pod.version)?.spec.hash : undefined) ??
      UNKNOWN_CONTENT,
  };
}

/** JSON with sorted keys, so equal content compares equal whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export interface ImageChange {
  container: string;
  image: string;
}
