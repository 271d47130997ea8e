/**
 * Typed view of API errors. client-node throws ApiException with `code` and a JSON `body`
 * (a Kubernetes Status); this reads the reason and message so callers branch on reasons,
 * not on strings.
 */
import { ApiException } from "@kubernetes/client-node";
import { z } from "zod";

const StatusSchema = z.looseObject({
  reason: z.string().optional(),
  message: z.string().optional(),
  code: z.number().optional(),
  details: z
    .looseObject({
      causes: z
        .array(z.looseObject({ field: z.string().optional(), message: z.string().optional() }))
        .optional(),
    })
    .optional(),
});
export type ApiStatus = z.infer<typeof StatusSchema>;

export function apiStatus(err: unknown): ApiStatus | undefined {
  if (!(err instanceof ApiException)) return undefined;
  const body: unknown = typeof err.body === "string" ? safeJson(err.body) : err.body;
  const parsed = StatusSchema.safeParse(body);
  return parsed.success ? { ...parsed.data, code: err.code } : { code: err.code };
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return { message: s };
  }
}

export const statusCode = (err: unknown): number | undefined =>
  err instanceof ApiException ? err.code : undefined;
export const isNotFound = (err: unknown): boolean => statusCode(err) === 404;
export const isConflict = (err: unknown): boolean =>
  statusCode(err) === 409 && apiStatus(err)?.reason !== "AlreadyExists";
export const isAlreadyExists = (err: unknown): boolean => apiStatus(err)?.reason === "AlreadyExists";
export const isInvalid = (err: unknown): boolean => statusCode(err) === 422;

/** A one-line description of an API error for Events and conditions. */
export function describeApiError(err: unknown): string {
  const status = apiStatus(err);
  if (status?.message) return status.message;
  return err instanceof Error ? err.message : String(err);
}
