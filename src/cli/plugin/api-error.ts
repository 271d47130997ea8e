import { ApiException } from "@kubernetes/client-node";
import { apiStatus } from "../../controller/api-errors.js";
import { PetSetNotFoundError, PluginError } from "./errors.js";

/**
 * Turns what client-node throws into a PluginError: NotFound of the PetSet into its own
 * message, 409 into Conflict (the caller may re-read and retry), other API errors into
 * kubectl's `Error from server (Reason): message` (422 with reason Invalid), network failures into Unreachable.
 */
export function translateApiError(err: unknown, target?: { petSet: string; namespace: string }): PluginError {
  if (err instanceof PluginError) return err;
  if (err instanceof ApiException) {
    const status = apiStatus(err);
    if (err.code === 404 && target !== undefined)
      return new PetSetNotFoundError(target.petSet, target.namespace, err);
    const reason = status?.reason ?? `HTTP ${err.code}`;
    const message = status?.message ?? firstLine(err.message);
    if (err.code === 409 && reason !== "AlreadyExists")
      return new PluginError("Conflict", `Error from server (Conflict): ${message}`, 1, { cause: err });
    const kind = err.code === 422 ? "Invalid" : "ServerError";
    return new PluginError(kind, `Error from server (${reason}): ${message}`, 1, { cause: err });
  }
  const message = firstLine(err instanceof Error ? err.message : String(err));
  if (isNetworkError(err))
    return new PluginError("Unreachable", unreachableMessage(message), 1, { cause: err });
  return new PluginError("ServerError", message, 1, { cause: err });
}

/** node-fetch's FetchError (what client-node throws when no HTTP answer came) or a socket error. */
function isNetworkError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  return err.name === "FetchError" || (typeof code === "string" && /^E[A-Z]+$/.test(code));
}

/**
 * node-fetch says `request to URL failed, reason: WHY`; the user needs the server and what
 * to do, which is the same whatever the path of the request was.
 */
function unreachableMessage(message: string): string {
  const m = /request to (\S+) failed, reason: (.*)$/.exec(message);
  let where = "";
  if (m?.[1] !== undefined) {
    try {
      where = ` at ${new URL(m[1]).origin}`;
    } catch {
      where = "";
    }
  }
  const why = m?.[2] ?? message;
  return `cannot reach the API server${where} (${why}): start the cluster (make run) or point --kubeconfig / $KUBECONFIG at a running one`;
}

function firstLine(text: string): string {
  return text.split("\n")[0] ?? text;
}
