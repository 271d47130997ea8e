import { Labels, type PetSet, type PetSetVersion } from "../api/index.js";
import { VersionHistory } from "../versions/history.js";
import { selectVersionsToDelete } from "./select.js";

/** The least of a pod the GC reads: client-node's V1Pod satisfies it. */
export interface PodLike {
  readonly metadata?: { readonly name?: string; readonly labels?: Readonly<Record<string, string>> };
}

export interface VersionGcDeps {
  /** The PetSet's versions from the informer cache (a wider list is fine: only owned ones count). */
  listVersions(namespace: string, petSet: string): readonly PetSetVersion[];
  /** Pods labelled `petset.dev/petset=<petSet>`, from the informer cache. */
  listPods(namespace: string, petSet: string): readonly PodLike[];
  /**
   * Delete a version with `preconditions: { uid, resourceVersion }`. Resolves once the API
   * accepted the delete; rejects with the API error otherwise (404 and 409 are recognised
   * by `apiErrorReason`).
   */
  deleteVersion(namespace: string, name: string, uid: string, resourceVersion: string): Promise<void>;
  /** Aborted when this replica may no longer write (lost Lease): the run stops at once. */
  signal?: AbortSignal;
}

export interface VersionGcResult {
  /** Deleted by this run, oldest first. */
  readonly deleted: string[];
  /** Selected but already gone (404): someone else deleted them first. */
  readonly alreadyGone: string[];
  /** Selected but changed since the cache saw them (409): the next run decides again. */
  readonly conflicted: string[];
  /** Why nothing was collected, when the run refused to decide. */
  readonly blocked?: string;
}

/** Deleting some versions failed for a reason other than NotFound or Conflict. */
export class VersionGcError extends Error {
  readonly reason = "VersionGcFailed";
  constructor(
    readonly petSet: string,
    readonly failures: ReadonlyArray<{ readonly name: string; readonly cause: unknown }>,
    readonly result: VersionGcResult,
  ) {
    super(
      `PetSet ${petSet}: deleting old versions failed: ${failures.map((f) => `${f.name}: ${describe(f.cause)}`).join("; ")}`,
      { cause: failures[0]?.cause },
    );
    this.name = "VersionGcError";
  }
}

/** Deletes one GC run has in flight at once (docs/versions.md, "Collection order"). */
export const GC_DELETES_IN_FLIGHT = 16;

/** `items` in consecutive groups of at most `size`, in order. */
export function waves<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Trim a PetSet's history (guarantee 6). Meant to run after every sync, failed or not.
 * Reads only the caches, decides with selectVersionsToDelete, deletes oldest first with
 * uid + resourceVersion preconditions (in waves of GC_DELETES_IN_FLIGHT) so a version re-created or adopted meanwhile is
 * never hit. When a pod's version cannot be told, it collects nothing: a guess could
 * delete a version in use.
 */
