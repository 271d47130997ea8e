/**
 * Expectations (SPEC rule 9), as client-go's ControllerExpectations but per object: every
 * write a sync issues leaves an expectation of what the informer cache will show once it has
 * caught up with that write. The next sync of the same PetSet plans only when the cache shows
 * all of them, so every decision is made on a view at least as new as the controller's own
 * writes. Pure functions over plain data; the ExpectationStore below only keeps them per key.
 *
 * Rules:
 *  - create (pod, claim, version) → `present`: the cache shows an object of that name (any
 *    uid: the name was free when the create landed, so another incarnation can only be newer).
 *  - delete (pod, claim) → `gone`: the cache shows no object with that uid under the name, or
 *    shows it terminating (deletionTimestamp set). A delete that returned NotFound expects the
 *    same, and ends the plan: the view it was made on was stale, so the rest of its steps are
 *    not executed (a NotFound never buys a second delete within maxUnavailable).
 *  - patch with a resourceVersion precondition (or one that failed with 409) → `changed`:
 *    the cache shows that uid at a resourceVersion other than the one the write was based on,
 *    or no longer shows it (without a uid, the resourceVersion alone decides). Watch events of
 *    one object arrive in order, so any other resourceVersion of that object is at least as
 *    new as our write (no ordering of resourceVersions is assumed: they are opaque). A write
 *    the server answered with the resourceVersion it was based on changed nothing (a no-op
 *    patch): nothing is expected of it.
 *  - An expectation not observed within the timeout is dropped (a relist can skip states);
 *    the caller logs it and counts it in `petset_expectations_expired_total`.
 *
 * When an expectation is recorded (issue 24): intent first for creates and deletes, after the
 * answer for patches.
 *  - Creates and deletes (expectBefore): the expectation is recorded before the request is
 *    sent, withdrawn when the API server refuses it (write-answer.ts: a Status answer; 409
 *    AlreadyExists and a delete's NotFound keep it, the object exists or is gone), and kept
 *    on an indeterminate answer (timeout, reset, a 504) until the cache shows the object or it
 *    expires. A create whose answer was lost may have landed; an object that exists but that
 *    the cache does not show yet is invisible to the planner, which would count a free pet, a
 *    version not live, a budget unused, and decide on that: create a pod of a third version,
 *    or a second pod for a pet. The same holds for a delete: the cache still shows the pod it
 *    deleted as available. So a lost answer holds the next plan until the cache shows what
 *    happened, or 30 s if nothing did (the cost of not knowing: safety over liveness).
 *  - A lost answer is first resolved by resending the same write (RESEND_LOST_ANSWER): every
 *    create here names its object and every delete carries a uid precondition, so a resend
 *    cannot make a second object nor delete a newer one. Its answer says what happened:
 *    success (it had not landed, now it has), AlreadyExists or NotFound (it had landed), or
 *    another refusal (unknown: the expectation stays). Only the first attempt's refusal
 *    withdraws the expectation: after a lost answer, a later refusal (a 409 on the delete's
 *    resourceVersion, a quota the first create used up) does not say the first one failed.
 *    Without it, one reset on a pod create stalled the rollout for 30 s (the embedded
 *    network-faults test, CI of 1afd441). Resends stop within RESEND_LOST_ANSWER.budgetMs of
 *    the first send, so a partition holds a worker seconds, not minutes.
 *  - Patches with a resourceVersion precondition (pod relabels and in-place updates, version
 *    facts, ownerReferences, the PetSet's status and rollbacks): after the answer. The object
 *    stays visible either way, at the state the write was based on, and a plan on that view
 *    repeats the same write, whose precondition then fails with 409 if the first one landed
 *    (which expects the change). An intent-first expectation of a patch lost before it landed
 *    would hold every later sync of the PetSet for the timeout (30 s) for nothing: the status
 *    write, issued on every change, made that visible under network faults.
 */

import { sleep } from "../util/sleep.js";
import { isAlreadyExists, isNotFound } from "./api-errors.js";
import { isDefiniteRefusal } from "./write-answer.js";

export type ExpectedResource = "pods" | "persistentvolumeclaims" | "petsetversions" | "petsets";

/** `R`: the resources a store's lookup knows (hook Jobs keep their own store, with "jobs"). */
export type Expectation<R extends string = ExpectedResource> =
  | { kind: "present"; resource: R; name: string; uid?: string }
  | { kind: "gone"; resource: R; name: string; uid: string }
  | { kind: "changed"; resource: R; name: string; uid?: string; from: string };

/** Takes back one recorded expectation (its write was refused: the cache will never show it). */
export type Withdraw = () => void;

/** Records what the cache must show before the next plan; returns how to take it back. */
export type Expect<R extends string = ExpectedResource> = (e: Expectation<R>) => Withdraw | undefined;

/** When a write whose answer was lost is sent again (see the header). */
export interface ResendPolicy {
  /** Wait before each resend, in order; one resend per entry. */
  readonly delaysMs: readonly number[];
  /** No resend starts later than this after the first send. */
  readonly budgetMs: number;
}

export const RESEND_LOST_ANSWER: ResendPolicy = { delaysMs: [200, 400, 800, 1600], budgetMs: 5_000 };

