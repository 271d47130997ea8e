/**
 * The fault proxy's pass-through of one plain request (fault-proxy.ts): the request is sent on to
 * the target and its answer passed back, chunk by chunk in order, each held the `latency`
 * fault's delay; a lost-answer fault either resets the client once the target answered (drop) or
 * holds the whole answer (delay); `resetAfter` resets the client once the target took the request;
 * a watch can be half-closed later (`openWatches`). A target that cannot be reached is a 502 Status.
 */
import type { Agent as HttpAgent, IncomingMessage, request as plainRequest, ServerResponse } from "node:http";
import type { Agent, request as httpsRequest, RequestOptions } from "node:https";
import { DROPPED_REQUEST_HEADERS } from "./fault-answers.js";
import type { UpgradeAnswer } from "./fault-upgrade.js";

/** What the proxy shares with each forwarded request. */
export interface ForwardContext {
  upstream: URL;
  upstreamOptions: RequestOptions;
  upstreamHeaders: Record<string, string>;
  pathPrefix: string;
  agent: HttpAgent | Agent;
  requestUpstream: typeof plainRequest | typeof httpsRequest;
  /** The latency fault's delay now (0 without one). */
  latencyMs(): number;
  /** The half-close-watch fault's `afterMs` now, if one is on. */
  halfCloseAfterMs(): number | undefined;
  openWatches: Set<{ halfClose(afterMs: number): void }>;
  later(ms: number, fn: () => void): void;
  count(what: string): void;
  resetSocket(req: IncomingMessage): void;
}

export function forwardRequest(
  ctx: ForwardContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  watch: boolean,
  resetAfter: boolean,
  lost: UpgradeAnswer = { kind: "pass" },
): void {
  const {
    upstream,
    upstreamOptions,
    upstreamHeaders,
    pathPrefix,
    agent,
    requestUpstream,
    openWatches,
    later,
    count,
  } = ctx;
  const latencyMs = ctx.latencyMs();
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined && !DROPPED_REQUEST_HEADERS.has(k)) headers[k] = v;
  }
  const out = requestUpstream(
    {
      ...upstreamOptions,
      agent,
      protocol: upstream.protocol,
      hostname: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: `${pathPrefix}${url.pathname}${url.search}`,
      headers: { ...headers, ...upstreamHeaders },
    },
    (up) => {
      if (lost.kind === "drop") {
        // Applied: the target answered. The client's connection is reset instead.
        count("lost-answer-dropped");
        up.resume();
        ctx.resetSocket(req);
        return;
      }
      if (resetAfter) {
        // The server has taken the request (a watch never ends: its headers are enough).
        up.destroy();
        count("reset");
        ctx.resetSocket(req);
        return;
      }
      const halfCloseAfterMs = watch ? ctx.halfCloseAfterMs() : undefined;
      const begin = () => {
        if (res.destroyed) {
          up.destroy();
          return;
        }
        const headers = { ...up.headers };
        delete headers.connection;
        delete headers["keep-alive"];
        res.writeHead(up.statusCode ?? 502, headers);
        // A watch answers its headers at once and its events later: pass the headers on now.
        res.flushHeaders();
        // Chunks are passed on in order; with latency each waits its turn `latencyMs` later.
        let chain = Promise.resolve();
        up.on("data", (chunk: Buffer) => {
          chain = chain.then(async () => {
            if (latencyMs > 0) await new Promise<void>((r) => later(latencyMs, r));
            if (!res.destroyed && !res.writableEnded) res.write(chunk);
          });
        });
        up.on("end", () => void chain.then(() => res.end()));
        up.on("error", () => res.destroy());
        if (watch) {
          const began = Date.now();
          const open = {
            // Ends the watch cleanly `afterMs` after it began (at once if that has passed).
            halfClose(afterMs: number) {
              later(Math.max(0, afterMs - (Date.now() - began)), () => {
                if (res.writableEnded || res.destroyed) return;
                count("half-closed-watch");
                up.destroy();
                void chain.then(() => res.end());
              });
            },
          };
          openWatches.add(open);
          res.once("close", () => openWatches.delete(open));
          if (halfCloseAfterMs !== undefined) open.halfClose(halfCloseAfterMs);
        }
      };
      const holdMs = latencyMs + (lost.kind === "delay" ? lost.ms : 0);
      if (lost.kind === "delay") count("lost-answer-delayed");
      if (holdMs > 0) later(holdMs, begin);
      else begin();
    },
  );
  out.on("error", (err) => {
    if (res.headersSent) res.destroy();
    else {
      res.writeHead(502, { "Content-Type": "application/json" });
      res.end(
        JSON.stringify({
          kind: "Status",
          apiVersion: "v1",
          status: "Failure",
          code: 502,
          message: `fault proxy: ${err.message}`,
        }),
      );
    }
  });
  res.on("close", () => {
    if (!res.writableFinished) out.destroy();
  });
  count("forwarded");
  if (latencyMs > 0) count("delayed");
  const send = () => req.pipe(out);
  if (latencyMs > 0) later(latencyMs, send);
  else send();
}