export async function runVersionGc(deps: VersionGcDeps, petset: PetSet): Promise<VersionGcResult> {
  const name = petset.metadata.name ?? "";
  const namespace = petset.metadata.namespace ?? "";
  const owned = VersionHistory.of(petset, deps.listVersions(namespace, name)).owned;
  const inUse = versionsInUse(deps.listPods(namespace, name), name, owned);
  if (typeof inUse === "string") return { deleted: [], alreadyGone: [], conflicted: [], blocked: inUse };

  const toDelete = selectVersionsToDelete({
    versions: owned,
    currentVersion: petset.status?.currentVersion,
    updateVersion: petset.status?.updateVersion,
    lastCompleteVersion: petset.status?.lastCompleteVersion,
    versionsInUseByPods: inUse,
    revisionHistoryLimit: petset.spec.revisionHistoryLimit,
  });
  const result = { deleted: [] as string[], alreadyGone: [] as string[], conflicted: [] as string[] };
  const failures: Array<{ name: string; cause: unknown }> = [];
  const byName = new Map(owned.map((v) => [v.metadata.name, v]));
  const deleteOne = async (versionName: string): Promise<void> => {
    const version = byName.get(versionName);
    const { uid, resourceVersion } = version?.metadata ?? {};
    if (uid === undefined || resourceVersion === undefined) {
      failures.push({ name: versionName, cause: new Error("no metadata.uid/resourceVersion in the cache") });
      return;
    }
    try {
      await deps.deleteVersion(namespace, versionName, uid, resourceVersion);
      result.deleted.push(versionName);
    } catch (error) {
      const reason = apiErrorReason(error);
      if (reason === "NotFound") result.alreadyGone.push(versionName);
      else if (reason === "Conflict") result.conflicted.push(versionName);
      else failures.push({ name: versionName, cause: error });
      // A replica that may not write any more (lease-guard.ts) stops here: no point trying the rest.
      if (isRefusedWrite(error)) stopped = true;
    }
  };
  let stopped = false;
  // Oldest first, in waves of at most GC_DELETES_IN_FLIGHT: a wave is sent only once the one
  // before it finished, so no version is deleted while a version more than one wave older
  // is still there (within a wave the API may finish deletes in any order). A run cut short
  // leaves the newest history, give or take one wave; in steady state a sync deletes one.
  for (const wave of waves(toDelete, GC_DELETES_IN_FLIGHT)) {
    if (stopped) break;
    if (deps.signal?.aborted) {
      failures.push({ name: wave[0] ?? "", cause: deps.signal.reason ?? new Error("aborted") });
      break;
    }
    await Promise.all(wave.map(deleteOne));
  }
  const position = new Map(toDelete.map((n, i) => [n, i]));
  const order = (a: string, b: string) => (position.get(a) ?? 0) - (position.get(b) ?? 0);
  result.deleted.sort(order);
  result.alreadyGone.sort(order);
  result.conflicted.sort(order);
  if (failures.length > 0) throw new VersionGcError(name, failures, result);
  return result;
}

/**
 * Version numbers the PetSet's pods run, from `petset.dev/version`, else from
 * `petset.dev/hash`; a message naming the pod when neither tells. Pods not labelled for
 * this PetSet are ignored.
 */
function versionsInUse(
  pods: readonly PodLike[],
  petSet: string,
  owned: readonly PetSetVersion[],
): number[] | string {
  const numbers: number[] = [];
  for (const pod of pods) {
    const labels = pod.metadata?.labels ?? {};
    if (labels[Labels.petSet] !== petSet) continue;
    const label = labels[Labels.version];
    if (label !== undefined && /^[1-9][0-9]*$/.test(label)) {
      numbers.push(Number(label));
      continue;
    }
    const hash = labels[Labels.hash];
    const byHash = owned.filter((v) => hash !== undefined && v.spec.hash === hash).map((v) => v.spec.version);
    if (byHash.length === 0) {
      return `pod ${pod.metadata?.name ?? "(unnamed)"} has no usable ${Labels.version} or ${Labels.hash} label`;
    }
    numbers.push(...byHash);
  }
  return numbers;
}

/**
 * `NotFound` / `Conflict` for the API errors the GC tolerates, from the shapes our clients
 * produce: client-node's ApiException (`code`, `body`), a Kubernetes `Status` (`reason`,
 * `code`), or an error carrying `statusCode`.
 */
export function apiErrorReason(error: unknown): "NotFound" | "Conflict" | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const e = error as { code?: unknown; statusCode?: unknown; reason?: unknown; body?: unknown };
  const body = parseBody(e.body);
  const codes = [e.code, e.statusCode, body?.code];
  const reasons = [e.reason, body?.reason];
  if (codes.includes(404) || reasons.includes("NotFound")) return "NotFound";
  if (codes.includes(409) || reasons.includes("Conflict")) return "Conflict";
  return undefined;
}

function parseBody(body: unknown): { code?: unknown; reason?: unknown } | undefined {
  if (typeof body === "string") {
    try {
      return parseBody(JSON.parse(body));
    } catch {
      return undefined;
    }
  }
  return typeof body === "object" && body !== null
    ? (body as { code?: unknown; reason?: unknown })
    : undefined;
}

function isRefusedWrite(error: unknown): boolean {
  return (
    typeof error === "object" && error !== null && (error as { reason?: unknown }).reason === "LeaseLost"
  );
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
