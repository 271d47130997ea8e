/**
 * Kubernetes `Status` errors. Every failure the shim returns is one of these, with the
 * reason, code and message kube-apiserver would use for the same situation.
 */
import type { FieldError } from "./schema/index.js";
import type { GroupResource } from "./types.js";

export type StatusReason =
  | "NotFound"
  | "AlreadyExists"
  | "Conflict"
  | "Invalid"
  | "BadRequest"
  | "MethodNotAllowed"
  | "UnsupportedMediaType"
  | "NotAcceptable"
  | "Gone"
  | "Expired"
  | "Forbidden"
  | "Unauthorized"
  | "InternalError"
  | "Timeout"
  | "RequestEntityTooLarge";

export interface StatusCause {
  reason: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Failure" | "Success";
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code: number;
}

/** A request failure carrying the Status to send. */
export class ApiError extends Error {
  readonly status: Status;
  constructor(code: number, reason: StatusReason, message: string, details?: StatusDetails, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "ApiError";
    this.status = {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message,
      reason,
      code,
    };
    if (details) this.status.details = withoutEmptyGroup(details);
  }
  get code(): number {
    return this.status.code;
  }
  get reason(): StatusReason | undefined {
    return this.status.reason;
  }
}

/** `pods`, `petsets.petset.dev`: how kube names a resource in messages. */
export function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

function qualifiedKind(group: string, kind: string): string {
  return group ? `${kind}.${group}` : kind;
}

export function notFound(gr: GroupResource, name: string): ApiError {
  return new ApiError(404, "NotFound", `${qualifiedResource(gr)} "${name}" not found`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

export function pathNotFound(): ApiError {
  return new ApiError(404, "NotFound", "the server could not find the requested resource", {});
}

/**
 * Go's http.NotFound page ("404 page not found", text/plain): kube's answer for paths no API
 * handler serves, i.e. outside its built-in (go-restful) group-versions: unknown groups and
 * versions, and unknown resources of custom resource groups (the CRD handler delegates them
 * to the not-found handler). A built-in group-version's unknown path is `pathNotFound`.
 */
export class NotFoundPage extends ApiError {
  constructor() {
    super(404, "NotFound", "404 page not found");
    this.name = "NotFoundPage";
  }
}

export function alreadyExists(gr: GroupResource, name: string): ApiError {
  return new ApiError(409, "AlreadyExists", `${qualifiedResource(gr)} "${name}" already exists`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

export function conflict(gr: GroupResource, name: string, detail: string): ApiError {
  return new ApiError(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${detail}`,
    {
      name,
      group: gr.group,
      kind: gr.resource,
    },
  );
}

export const OBJECT_MODIFIED =
  "the object has been modified; please apply your changes to the latest version and try again";

export function modifiedConflict(gr: GroupResource, name: string): ApiError {
  return conflict(gr, name, OBJECT_MODIFIED);
}

/** Drops the `field: ` prefix kube puts on the full message; causes carry the body only. */
function errorBody(e: FieldError): string {
  const prefix = `${e.field}: `;
  return e.field && e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
}

export function invalid(group: string, kind: string, name: string, errors: FieldError[]): ApiError {
  const messages = [...new Set(errors.map((e) => e.message))];
  const joined = messages.length === 1 ? messages[0] : `[${messages.join(", ")}]`;
  const causes = errors.map((e) => ({ reason: e.type, message: errorBody(e), field: e.field }));
  return new ApiError(422, "Invalid", `${qualifiedKind(group, kind)} "${name}" is invalid: ${joined}`, {
    name,
    group,
    kind,
    causes,
  });
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, "BadRequest", message);
}

export function methodNotAllowed(): ApiError {
  return new ApiError(
    405,
    "MethodNotAllowed",
    "the server does not allow this method on the requested resource",
    {},
  );
}

export function unsupportedMediaType(contentType: string, accepted: string[]): ApiError {
  return new ApiError(
    415,
    "UnsupportedMediaType",
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}`,
    undefined,
    `unsupported media type ${contentType}`,
  );
}

export function expired(message: string): ApiError {
  return new ApiError(410, "Expired", message);
}

export function forbidden(
  gr: GroupResource,
  name: string,
  message: string,
  causes?: StatusCause[],
): ApiError {
  const subject = name ? `${qualifiedResource(gr)} "${name}"` : qualifiedResource(gr);
  return new ApiError(403, "Forbidden", `${subject} is forbidden: ${message}`, {
    name,
    group: gr.group,
    kind: gr.resource,
    ...(causes ? { causes } : {}),
  });
}

export function unauthorized(): ApiError {
  return new ApiError(401, "Unauthorized", "Unauthorized");
}

export function internalError(err: unknown): ApiError {
  const msg = err instanceof Error ? err.message : String(err);
  return new ApiError(
    500,
    "InternalError",
    `Internal error occurred: ${msg}`,
    { causes: [{ reason: "", message: msg }] },
    err,
  );
}

export function successStatus(details: StatusDetails): Record<string, unknown> {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Success",
    details: withoutEmptyGroup(details),
  };
}

/** StatusDetails.name and .group are omitempty in kube: the core group leaves group out. */
function withoutEmptyGroup(details: StatusDetails): StatusDetails {
  const kept = Object.entries(details).filter(([k, v]) => (k !== "group" && k !== "name") || v !== "");
  return Object.fromEntries(kept) as StatusDetails;
}

/** Field-error helpers, formatted as kube's field.Error does. */
export function fieldRequired(field: string, detail = ""): FieldError {
  return {
    type: "FieldValueRequired",
    field,
    message: `${field}: Required value${detail ? `: ${detail}` : ""}`,
  };
}

export function fieldInvalid(field: string, value: unknown, detail: string): FieldError {
  return {
    type: "FieldValueInvalid",
    field,
    message: `${field}: Invalid value: ${formatValue(value)}: ${detail}`,
    badValue: value,
  };
}

/** Invalid, with the value as kube's message prints the Go value (`map[string]string{…}`). */
export function fieldInvalidGo(field: string, value: unknown, goValue: string, detail: string): FieldError {
  return {
    type: "FieldValueInvalid",
    field,
    message: `${field}: Invalid value: ${goValue}: ${detail}`,
    badValue: value,
  };
}

export function fieldForbidden(field: string, detail: string): FieldError {
  return { type: "FieldValueForbidden", field, message: `${field}: Forbidden: ${detail}` };
}

export function fieldNotSupported(field: string, value: unknown, allowed: string[]): FieldError {
  const list = allowed.map((v) => `"${v}"`).join(", ");
  return {
    type: "FieldValueNotSupported",
    field,
    message: `${field}: Unsupported value: ${formatValue(value)}: supported values: ${list}`,
    badValue: value,
  };
}

function formatValue(v: unknown): string {
  if (typeof v === "string") return `"${v}"`;
  if (v === null || v === undefined) return "null";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}
