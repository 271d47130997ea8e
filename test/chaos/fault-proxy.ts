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
 * - status-burst: the next `count` requests (of `resources` when given, fault-scope.ts)
 *   answered with 429 or 503 as kube-apiserver answers them (k8s.io/apiserver: the watch cache's
 *   "storage is (re)initializing" TooManyRequests with `details.retryAfterSeconds` and a
 *   `Retry-After` header; the shutdown filter's "apiserver is shutting down"
 *   ServiceUnavailable with `Retry-After: 1`); nothing reaches the target;
 * - lost-answer (the indeterminate write): the next `count` requests with a side effect (writes,
 *   and upgrades: an exec starts a command) of `resources` are applied by the target, and their
 *   answer is dropped (`answer: "drop"`: the client's connection is reset once the target
 *   answered) or delayed (`answer: "delay"`: held `delayMs`, so a client with a shorter
 *   timeout gives up on a write that happened);
 * - gone-watch: every watch answered 200 with a single ERROR event whose object is a Status
 *   code 410 reason Expired, then ended (what the watch cache sends for a too old
 *   resourceVersion); lists and writes pass.
 *
 * Upgrades (pods/exec's WebSocket) are passed on too (fault-upgrade.ts); the faults that name
 * them by scope apply, latency and the probabilistic ones do not.
 *
 * The target is a kube API server (a KubeConfig: TLS towards the client, the target's
 * credentials added) or a hook's webhook (`{ url, ca }`: the proxy speaks the URL's scheme,
 * every request is the resource `webhook`, nothing is added).
 */
import {
  createServer as createHttpServer,
  Agent as HttpAgent,
  type IncomingMessage,
  request as plainRequest,
  type ServerResponse,
} from "node:http";
import { Agent, createServer, request as httpsRequest, type RequestOptions } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { KubeConfig } from "@kubernetes/client-node";
import {
  burstStatus,
  certificate,
  goneWatchEvent,
  isWatchRequest,
  proxyKubeConfig,
} from "./fault-answers.js";
import { hasSideEffect, inScope, resourceOf, WEBHOOK_RESOURCE } from "./fault-scope.js";

export { burstStatus, goneWatchEvent, isWatchRequest } from "./fault-answers.js";

import { type ForwardContext, forwardRequest } from "./fault-forward.js";
import { answerRaw, forwardUpgrade, type UpgradeAnswer } from "./fault-upgrade.js";

export type NetworkFault =
  | { kind: "latency"; ms: number }
  | { kind: "reset"; probability: number }
  | { kind: "blackhole"; probability: number }
  | { kind: "half-close-watch"; afterMs: number }
  | { kind: "status-burst"; code: 429 | 503; count: number; resources?: readonly string[] }
  | { kind: "gone-watch" }
  | {
      kind: "lost-answer";
      resources: readonly string[];
      count: number;
      answer: "drop" | "delay";
      /** With `answer: "delay"`: how long the answer is held. */
      delayMs?: number;
    };

/** A hook's webhook (a babysitter) as the proxy's target; `ca` when it serves https. */
export interface WebhookTarget {
  url: string;
  ca?: string;
}

export interface FaultProxy {
  /** Points at the proxy, trusts its CA, no credentials (the proxy adds the target's). */
  kubeconfig: KubeConfig;
  /** The proxy's URL (for a webhook target: what the hook's `url` names instead). */
  url: string;
  /** PEM of the CA the proxy's https certificate is signed by (a webhook's `caBundle`). */
  caCert: string;
  set(f: NetworkFault[]): void;
  /** Turns `f` on beside the faults already on (replacing one of its kind), arming only it. */
  add(f: NetworkFault): void;
  clear(): void;
  /** Counters: requests, watches, forwarded, and one per fault applied (reset, blackholed, ...). */
  stats(): Record<string, number>;
  stop(): Promise<void>;
}

export interface FaultProxyOptions {
  /** Random source for the probabilistic faults (a seeded one makes a run repeatable). */
  random?: () => number;
}

