/**
 * The API server's answers the fake world (fake-world.ts) gives: Status errors as client-node
 * throws them, a lost answer, and the preconditions a write is checked against.
 */
import { ApiException, type KubernetesObject } from "@kubernetes/client-node";

export function apiError(code: number, reason: string, message: string): ApiException<string> {
  return new ApiException(
    code,
    message,
    JSON.stringify({ kind: "Status", status: "Failure", code, reason, message }),
    {},
  );
}

/** An answer lost on the way back: the request timed out, whether or not it landed. */
export function timeoutError(): Error {
  return Object.assign(new Error("request to the API server timed out"), { code: "ETIMEDOUT" });
}

export const conflict = (resource: string, name: string, why: string) =>
  apiError(409, "Conflict", `Operation cannot be fulfilled on ${resource} "${name}": ${why}`);
export const notFound = (resource: string, name: string) =>
  apiError(404, "NotFound", `${resource} "${name}" not found`);
export const alreadyExists = (resource: string, name: string) =>
  apiError(409, "AlreadyExists", `${resource} "${name}" already exists`);

/** The API server's delete preconditions (409 when either names another state of the object). */
export function checkDeletePreconditions(
  resource: string,
  obj: KubernetesObject,
  uid: string | undefined,
  resourceVersion: string | undefined,
): void {
  const name = obj.metadata?.name ?? "";
  if (uid !== undefined && obj.metadata?.uid !== uid)
    throw conflict(
      resource,
      name,
      `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${obj.metadata?.uid}`,
    );
  if (resourceVersion && obj.metadata?.resourceVersion !== resourceVersion)
    throw conflict(
      resource,
      name,
      `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${obj.metadata?.resourceVersion}`,
    );
}

/** A write based on `resourceVersion`: 409 when the object moved on since it was read. */
export function checkResourceVersion(resource: string, obj: KubernetesObject, resourceVersion: string): void {
  if (obj.metadata?.resourceVersion !== resourceVersion)
    throw conflict(
      resource,
      obj.metadata?.name ?? "",
      "the object has been modified; please apply your changes to the latest version and try again",
    );
}

/** A JSON merge patch of a string map (null removes a key). */
export function mergeMap(
  current: Record<string, string> | undefined,
  patch: Record<string, string | null> | undefined,
): Record<string, string> {
  const out = { ...(current ?? {}) };
  for (const [k, v] of Object.entries(patch ?? {})) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}
