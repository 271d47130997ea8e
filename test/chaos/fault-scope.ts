/**
 * Which requests a scoped fault of the fault proxy (fault-proxy.ts) applies to. A request is
 * named by its resource as RBAC names it: `pods`, `jobs`, `pods/exec`, `petsets/status`, from
 * the path of a kube API request (`/api/v1/namespaces/NS/pods/NAME/exec`,
 * `/apis/batch/v1/namespaces/NS/jobs`); every request of a proxy in front of a hook's webhook
 * (a babysitter, not an API server) is `webhook`. Non-resource paths (`/version`, `/openapi/v2`,
 * discovery) are named by their path. Pure.
 */

/** The resources a scoped fault applies to; absent: every request. */
export type FaultScope = readonly string[] | undefined;

export const WEBHOOK_RESOURCE = "webhook";

/** The resource (`pods`, `pods/exec`, `jobs`, ...) a request path is for. */
export function resourceOf(pathname: string): string {
  const parts = pathname.split("/").filter((p) => p !== "");
  // /api/v1/... or /apis/GROUP/VERSION/...
  let rest: string[];
  if (parts[0] === "api" && parts.length >= 2) rest = parts.slice(2);
  else if (parts[0] === "apis" && parts.length >= 3) rest = parts.slice(3);
  else return pathname;
  if (rest[0] === "namespaces" && rest.length >= 3) rest = rest.slice(2);
  else if (rest[0] === "namespaces") return "namespaces";
  const [resource, , sub] = rest;
  if (resource === undefined) return pathname;
  return sub === undefined ? resource : `${resource}/${sub}`;
}

export function inScope(scope: FaultScope, resource: string): boolean {
  return scope === undefined || scope.includes(resource);
}

const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * A request with a side effect: a write (any method but GET/HEAD/OPTIONS), or an upgrade (an
 * exec starts a command, though it is a GET).
 */
export function hasSideEffect(method: string | undefined, upgrade: boolean): boolean {
  return upgrade || !READ_METHODS.has((method ?? "GET").toUpperCase());
}