export async function startFaultProxy(
  target: KubeConfig | WebhookTarget,
  opts: FaultProxyOptions = {},
): Promise<FaultProxy> {
  const webhook = !(target instanceof KubeConfig);
  const upstreamOptions: RequestOptions = {};
  let upstream: URL;
  if (target instanceof KubeConfig) {
    const cluster = target.getCurrentCluster();
    if (!cluster) throw new Error("fault proxy: the target kubeconfig has no current cluster");
    upstream = new URL(cluster.server);
    await target.applyToHTTPSOptions(upstreamOptions);
  } else {
    upstream = new URL(target.url);
    if (target.ca) upstreamOptions.ca = target.ca;
  }
  const plain = upstream.protocol === "http:";
  const upstreamHeaders = (upstreamOptions.headers ?? {}) as Record<string, string>;
  delete upstreamOptions.headers;
  const agent = plain ? new HttpAgent({ keepAlive: true }) : new Agent({ keepAlive: true });
  const requestUpstream = plain ? plainRequest : httpsRequest;
  const random = opts.random ?? Math.random;
  const pathPrefix = upstream.pathname.replace(/\/$/, "");

  let faults: NetworkFault[] = [];
  let burstLeft = 0;
  let lostLeft = 0;
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
  const resetSocket = (socket: Socket) => {
    const tcp = tcpByPort.get(socket.remotePort ?? -1);
    if (tcp && !tcp.destroyed) tcp.resetAndDestroy();
    else socket.destroy();
  };
  const reset = (req: IncomingMessage) => {
    count("reset");
    resetSocket(req.socket);
  };

  /** The resource a request is for (fault-scope.ts). */
  const resourceOfRequest = (url: URL) => (webhook ? WEBHOOK_RESOURCE : resourceOf(url.pathname));
  /** Takes one of a scoped burst's answers for this request, if any is left. */
  const takeBurst = (resource: string): boolean => {
    if (burstLeft <= 0 || !inScope(fault("status-burst")?.resources, resource)) return false;
    burstLeft--;
    count(`status-${burstCode}`);
    return true;
  };
  /** How this request's answer is lost, if a lost-answer fault takes it. */
  const takeLostAnswer = (resource: string, method: string | undefined, upgrade: boolean): UpgradeAnswer => {
    const lost = fault("lost-answer");
    if (!lost || lostLeft <= 0 || !hasSideEffect(method, upgrade) || !inScope(lost.resources, resource))
      return { kind: "pass" };
    lostLeft--;
    return lost.answer === "drop" ? { kind: "drop" } : { kind: "delay", ms: lost.delayMs ?? 0 };
  };

  const answer = (res: ServerResponse, status: number, headers: Record<string, string>, body: string) => {
    res.writeHead(status, { "Content-Type": "application/json", ...headers });
    res.end(body);
  };

  const forwardContext: ForwardContext = {
    upstream,
    upstreamOptions,
    upstreamHeaders,
    pathPrefix,
    agent,
    requestUpstream,
    latencyMs: () => fault("latency")?.ms ?? 0,
    halfCloseAfterMs: () => fault("half-close-watch")?.afterMs,
    openWatches,
    later,
    count,
    resetSocket: (req) => resetSocket(req.socket),
  };
  const forward = (
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    watch: boolean,
    resetAfter: boolean,
    lost: UpgradeAnswer = { kind: "pass" },
  ) => forwardRequest(forwardContext, req, res, url, watch, resetAfter, lost);

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    count("requests");
    const url = new URL(req.url ?? "/", "https://proxy.invalid");
    const watch = isWatchRequest(url);
    if (watch) count("watches");
    const resource = resourceOfRequest(url);
    if (takeBurst(resource)) {
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
    forward(req, res, url, watch, resetAfter, takeLostAnswer(resource, req.method, false));
  };

  const upstreamSockets = new Set<Socket>();
  const upgrade = (req: IncomingMessage, client: Duplex, first: Buffer) => {
    count("requests");
    count("upgrades");
    client.on("error", () => {});
    const url = new URL(req.url ?? "/", "https://proxy.invalid");
    const resource = resourceOfRequest(url);
    if (takeBurst(resource)) {
      const { body, retryAfter } = burstStatus(burstCode);
      const text = burstCode === 429 ? "Too Many Requests" : "Service Unavailable";
      answerRaw(client, burstCode, text, { "Retry-After": retryAfter }, JSON.stringify(body));
      return;
    }
    count("forwarded");
    forwardUpgrade(
      req,
      client,
      first,
      `${url.pathname}${url.search}`,
      {
        options: upstreamOptions,
        protocol: upstream.protocol,
        hostname: upstream.hostname,
        port: upstream.port,
        pathPrefix,
        headers: upstreamHeaders,
      },
      takeLostAnswer(resource, req.method, true),
      {
        reset: () => resetSocket(req.socket),
        later,
        track: (s) => {
          upstreamSockets.add(s);
          s.once("close", () => upstreamSockets.delete(s));
        },
        count,
      },
    );
  };

  const { cert, key, caCert } = certificate();
  const server = plain ? createHttpServer(handle) : createServer({ cert, key }, handle);
  server.on("upgrade", upgrade);
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
  const url = `${plain ? "http" : "https"}://127.0.0.1:${port}`;

  const kubeconfig = proxyKubeConfig(url, caCert);
  const arm = (f: NetworkFault) => {
    faults = [...faults.filter((g) => g.kind !== f.kind), f];
    if (f.kind === "status-burst") {
      burstLeft = f.count;
      burstCode = f.code;
    }
    if (f.kind === "lost-answer") lostLeft = f.count;
    if (f.kind === "half-close-watch") for (const w of openWatches) w.halfClose(f.afterMs);
  };

  return {
    kubeconfig,
    url,
    caCert,
    set(next) {
      faults = [];
      burstLeft = 0;
      lostLeft = 0;
      for (const f of next) arm(f);
    },
    add: arm,
    clear() {
      faults = [];
      burstLeft = 0;
      lostLeft = 0;
    },
    stats: () => Object.fromEntries(counters),
    async stop() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      for (const s of upstreamSockets) s.destroy();
      agent.destroy();
      await closed;
    },
  };
}
