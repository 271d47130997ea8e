/** Writing JSON bodies and Status errors; Accept-header negotiation for tables. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError, internalError, NotFoundPage } from "../errors.js";

export function sendJson(
  res: ServerResponse,
  code: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(code, {
    "Content-Type": headers["Content-Type"] ?? "application/json",
    "Cache-Control": "no-cache, private",
    "Content-Length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendError(res: ServerResponse, err: unknown): void {
  const e = err instanceof ApiError ? err : internalError(err);
  if (res.headersSent) {
    res.end();
    return;
  }
  if (e instanceof NotFoundPage) {
    const text = "404 page not found\n";
    res.writeHead(404, {
      "Content-Type": "text/plain; charset=utf-8",
      "X-Content-Type-Options": "nosniff",
      "Content-Length": Buffer.byteLength(text),
    });
    res.end(text);
    return;
  }
  sendJson(res, e.code, e.status, e instanceof BodyTooLargeError ? { Connection: "close" } : {});
}

export function warningHeaders(warnings: string[]): Record<string, string> {
  if (!warnings.length) return {};
  return { Warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(", ") };
}

export type Rendering = "object" | "table" | "metadata";

/** What the client asked for in Accept: a Table, PartialObjectMetadata, or the object. */
export function negotiate(req: IncomingMessage): Rendering {
  const accept = req.headers.accept ?? "";
  for (const clause of accept.split(",")) {
    const params = clause.split(";").map((p) => p.trim());
    const as = params.find((p) => p.startsWith("as="))?.slice(3);
    const g = params.find((p) => p.startsWith("g="))?.slice(2);
    if (g === "meta.k8s.io" && as === "Table") return "table";
    if (g === "meta.k8s.io" && (as === "PartialObjectMetadata" || as === "PartialObjectMetadataList"))
      return "metadata";
    if (!as && (params[0] === "application/json" || params[0] === "*/*" || params[0] === "application/*"))
      return "object";
  }
  return "object";
}

/** k8s.io/apiserver's default MaxRequestBodyBytes (3 MiB) and the Status it answers above it. */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/**
 * A body over the limit: answered 413 and the connection closed after the answer, as Go's
 * server does with an unread body. (Breaking out of `for await` destroyed the socket under the
 * 413 it was writing; kubectl, sending the next object on that keep-alive connection, saw
 * "connection reset by peer".)
 */
export class BodyTooLargeError extends ApiError {
  constructor(limit: number) {
    super(413, "RequestEntityTooLarge", `Request entity too large: limit is ${limit}`);
  }
}

export function readBody(req: IncomingMessage, limit = MAX_REQUEST_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size <= limit) {
        chunks.push(c);
        return;
      }
      req.off("data", onData);
      req.off("end", onEnd);
      // Discard the rest while the 413 is written; the socket closes after it.
      req.resume();
      reject(new BodyTooLargeError(limit));
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    req.on("data", onData);
    req.on("end", onEnd);
    req.once("error", reject);
  });
}
