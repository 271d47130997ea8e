/**
 * Fencing for the controller's writes (SPEC rule 9): a replica writes only while it is sure
 * it holds the Lease.
 *
 * Rules:
 *  - "Sure" means: the last successful renew was *sent* less than `leaseDuration - margin`
 *    ago, measured on a monotonic clock (a frozen or suspended process sees the time it
 *    missed; wall-clock jumps do not count). Another replica takes the Lease only after it
 *    has seen the record unchanged for a whole `leaseDuration` on its own clock, so the margin
 *    covers request latency and clock-rate differences.
 *  - Every write (any non-GET request: executor steps, status, history GC, Events) is checked
 *    by a client-node middleware before it connects, and again on its connected socket as its
 *    bytes go out (fenced-connection.ts); it carries an AbortSignal (writeSignal): when the
 *    Lease is lost, or the time the check allowed runs out first, requests still in flight
 *    are aborted; every later write fails with LeaseLostError before reaching the network.
 *  - Reads (GET, list, watch) are never fenced: caches keep working while a replica waits.
 *  - Without leader election the process is the only writer by configuration: always held.
 */

import { setMaxListeners } from "node:events";
import type { KubeConfig } from "@kubernetes/client-node";
import { abortAfter } from "../util/abort-signal.js";
import { type ApiClass, makeApiClientWith } from "../util/keep-alive.js";
import { FencedAgents } from "./fenced-connection.js";

export { makeApiClientWith } from "../util/keep-alive.js";

/** A write was refused because this replica is not sure it holds the Lease. */
export class LeaseLostError extends Error {
  readonly reason = "LeaseLost";
  constructor(message: string) {
    super(message);
    this.name = "LeaseLostError";
  }
}

export interface LeaseGuard {
  /** Throws LeaseLostError unless this replica may write now. */
  check(): void;
  /** Aborted once the Lease is lost for good; writes carry it. */
  readonly signal: AbortSignal;
  /** Milliseconds this replica may still write: 0 when it may not, Infinity when unfenced. */
  remainingMs(): number;
}

/**
 * A guard's signal: every write in flight listens on it (writeSignal, fenced-connection.ts),
 * dozens at once is normal, not a leak, and must not print Node's MaxListenersExceededWarning
 * on the user's terminal (`petset dev`, `petset demo`).
 */
function sharedSignal(controller = new AbortController()): AbortSignal {
  setMaxListeners(0, controller.signal);
  return controller.signal;
}

/** The guard of a process that runs without leader election. */
export const unfencedGuard: LeaseGuard = {
  check() {},
  signal: sharedSignal(),
  remainingMs: () => Number.POSITIVE_INFINITY,
};

/**
 * The signal a write carries: aborted when the Lease is lost, and also when the fence's
 * validity runs out while the write still waits (for a free socket, for the server). The
 * elector notices a lost Lease only after a renew attempt failed, up to a renew deadline
 * later; a write queued in the HTTP agent until then must not leave the process.
 */
export function writeSignal(guard: LeaseGuard): AbortSignal {
  const remaining = guard.remainingMs();
  if (!Number.isFinite(remaining)) return guard.signal;
  return abortAfter([guard.signal], Math.ceil(remaining));
}

export function isLeaseLost(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof LeaseLostError) return true;
  }
  return false;
}

/** A monotonic clock in milliseconds (performance.now): unaffected by wall-clock changes. */
export interface MonotonicClock {
  now(): number;
}

export const systemMonotonicClock: MonotonicClock = { now: () => performance.now() };

/**
 * The guard's state, owned by the leader elector: it reports each successful renew (with the
 * monotonic time the request was sent) and the final loss.
 */
export class LeaseFence implements LeaseGuard {
  private renewedAt: number | undefined;
  private lostReason: string | undefined;
  private readonly abort = new AbortController();

