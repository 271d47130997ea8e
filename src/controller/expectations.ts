/**
 * Expectations (SPEC rule 9), as client-go's ControllerExpectations but per object: every
 * write a sync issues leaves an expectation of what the informer cache will show once it has
 * caught up with that write. The next sync of the same PetSet plans only when the cache shows
 * all of them, so every decision is made on a view at least as new as the controller's own
 * writes. Pure functions over plain data; the ExpectationStore below only keeps them per key.
 *
 * Rules:
 *  - create (pod, claim, version) → `present`: the cache shows an object of that name. With
 *    the uid from the create response, a different uid also counts: the name was free when the
 *    create succeeded, so another incarnation can only be newer than ours.
 *  - create that failed with AlreadyExists → `present` (any uid): the cache missed an object.
 *  - delete (pod, claim) → `gone`: the cache shows no object with that uid under the name, or
 *    shows it terminating (deletionTimestamp set). A delete that returned NotFound expects the
 *    same, and ends the plan: the view it was made on was stale, so the rest of its steps are
 *    not executed (a NotFound never buys a second delete within maxUnavailable).
 *  - patch with a resourceVersion precondition (or one that failed with 409) → `changed`:
 *    the cache shows that uid at a resourceVersion other than the one the write was based on,
 *    or no longer shows it (without a uid, the resourceVersion alone decides). Watch events of one object arrive in order, so any other
 *    resourceVersion of that object is at least as new as our write (no ordering of
 *    resourceVersions is assumed: they are opaque).
 *  - An expectation not observed within the timeout is dropped (a relist can skip states);
 *    the caller logs it and counts it in `petset_expectations_expired_total`.
 */

export type ExpectedResource = "pods" | "persistentvolumeclaims" | "petsetversions" | "petsets";

export type Expectation =
  | { kind: "present"; resource: ExpectedResource; name: string; uid?: string }
  | { kind: "gone"; resource: ExpectedResource; name: string; uid: string }
  | { kind: "changed"; resource: ExpectedResource; name: string; uid?: string; from: string };

/** What the cache holds under a name: enough to judge an expectation. */
export interface CachedObject {
  uid: string;
  resourceVersion: string;
  terminating: boolean;
}

export type CacheLookup = (resource: ExpectedResource, name: string) => CachedObject | undefined;

export function isObserved(e: Expectation, lookup: CacheLookup): boolean {
  const cached = lookup(e.resource, e.name);
  switch (e.kind) {
    case "present":
      return cached !== undefined;
    case "gone":
      return cached === undefined || cached.uid !== e.uid || cached.terminating;
    case "changed":
      return (
        cached === undefined ||
        (e.uid !== undefined && cached.uid !== e.uid) ||
        cached.resourceVersion !== e.from
      );
  }
}

export function describeExpectation(e: Expectation): string {
  const what = `${e.resource}/${e.name}`;
  switch (e.kind) {
    case "present":
      return `${what} to appear`;
    case "gone":
      return `${what} (uid ${e.uid}) to be deleted`;
    case "changed":
      return `${what} to move past resourceVersion ${e.from}`;
  }
}

interface Pending {
  expectation: Expectation;
  /** Clock time it was recorded at. */
  at: number;
}

export interface PendingCheck {
  /** Expectations the cache has not shown yet (not expired). */
  pending: Expectation[];
  /** Expectations dropped by this check because they timed out. */
  expired: Expectation[];
  /** When the oldest pending one expires (clock time), if any. */
  expiresAt?: number;
}

/** Expectations per PetSet key. Memory only: a restarted controller lists fresh caches. */
export class ExpectationStore {
  private readonly byKey = new Map<string, Pending[]>();

  constructor(private readonly timeoutMs: number) {}

  expect(key: string, expectation: Expectation, now: number): void {
    const list = this.byKey.get(key) ?? [];
    list.push({ expectation, at: now });
    this.byKey.set(key, list);
  }

  /** Drops observed and timed-out expectations of `key`; reports what is left. */
  check(key: string, lookup: CacheLookup, now: number): PendingCheck {
    const list = this.byKey.get(key);
    if (list === undefined) return { pending: [], expired: [] };
    const left: Pending[] = [];
    const expired: Expectation[] = [];
    for (const p of list) {
      if (isObserved(p.expectation, lookup)) continue;
      if (now - p.at >= this.timeoutMs) expired.push(p.expectation);
      else left.push(p);
    }
    if (left.length === 0) this.byKey.delete(key);
    else this.byKey.set(key, left);
    const result: PendingCheck = { pending: left.map((p) => p.expectation), expired };
    if (left.length > 0) result.expiresAt = Math.min(...left.map((p) => p.at)) + this.timeoutMs;
    return result;
  }

  /** Drops the expectations of `key` that `matches` selects (ones the cache can never show). */
  drop(key: string, matches: (e: Expectation) => boolean): void {
    const left = (this.byKey.get(key) ?? []).filter((p) => !matches(p.expectation));
    if (left.length === 0) this.byKey.delete(key);
    else this.byKey.set(key, left);
  }

  forget(key: string): void {
    this.byKey.delete(key);
  }

  get size(): number {
    return this.byKey.size;
  }
}
