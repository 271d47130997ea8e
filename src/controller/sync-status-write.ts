/**
 * The status write at the end of a sync: nothing when the status is unchanged; a progress-only
 * change may be held back by the limiter (status-coalescing.ts); the write carries the
 * PetSet's resourceVersion, and its expectation is recorded only once the API answered.
 */
import type { PetSet, PetSetStatus } from "../api/index.js";
import type { Clock } from "../util/clock.js";
import { isConflict, isNotFound } from "./api-errors.js";
import type { Expectation } from "./expectations.js";
import type { StatusUpdater } from "./petset-client.js";
import type { StatusWriteLimiter } from "./status-coalescing.js";
import { sameStatus } from "./status-compare.js";
import { storedStatus } from "./stored-status.js";

/** What the write needs of the sync's context (sync.ts SyncContext has it). */
export interface StatusWriteContext {
  clock: Clock;
  status: StatusUpdater;
  statusWrites?: StatusWriteLimiter;
}

/** Writes the status when it changed; returns in how many ms to retry a write held back. */
export async function writeStatus(
  ctx: StatusWriteContext,
  petSet: PetSet,
  status: PetSetStatus,
  expect: (e: Expectation) => void,
): Promise<number | undefined> {
  const current = storedStatus(petSet);
  if (sameStatus(current, status)) return undefined;
  const key = `${petSet.metadata.namespace ?? "default"}/${petSet.metadata.name ?? ""}`;
  const now = ctx.clock.now();
  if (ctx.statusWrites && petSet.status !== undefined) {
    const decision = ctx.statusWrites.decide(key, now, current, status);
    if (!decision.write) return decision.retryInMs;
  }
  ctx.statusWrites?.wrote(key, now, petSet.metadata.resourceVersion);
  // Expected only once the API answered (as every step, executor.ts): a write lost on the
  // network (a reset, a timeout) may never have landed, and an expectation of it would
  // hold every later sync of this PetSet until the expectation timeout (30 s). If it did
  // land, the retry's precondition fails with 409, which expects the change.
  const changed = () =>
    expect({
      kind: "changed",
      resource: "petsets",
      name: petSet.metadata.name ?? "",
      uid: petSet.metadata.uid ?? "",
      from: petSet.metadata.resourceVersion ?? "",
    });
  try {
    await ctx.status.update(
      petSet.metadata.namespace ?? "default",
      petSet.metadata.name ?? "",
      petSet.metadata.resourceVersion ?? "",
      status,
    );
    changed();
  } catch (err) {
    ctx.statusWrites?.noEcho(key);
    // A newer PetSet is in the cache already or soon: its event re-runs the sync.
    if (isConflict(err)) changed();
    else if (!isNotFound(err)) throw err;
  }
  return undefined;
}
