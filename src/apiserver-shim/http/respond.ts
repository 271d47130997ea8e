/** Writing JSON bodies and Status errors; Accept-header negotiation for tables. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError, internalError } from "../errors.js";

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
  sendJson(res, e.code, e.status);
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

export async function readBody(req: IncomingMessage, limit = 3 * 1024 * 1024): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    const b = c as Buffer;
    size += b.length;
    if (size > limit)
      throw new ApiError(413, "RequestEntityTooLarge", "Request entity too large: limit is 3145728");
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}
