/**
 * A loopback fault proxy between a client (the controller) and an API server, for the chaos
 * harness and test/integration/network-faults.test.ts. Both backends serve HTTPS, and a proxy
 * must see HTTP to answer with a status of its own, so this one terminates TLS with its own
 * certificate (the returned kubeconfig trusts its CA and carries no credentials) and sends each
 * request on to the target with the target kubeconfig's credentials. The User-Agent passes
 * through, so the API server's audit log still names the replica.
 *
 * Faults (any number at once, replaced by `set`, removed by `clear`):
 * - latency: the request and every response chunk held `ms` before being passed on;
 * - reset: with `probability`, the client's connection is reset (TCP RST), half the time before
 *   the request reaches the server, half the time after the server answered it (so the client
 *   cannot tell whether its write happened);
 * - blackhole: with `probability`, the request is accepted and never answered nor closed, as a
 *   silent peer would; `clear()` does not release such requests (a real one does not either),
 *   only the client giving up or `stop()` does;
 * - half-close-watch: watch responses end cleanly (terminating chunk, no error event)
 *   `afterMs` after they began;
 * - status-burst: the next `count` requests answered with 429 or 503 as kube-apiserver answers
 *   them (k8s.io/apiserver: the watch cache's "storage is (re)initializing" TooManyRequests with
 *   `details.retryAfterSeconds` and a `Retry-After` header; the shutdown filter's "apiserver is
 *   shutting down" ServiceUnavailable with `Retry-After: 1`);
 * - gone-watch: every watch answered 200 with a single ERROR event whose object is a Status
 *   code 410 reason Expired, then ended (what the watch cache sends for a too old
 *   resourceVersion); lists and writes pass.
 *
 * WebSocket upgrades (exec) are not proxied.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Agent, createServer, request as httpsRequest, type RequestOptions } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";
import { createServingCert, type ServingCert } from "../../src/apiserver-shim/serving-cert.js";

export type NetworkFault =
  | { kind: "latency"; ms: number }
  | { kind: "reset"; probability: number }
  | { kind: "blackhole"; probability: number }
  | { kind: "half-close-watch"; afterMs: number }
  | { kind: "status-burst"; code: 429 | 503; count: number }
  | { kind: "gone-watch" };

export interface FaultProxy {
  /** Points at the proxy, trusts its CA, no credentials (the proxy adds the target's). */
  kubeconfig: KubeConfig;
  set(f: NetworkFault[]): void;
  clear(): void;
  /** Counters: requests, watches, forwarded, and one per fault applied (reset, blackholed, ...). */
  stats(): Record<string, number>;
  stop(): Promise<void>;
}

export interface FaultProxyOptions {
  /** Random source for the probabilistic faults (a seeded one makes a run repeatable). */
  random?: () => number;
}

/** The kube-apiserver Status body of a status-burst answer and its Retry-After header. */
export function burstStatus(code: 429 | 503): { body: Record<string, unknown>; retryAfter: string } {
  const common = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", code };
  if (code === 429)
    return {
      body: {
        ...common,
        message: "storage is (re)initializing",
        reason: "TooManyRequests",
        details: { retryAfterSeconds: 1 },
      },
      retryAfter: "1",
    };
  return {
    body: { ...common, message: "apiserver is shutting down", reason: "ServiceUnavailable" },
    retryAfter: "1",
  };
}

/** The one watch event of a gone-watch answer: a 410 Expired Status, as the watch cache sends. */
export function goneWatchEvent(resourceVersion: string | null): Record<string, unknown> {
  return {
    type: "ERROR",
    object: {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `too old resource version: ${resourceVersion || "0"}`,
      reason: "Expired",
      code: 410,
    },
  };
}

export function isWatchRequest(url: URL): boolean {
  const w = url.searchParams.get("watch");
  return w === "true" || w === "1";
}

let proxyCert: ServingCert | undefined;
/** One CA and serving certificate per process (RSA keys take a while; tests start many proxies). */
function certificate(): ServingCert {
  proxyCert ??= createServingCert(["localhost", "127.0.0.1"]);
  return proxyCert;
}

/** Headers a proxy must not pass on (hop-by-hop) or that it sets itself. */
const DROPPED_REQUEST_HEADERS = new Set([
  "host",
  "authorization",
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
]);