/** Never resend (a write that is not safe to repeat). */
export const NO_RESEND: ResendPolicy = { delaysMs: [], budgetMs: 0 };

/**
 * A create or a delete, intent first (see the header): `e` is recorded before `write` is
 * sent, withdrawn if the API server refuses the write, kept if the answer is lost or says the
 * object exists (AlreadyExists) or is gone already (NotFound on a delete, `gone` only). A lost
 * answer is resent under `resend`.
 */
export async function expectBefore<T, R extends string = ExpectedResource>(
  expect: Expect<R> | undefined,
  e: Expectation<R>,
  write: () => Promise<T>,
  resend: ResendPolicy = RESEND_LOST_ANSWER,
): Promise<T> {
  return sendWithIntent(expect?.(e), e, write, resend);
}

/** expectBefore once `e` is recorded (`withdraw` takes it back): for callers that keep it. */
export async function sendWithIntent<T, R extends string = ExpectedResource>(
  withdraw: Withdraw | undefined,
  e: Expectation<R>,
  write: () => Promise<T>,
  resend: ResendPolicy = RESEND_LOST_ANSWER,
): Promise<T> {
  const start = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      const definite = isDefiniteRefusal(err);
      const delay = resend.delaysMs[attempt];
      if (!definite && delay !== undefined && Date.now() - start + delay <= resend.budgetMs) {
        await sleep(delay);
        continue;
      }
      const alreadyDone =
        (e.kind === "present" && isAlreadyExists(err)) || (e.kind === "gone" && isNotFound(err));
      // After a lost answer, a refusal does not say the first send failed.
      if (withdraw !== undefined && definite && !alreadyDone && attempt === 0) withdraw();
      throw err;
    }
  }
}

/** What the cache holds under a name: enough to judge an expectation. */
export interface CachedObject {
  uid: string;
  resourceVersion: string;
  terminating: boolean;
}

export type CacheLookup<R extends string = ExpectedResource> = (
  resource: R,
  name: string,
) => CachedObject | undefined;

export function isObserved<R extends string>(e: Expectation<R>, lookup: CacheLookup<R>): boolean {
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

export function describeExpectation<R extends string>(e: Expectation<R>): string {
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

interface Pending<R extends string> {
  expectation: Expectation<R>;
  /** Clock time it was recorded at. */
  at: number;
  /** An informer event showed an object of that name (`present` only): met even if it is gone since. */
  seen?: boolean;
}

export interface PendingCheck<R extends string = ExpectedResource> {
  /** Expectations the cache has not shown yet (not expired). */
  pending: Expectation<R>[];
  /** Expectations dropped by this check because they timed out. */
  expired: Expectation<R>[];
  /** When the oldest pending one expires (clock time), if any. */
  expiresAt?: number;
}

/** Expectations per PetSet key. Memory only: a restarted controller lists fresh caches. */
export class ExpectationStore<R extends string = ExpectedResource> {
  private readonly byKey = new Map<string, Pending<R>[]>();

  constructor(private readonly timeoutMs: number) {}

  /** Records an expectation; the returned function withdraws exactly this one. */
  expect(key: string, expectation: Expectation<R>, now: number): Withdraw {
    const entry: Pending<R> = { expectation, at: now };
    const list = this.byKey.get(key) ?? [];
    list.push(entry);
    this.byKey.set(key, list);
    return () => {
      const left = (this.byKey.get(key) ?? []).filter((p) => p !== entry);
      if (left.length === 0) this.byKey.delete(key);
      else this.byKey.set(key, left);
    };
  }

  /** Drops observed and timed-out expectations of `key`; reports what is left. */
  check(key: string, lookup: CacheLookup<R>, now: number): PendingCheck<R> {
    const list = this.byKey.get(key);
    if (list === undefined) return { pending: [], expired: [] };
    const left: Pending<R>[] = [];
    const expired: Expectation<R>[] = [];
    for (const p of list) {
      if (p.seen === true || isObserved(p.expectation, lookup)) continue;
      if (now - p.at >= this.timeoutMs) expired.push(p.expectation);
      else left.push(p);
    }
    if (left.length === 0) this.byKey.delete(key);
    else this.byKey.set(key, left);
    const result: PendingCheck<R> = { pending: left.map((p) => p.expectation), expired };
    if (left.length > 0) result.expiresAt = Math.min(...left.map((p) => p.at)) + this.timeoutMs;
    return result;
  }

  /**
   * An informer event of `key`'s object `resource/name` (add, update or delete): a `present`
   * expectation of that name is met even when the object is gone by the time the next sync
   * looks (created, then deleted by someone else before any sync saw it), as client-go's
   * CreationObserved counts the add event, not what the cache holds later. Without this a
   * create followed by a quick delete held the PetSet until the timeout (found by the model
   * checker, issue 24).
   */
  observed(key: string, resource: R, name: string): void {
    for (const p of this.byKey.get(key) ?? []) {
      const e = p.expectation;
      if (e.kind === "present" && e.resource === resource && e.name === name) p.seen = true;
    }
  }

  /** Drops the expectations of `key` that `matches` selects (ones the cache can never show). */
  drop(key: string, matches: (e: Expectation<R>) => boolean): void {
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
