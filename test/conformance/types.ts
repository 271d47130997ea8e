/**
 * The data a conformance scenario is made of. A scenario is a list of HTTP requests run in
 * order against each server; every step names what of its response must be equal on both
 * (after normalization, see normalize.ts) and the status the real kube-apiserver must return,
 * so a scenario that went wrong on both servers alike (a typo in a path) cannot pass.
 */

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** What one server answered to one step; for watches `body` is the list of events. */
export interface StepResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Json;
}

export interface Step {
  /** Shown in failures and matched by allow-list entries; unique within the scenario. */
  name: string;
  method: Method;
  /** `{{ns}}` and `{{var}}` (saved from earlier responses) are substituted. */
  path: string;
  query?: Record<string, string>;
  /** Default `application/json` when there is a body. */
  contentType?: string;
  accept?: string;
  /** Strings inside are substituted like `path`. */
  body?: Json;
  /** Sent as is instead of `body` (malformed input). */
  rawBody?: string;
  /** The status kube-apiserver must return (checked on the real server only). */
  expect: number;
  /**
   * What must be equal: `full` (status and normalized body, the default), or the status plus
   * the body reduced by a projection that says why the rest may differ (`statusOnly` keeps
   * nothing of the body).
   */
  compare?: "full" | Projection;
  /** Also compare these response headers (lower-case names; content-type without parameters). */
  headers?: string[];
  /** Saves `var` = the value at a dotted path of the raw response body, per server. */
  save?: Record<string, string>;
  /** The request is a watch: collect events until the stream ends or `events` arrived. */
  watch?: { events?: number; timeoutMs?: number };
  /** Repeat the request (on each server) until the predicate holds, e.g. GC converged. */
  until?: { check: (r: StepResponse) => boolean; timeoutMs?: number };
}

/**
 * A reduced view of a response body. `why` says what the servers may legitimately answer
 * differently in the rest (timing, other writers on the shared cluster, a controller only
 * one side runs): a projection without a reason would hide a difference unexplained.
 */
export interface Projection {
  why: string;
  project: (body: Json) => Json;
}

export interface Scenario {
  /** Stable id, matched by allow-list entries: `area/what`. */
  id: string;
  /** Runs in its own namespace (`{{ns}}`), created on both servers before the steps. */
  steps: Step[];
}

/** One allowed difference: a server-specific behaviour we chose not to copy. */
export interface AllowListEntry {
  /** Scenario id, or several sharing the same cause. */
  scenario: string | readonly string[];
  /** Step name; omitted: any step of the scenario. */
  step?: string;
  /** Differences whose path starts with this (`status`, `body.spec.tolerations`, ...). */
  path: string;
  reason: string;
}