export async function startFaultProxy(target: KubeConfig, opts: FaultProxyOptions = {}): Promise<FaultProxy> {
  const cluster = target.getCurrentCluster();
  if (!cluster) throw new Error("fault proxy: the target kubeconfig has no current cluster");
  const upstream = new URL(cluster.server);
  const upstreamOptions: RequestOptions = {};
  await target.applyToHTTPSOptions(upstreamOptions);
  const upstreamHeaders = (upstreamOptions.headers ?? {}) as Record<string, string>;
  const agent = new Agent({ keepAlive: true });
  const random = opts.random ?? Math.random;

  let faults: NetworkFault[] = [];
  let burstLeft = 0;
  let burstCode: 429 | 503 = 429;
  const counters = new Map<string, number>();
  const count = (what: string) => counters.set(what, (counters.get(what) ?? 0) + 1);
  const sockets = new Set<Socket>();
  /** Watches being passed on, so a half-close set later also ends those already open. */
  const openWatches = new Set<{ halfClose(afterMs: number): void }>();
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };
  const fault = <K extends NetworkFault["kind"]>(kind: K) =>
    faults.find((f): f is Extract<NetworkFault, { kind: K }> => f.kind === kind);

  /** Raw TCP sockets by the client's port: a TLS socket cannot send an RST, its TCP one can. */
  const tcpByPort = new Map<number, Socket>();
  const reset = (req: IncomingMessage) => {
    count("reset");
    const tcp = tcpByPort.get(req.socket.remotePort ?? -1);
    if (tcp && !tcp.destroyed) tcp.resetAndDestroy();
    else req.socket.destroy();
  };

  const answer = (res: ServerResponse, status: number, headers: Record<string, string>, body: string) => {
    res.writeHead(status, { "Content-Type": "application/json", ...headers });
    res.end(body);
  };

  const forward = (
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    watch: boolean,
    resetAfter: boolean,
  ) => {
    const latencyMs = fault("latency")?.ms ?? 0;
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (v !== undefined && !DROPPED_REQUEST_HEADERS.has(k)) headers[k] = v;
    }
    const out = httpsRequest(
      {
        ...upstreamOptions,
        agent,
        protocol: upstream.protocol,
        hostname: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: `${upstream.pathname.replace(/\/$/, "")}${url.pathname}${url.search}`,
        headers: { ...headers, ...upstreamHeaders },
      },
      (up) => {
        if (resetAfter) {
          // The server has taken the request (a watch never ends: its headers are enough).
          up.destroy();
          reset(req);
          return;
        }
        const halfClose = watch ? fault("half-close-watch") : undefined;
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
            if (halfClose) open.halfClose(halfClose.afterMs);
          }
        };
        if (latencyMs > 0) later(latencyMs, begin);
        else begin();
      },
    );
    out.on("error", (err) => {
      if (res.headersSent) res.destroy();
      else
        answer(
          res,
          502,
          {},
          JSON.stringify({
            kind: "Status",
            apiVersion: "v1",
            status: "Failure",
            code: 502,
            message: `fault proxy: ${err.message}`,
          }),
        );
    });
    res.on("close", () => {
      if (!res.writableFinished) out.destroy();
    });
    count("forwarded");
    if (latencyMs > 0) count("delayed");
    const send = () => req.pipe(out);
    if (latencyMs > 0) later(latencyMs, send);
    else send();
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    count("requests");
    const url = new URL(req.url ?? "/", "https://proxy.invalid");
    const watch = isWatchRequest(url);
    if (watch) count("watches");
    if (burstLeft > 0) {
      burstLeft--;
      count(`status-${burstCode}`);
      const { body, retryAfter } = burstStatus(burstCode);
      req.resume();
      answer(res, burstCode, { "Retry-After": retryAfter }, JSON.stringify(body));
      return;
    }
    const blackhole = fault("blackhole");
    if (blackhole && random() < blackhole.probability) {
      count("blackholed");
      req.resume();
      return;
    }
    const resetFault = fault("reset");
    let resetAfter = false;
    if (resetFault && random() < resetFault.probability) {
      if (random() < 0.5) {
        reset(req);
        return;
      }
      resetAfter = true;
    }
    if (watch && fault("gone-watch")) {
      count("gone-watch");
      req.resume();
      answer(res, 200, {}, `${JSON.stringify(goneWatchEvent(url.searchParams.get("resourceVersion")))}\n`);
      return;
    }
    forward(req, res, url, watch, resetAfter);
  };

  const { cert, key, caCert } = certificate();
  const server = createServer({ cert, key }, handle);
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    const port = s.remotePort ?? -1;
    tcpByPort.set(port, s);
    s.once("close", () => {
      sockets.delete(s);
      if (tcpByPort.get(port) === s) tcpByPort.delete(port);
    });
  });
  server.on("secureConnection", (s) => {
    // Reset sockets raise ECONNRESET on the server side too: expected here, not a crash.
    s.on("error", () => {});
  });
  server.on("clientError", (_err, s) => s.destroy());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  const name = `fault-proxy-${randomUUID().slice(0, 8)}`;
  const kubeconfig = new KubeConfig();
  kubeconfig.loadFromOptions({
    clusters: [
      {
        name,
        server: `https://127.0.0.1:${port}`,
        caData: Buffer.from(caCert).toString("base64"),
        skipTLSVerify: false,
      },
    ],
    users: [{ name }],
    contexts: [{ name, cluster: name, user: name }],
    currentContext: name,
  });

  return {
    kubeconfig,
    set(next) {
      faults = [...next];
      const burst = fault("status-burst");
      burstLeft = burst?.count ?? 0;
      if (burst) burstCode = burst.code;
      const halfClose = fault("half-close-watch");
      if (halfClose) for (const w of openWatches) w.halfClose(halfClose.afterMs);
    },
    clear() {
      faults = [];
      burstLeft = 0;
    },
    stats: () => Object.fromEntries(counters),
    async stop() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      agent.destroy();
      await closed;
    },
  };
}
