/**
 * Transient failures of a hook's requests (SPEC rule 10): they are retried with backoff until
 * the run's signal aborts (its timeout, a cancel, a lost Lease), never reported as the hook's
 * own failure. Transient:
 *  - an API answer 429 (TooManyRequests) or 5xx other than 501 (the server, a proxy or etcd
 *    busy or restarting),
 *  - no answer at all: a connection refused or reset, a timeout, a request aborted by its
 *    deadline (the write may or may not have happened: the caller's next step must tolerate
 *    both, e.g. a create retried gets AlreadyExists),
 *  - a write refused by the Lease fence (this replica is not sure it leads, yet): if the Lease
 *    is lost for good the runner's signal aborts and the retry stops.
 * Every other API answer (400, 403, 404, 409, 422, ...) is definite: the caller decides.
 */
import { ApiException } from "@kubernetes/client-node";
import { sleep } from "../../util/sleep.js";
import { isLeaseLost } from "../lease-guard.js";

/** Error codes of a connection that failed or was cut before a complete answer. */
const NETWORK_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "EAI_AGAIN",
  "ERR_STREAM_PREMATURE_CLOSE",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);
/** Error names of a request that got no answer (node-fetch, undici, AbortSignal.timeout). */
const NETWORK_NAMES = new Set(["FetchError", "AbortError", "TimeoutError"]);

/** An HTTP status a server answers when it is busy or restarting: try again. */
export function isTransientStatus(code: number): boolean {
  return code === 429 || (code >= 500 && code !== 501);
}

export function isTransient(err: unknown): boolean {
  if (isLeaseLost(err)) return true;
  if (err instanceof ApiException) return isTransientStatus(err.code);
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && NETWORK_CODES.has(code)) return true;
    if (NETWORK_NAMES.has(e.name)) return true;
    if (e instanceof ApiException) return isTransientStatus(e.code);
  }
  return false;
}

/** Backoff of the n-th retry (0-based): 200 ms doubling, at most 5 s. */
export function backoffMs(n: number): number {
  return Math.min(5_000, 200 * 2 ** Math.min(n, 10));
}

/**
 * `fn()` until it resolves or throws a definite error (rethrown); transient errors are
 * retried with backoff (`onRetry` tells the log why) until `signal` aborts (its reason is
 * thrown then).
 */
export async function retryTransient<T>(
  fn: () => Promise<T>,
  signal: AbortSignal,
  onRetry?: (err: unknown, n: number) => void,
): Promise<T> {
  for (let n = 0; ; n++) {
    if (signal.aborted) throw signal.reason;
    try {
      return await fn();
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (!isTransient(err)) throw err;
      onRetry?.(err, n);
      await sleep(backoffMs(n), signal);
    }
  }
}
