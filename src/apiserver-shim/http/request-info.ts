/** Parses a request path the way kube's RequestInfoFactory does. */

export interface ResourceRequest {
  /** `api` (core) or `apis`. */
  prefix: "api" | "apis";
  group: string;
  version: string;
  namespace?: string;
  resource: string;
  name?: string;
  subresource?: string;
}

const NAMESPACE_SUBRESOURCES = new Set(["status", "finalize"]);

/** A resource request, or undefined for non-resource paths (discovery, /version, ...). */
export function parseResourcePath(pathname: string): ResourceRequest | undefined {
  const parts = pathname
    .split("/")
    .filter((p) => p !== "")
    .map(decodeURIComponent);
  let prefix: "api" | "apis";
  let group = "";
  let version: string;
  let rest: string[];
  if (parts[0] === "api" && parts.length >= 3) {
    prefix = "api";
    version = parts[1]!;
    rest = parts.slice(2);
  } else if (parts[0] === "apis" && parts.length >= 4) {
    prefix = "apis";
    group = parts[1]!;
    version = parts[2]!;
    rest = parts.slice(3);
  } else return undefined;
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length > 1) {
    namespace = rest[1];
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2]!)) rest = rest.slice(2);
    else {
      // The namespaces resource itself: /namespaces/{name}[/status|/finalize].
      const [, name, subresource, ...more] = rest;
      if (more.length) return undefined;
      return {
        prefix,
        group,
        version,
        resource: "namespaces",
        name,
        ...(subresource ? { subresource } : {}),
      };
    }
  }
  const [resource, name, subresource, ...more] = rest;
  if (!resource || more.length) return undefined;
  return {
    prefix,
    group,
    version,
    resource,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(subresource !== undefined ? { subresource } : {}),
  };
}
