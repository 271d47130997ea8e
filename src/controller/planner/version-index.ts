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

/**
 * The container image changes that turn `from` into `to`, when they are the only difference
 * (same containers in the same order, same init containers, same claim templates); otherwise
 * undefined. Init-container images are excluded on purpose: a running pod never re-runs its
 * init containers, so changing one needs a new pod.
 */
export function imageOnlyChanges(from: PetSetVersion, to: PetSetVersion): ImageChange[] | undefined {
  const fromContainers = from.spec.template.spec.containers;
  const toContainers = to.spec.template.spec.containers;
  if (fromContainers.length !== toContainers.length) return undefined;
  const changes: ImageChange[] = [];
  for (const [i, c] of toContainers.entries()) {
    const before = fromContainers[i];
    if (before === undefined || before.name !== c.name) return undefined;
    if (before.image !== c.image) {
      if (c.image === undefined) return undefined;
      changes.push({ container: c.name, image: c.image });
    }
  }
  if (changes.length === 0) return undefined;
  const withoutImages = (v: PetSetVersion): string =>
    canonicalJson({
      template: {
        ...v.spec.template,
        spec: {
          ...v.spec.template.spec,
          containers: v.spec.template.spec.containers.map((c) => ({ ...c, image: undefined })),
        },
      },
      volumeClaimTemplates: v.spec.volumeClaimTemplates,
    });
  return withoutImages(from) === withoutImages(to) ? changes : undefined;
}
