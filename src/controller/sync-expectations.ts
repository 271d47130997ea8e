/**
 * The expectations gate of a sync (expectations.ts): nothing is planned while the caches have
 * not shown this controller's own earlier writes to a PetSet. Reads only the caches.
 */
import type { KubernetesObject } from "@kubernetes/client-node";
import { type CacheLookup, describeExpectation, type ExpectedResource } from "./expectations.js";
import type { SyncContext, SyncResult } from "./sync.js";

/** Fallback wake-up while waiting for the caches (an informer event normally comes first). */
const EXPECTATIONS_POLL_MS = 1_000;

/**
 * Undefined when the caches show every write earlier syncs of `key` made; else the result
 * that makes the queue look again. Expectations that time out are dropped with a warning.
 */
export function awaitExpectations(ctx: SyncContext, key: string, namespace: string): SyncResult | undefined {
  const now = ctx.clock.now();
  const check = ctx.expectations.check(key, cacheLookup(ctx, namespace), now);
  for (const e of check.expired) {
    ctx.metrics.expectationsExpired.inc();
    ctx.logger.warn(
      { petSet: key, expected: describeExpectation(e) },
      "the cache did not show a write of this controller in time; planning anyway",
    );
  }
  if (check.pending.length === 0) return undefined;
  ctx.metrics.expectationWaits.inc();
  ctx.logger.debug(
    { petSet: key, waitingFor: check.pending.map(describeExpectation) },
    "waiting for the caches to show earlier writes",
  );
  const untilExpiry = (check.expiresAt ?? now) - now;
  return { requeueAfterMs: Math.max(1, Math.min(EXPECTATIONS_POLL_MS, untilExpiry)), waiting: true };
}

function cacheLookup(ctx: SyncContext, namespace: string): CacheLookup {
  const caches: Record<ExpectedResource, { get(name: string, ns?: string): KubernetesObject | undefined }> = {
    pods: ctx.caches.pods,
    persistentvolumeclaims: ctx.caches.claims,
    petsetversions: ctx.caches.versions,
    petsets: ctx.caches.petSets,
  };
  return (resource, name) => {
    const obj = caches[resource].get(name, namespace);
    if (obj === undefined) return undefined;
    return {
      uid: obj.metadata?.uid ?? "",
      resourceVersion: obj.metadata?.resourceVersion ?? "",
      terminating: obj.metadata?.deletionTimestamp !== undefined && obj.metadata.deletionTimestamp !== null,
    };
  };
}
