/**
 * The HTTP library of the API clients (client-node's pluggable `httpApi`): one `http(s).request`
 * on the agent the request names, the answer read whole. client-node's default sends through
 * node-fetch, which wraps every request and answer in WHATWG objects (Request, Headers, a
 * PassThrough body, a redirect and decompression layer) that the clients never use: ~0.15 ms
 * of CPU per request, a tenth of the controller's CPU in a rollout (issue 29, docs/benchmarks.md).
 *
 * What it keeps of node-fetch's behaviour, since callers read it:
 * - a request that gets no answer fails with `request to <url> failed, reason: <why>` and the
 *   socket error's `code` (hooks/transient.ts, cli/plugin/api-error.ts), the socket error as
 *   `cause` (a fence's LeaseLostError, lease-guard.ts `isLeaseLost`);
 * - an aborted signal fails it with an `AbortError`; the abort reason is its `cause`;
 * - `Content-Length` is sent for a body, `Accept: *\/*` when the caller names none.
 * What it drops: following redirects (the API server sends none) and gzip (requested by
 * node-fetch; on loopback and in-cluster links compressing costs both ends more CPU than it saves).
 */
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { StringDecoder } from "node:string_decoder";
import {
  type HttpLibrary,
  type RequestContext,
  ResponseContext,
  wrapHttpLibrary,
} from "@kubernetes/client-node";

/** Sends one request and reads its answer whole. */
export function sendRequest(ctx: RequestContext): Promise<ResponseContext> {
  const url = ctx.getUrl();
  let body: string | undefined;
  try {
    body = requestBody(ctx.getBody());
  } catch (err) {
    return Promise.reject(err);
  }
  const headers: Record<string, string> = { ...ctx.getHeaders() };
  if (!hasHeader(headers, "accept")) headers.Accept = "*/*";
  if (body !== undefined) headers["Content-Length"] = String(Buffer.byteLength(body));
  const signal = ctx.getSignal();
  const send = url.startsWith("https:") ? httpsRequest : httpRequest;
  return new Promise<ResponseContext>((resolve, reject) => {
    const failed = (err: Error) => reject(noAnswer(url, err));
    let req: ReturnType<typeof send>;
    try {
      req = send(
        url,
        {
          method: String(ctx.getHttpMethod()),
          headers,
          ...(ctx.getAgent() !== undefined ? { agent: ctx.getAgent() } : {}),
          ...(signal !== undefined ? { signal } : {}),
        },
        (res) => readAnswer(res, resolve, failed),
      );
    } catch (err) {
      failed(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    req.on("error", failed);
    req.end(body);
  });
}

/** client-node's `httpApi` built on `sendRequest`. */
export function nodeHttpLibrary(): HttpLibrary {
  return wrapHttpLibrary({ send: sendRequest });
}

/**
 * Reads the answer's chunks and hands them over unjoined. `text()` decodes chunk by chunk and
 * joins the strings, so a page of a list (several MB on kube-apiserver, whose pods carry
 * managedFields) is never one contiguous native buffer: `Buffer.concat` would copy it into one
 * malloc'd block, and Node 24 (the image's) turns a buffer of 1 MB or more into an external
 * string, a second malloc'd copy. Blocks that size come from glibc's arenas once its mmap
 * threshold has risen past them, and the arenas keep what the pages left in between: a relist
 * of 180 pages of 1.9 MB read as before held 9-30 MiB more anonymous RSS in three runs (docs/benchmarks.md §4).
 * Strings joined in V8 live in its heap, which returns its large pages when they are freed.
 */
function readAnswer(res: IncomingMessage, resolve: (r: ResponseContext) => void, failed: (e: Error) => void) {
  const chunks: Buffer[] = [];
  res.on("data", (c: Buffer) => chunks.push(c));
  res.on("error", failed);
  res.on("end", () => {
    resolve(
      new ResponseContext(res.statusCode ?? 0, flatHeaders(res.headers), {
        text: () => Promise.resolve(decodeChunks(chunks)),
        binary: () => Promise.resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)),
      }),
    );
  });
}

/** UTF-8 text of the chunks, a character split between two chunks decoded whole. */
export function decodeChunks(chunks: readonly Buffer[]): string {
  if (chunks.length === 1) return (chunks[0] as Buffer).toString("utf8");
  const decoder = new StringDecoder("utf8");
  const parts: string[] = [];
  for (const c of chunks) parts.push(decoder.write(c));
  parts.push(decoder.end());
  return parts.join("");
}

function requestBody(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return body;
  if (body instanceof URLSearchParams) return body.toString();
  throw new Error("http-library: only string and URLSearchParams request bodies are sent");
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  for (const k in headers) if (k.toLowerCase() === name) return true;
  return false;
}

function flatHeaders(h: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k in h) {
    const v = h[k];
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v;
  }
  return out;
}

/** node-fetch's shape for a request that got no answer; an abort stays an AbortError. */
function noAnswer(url: string, err: Error): Error {
  if (err.name === "AbortError") return err;
  const wrapped = new Error(`request to ${url} failed, reason: ${err.message}`, { cause: err });
  wrapped.name = "FetchError";
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string") Object.assign(wrapped, { code, errno: code, type: "system" });
  return wrapped;
}