  constructor(
    private readonly clock: MonotonicClock,
    /** How long after a renew was sent this replica may still write: leaseDuration - margin. */
    private readonly validForMs: number,
  ) {
    sharedSignal(this.abort);
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** A renew (or acquire) sent at monotonic time `sentAt` succeeded. */
  renewed(sentAt: number): void {
    if (this.lostReason !== undefined) return;
    this.renewedAt = Math.max(this.renewedAt ?? sentAt, sentAt);
  }

  /** The Lease is gone for good: abort in-flight writes, refuse every later one. */
  lose(reason: string): void {
    if (this.lostReason !== undefined) return;
    this.lostReason = reason;
    this.abort.abort(new LeaseLostError(reason));
  }

  /** Milliseconds this replica may still write, 0 when it may not. */
  remainingMs(): number {
    if (this.lostReason !== undefined || this.renewedAt === undefined) return 0;
    return Math.max(0, this.renewedAt + this.validForMs - this.clock.now());
  }

  check(): void {
    if (this.lostReason !== undefined) throw new LeaseLostError(`not the leader: ${this.lostReason}`);
    if (this.renewedAt === undefined) throw new LeaseLostError("not the leader: the Lease is not held");
    const age = this.clock.now() - this.renewedAt;
    if (age >= this.validForMs) {
      throw new LeaseLostError(
        `not sure the Lease is held: last renew sent ${Math.round(age)} ms ago, writes stop after ${this.validForMs} ms`,
      );
    }
  }
}

/**
 * How long any request of the controller's API clients may take before it is aborted. The
 * caches have their own bound (informers.ts); this one is for the rest: a GET or a write
 * sent to a server (or proxy) that accepted the connection and never answers would otherwise
 * hold a sync worker for good (test/integration/network-faults.test.ts, blackhole).
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;

/**
 * `kubeConfig.makeApiClient(ApiClass)` with every non-GET request fenced by `guard`, and
 * extra headers on every request (the User-Agent naming the replica). A write is checked
 * twice: before anything (a refused write opens no connection) and synchronously with each
 * write of its bytes to the (pooled, keep-alive) connection (fenced-connection.ts). Every
 * request, read or write, is aborted after `requestTimeoutMs`. Clients given the same
 * `agents` share their connections.
 */
export function makeFencedApiClient<T>(
  kubeConfig: KubeConfig,
  apiClass: ApiClass<T>,
  guard: LeaseGuard,
  headers: Record<string, string> = {},
  requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS,
  agents: FencedAgents = new FencedAgents(() => guard.check()),
): T {
  return makeApiClientWith(kubeConfig, apiClass, async (ctx) => {
    for (const [k, v] of Object.entries(headers)) ctx.setHeaderParam(k, v);
    if (String(ctx.getHttpMethod()) === "GET") {
      ctx.setSignal(abortAfter([], requestTimeoutMs));
      ctx.setAgent(agents.forRequest(ctx.getAgent(), false) as Parameters<typeof ctx.setAgent>[0]);
      return;
    }
    guard.check();
    ctx.setSignal(abortAfter([writeSignal(guard)], requestTimeoutMs));
    ctx.setAgent(agents.forRequest(ctx.getAgent(), true) as Parameters<typeof ctx.setAgent>[0]);
  });
}

/**
 * A KubeConfig whose `makeApiClient` builds fenced clients (makeFencedApiClient) sharing one
 * set of keep-alive connections: adapters that take a KubeConfig (pod, claim, PetSet, Event
 * clients) are fenced without knowing it. Everything else (auth, TLS, current context) is the
 * original's, by delegation. `closeConnections` ends the pooled connections.
 */
export function fencedKubeConfig(
  kubeConfig: KubeConfig,
  guard: LeaseGuard,
  headers: Record<string, string> = {},
): KubeConfig & { closeConnections(): void } {
  const agents = new FencedAgents(() => guard.check());
  const fenced = Object.create(kubeConfig) as KubeConfig & { closeConnections(): void };
  fenced.makeApiClient = <T>(apiClass: ApiClass<T>) =>
    makeFencedApiClient(kubeConfig, apiClass, guard, headers, DEFAULT_REQUEST_TIMEOUT_MS, agents);
  fenced.closeConnections = () => agents.destroy();
  return fenced;
}
