/**
 * What the answer to a write says about the write (expectations.ts): a definite refusal (the
 * API server answered with a Status saying it did not do it), or indeterminate (it may have
 * happened). Pure; reads only the error.
 *
 *  - Definite: a client-node ApiException whose body is a Kubernetes Status (`kind: Status`),
 *    any code, except the ones below. The server decided and said so; 409 AlreadyExists is
 *    definite too, and says the object exists.
 *  - Indeterminate: no answer at all (timeout, reset, refused connection, an abort: also the
 *    Lease fence's, which may cut a request already sent); an answer without a Status body (a
 *    proxy or load balancer answered, not the API server); 504 and the Status reasons Timeout
 *    and ServerTimeout, and timeouts reported as 500 ("the server was unable to return a
 *    response in the time allotted, but may still be processing the request", "etcdserver:
 *    request timed out"): the server says itself that the write may still land.
 */
import { ApiException } from "@kubernetes/client-node";

const TIMEOUT_REASONS = new Set(["Timeout", "ServerTimeout"]);
const TIMEOUT_MESSAGE =
  /unable to return a response in the time allotted|may still be processing|timed out|timeout/i;

interface StatusBody {
  kind?: unknown;
  reason?: unknown;
  message?: unknown;
}

function statusBody(body: unknown): StatusBody | undefined {
  let parsed: unknown = body;
  if (typeof body === "string") {
    try {
      parsed = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const status = parsed as StatusBody;
  return status.kind === "Status" ? status : undefined;
}

/** The API server refused the write: it did not happen (AlreadyExists: the object exists). */
export function isDefiniteRefusal(err: unknown): boolean {
  if (!(err instanceof ApiException)) return false;
  const status = statusBody(err.body);
  if (status === undefined) return false;
  if (err.code === 504) return false;
  if (typeof status.reason === "string" && TIMEOUT_REASONS.has(status.reason)) return false;
  if (err.code >= 500 && typeof status.message === "string" && TIMEOUT_MESSAGE.test(status.message))
    return false;
  return true;
}
