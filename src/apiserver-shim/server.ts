/**
 * The embedded Kubernetes-compatible API server: wiring of store, registry, built-ins,
 * internal controllers (CRD serving, garbage collector, namespace lifecycle) and the
 * HTTP front. `startApiServer` is the only entry point.
 */

import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { hostname, networkInterfaces } from "node:os";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import { type Logger, pino } from "pino";
import { CRDS_GR } from "./controllers/crd-controller.js";
import { createShimCore } from "./core.js";
import { ApiError, badRequest, internalError, NotFoundPage, pathNotFound } from "./errors.js";
import {
  aggregatedDiscovery,
  aggregatedDiscoveryType,
  apiGroupDoc,
  apiGroupList,
  apiVersions,
  resourceList,
} from "./http/discovery.js";
import { ExecEndpoint, rejectWithStatus } from "./http/exec.js";
import { OpenApiService } from "./http/openapi.js";
import { isLoopback, RequestGuard } from "./http/request-guard.js";
import { parseResourcePath } from "./http/request-info.js";
import { handleResource } from "./http/resource-handler.js";
import { sendError, sendJson } from "./http/respond.js";
import { renderStorageObjects, WatchGauge } from "./http/watch-gauge.js";
import { writeKubeconfig as writeKubeconfigFile } from "./kubeconfig.js";
import { LocalExecutor } from "./kubelet/local-exec.js";
import { grKey } from "./registry/resource.js";
import { servingCertFor, servingCertIn } from "./serving-cert.js";
import { type Clock, systemClock } from "./time.js";

export interface ApiServerOptions {
  /**
   * Interface to bind (default 127.0.0.1: loopback only). Always served over TLS, with a
   * certificate authority made by this process (its certificate goes into the kubeconfig).
   */
  host?: string;
  /** Port (default 0: a free port chosen by the system). */
  port?: number;
  /** With a directory, every acknowledged write is fsynced there and survives restarts. */
  dataDir?: string;
  logger?: Logger;
  clock?: Clock;
  /**
   * Bearer tokens accepted, the owner's first: the one `writeKubeconfig` writes, the only one
   * that may write and exec (the others may only read). Default: one random token made at
   * start. Requests without a known token get 401 (docs/apiserver-shim.md, "Security model").
   */
  tokens?: string[];
  /** Recent events a watch can resume from (default 10,000); older → 410 Expired. */
  watchWindow?: number;
  /**
   * Where the serving certificate is kept (`serving-cert.json`, mode 0600) and reused from;
   * default: the data dir, or memory. The tests share one so each server skips RSA key
   * generation (about a second of CPU).
   */
  certDir?: string;
  /** Events expire this long after their last write (kube's --event-ttl; default 1 h). */
  eventTtlMs?: number;
  /** kube-controller-manager's --node-monitor-grace-period for the embedded node lifecycle controller (default 50 s). */
  nodeMonitorGracePeriodMs?: number;
  /** Interval of BOOKMARK events on watches that allow them (default 10 s). */
  bookmarkIntervalMs?: number;
  /** Upper bound of a watch without timeoutSeconds (default 1800 s). */
  maxWatchTimeoutSeconds?: number;
  /**
   * Called for every request as it arrives, before authentication or handling: a request
   * log, as kube-apiserver's audit log at its RequestReceived stage (tests count the writes
   * of one controller replica by its User-Agent). Must not throw.
   */
  onRequest?: (request: ReceivedRequest) => void;
}

/** One request as the server received it. */
export interface ReceivedRequest {
  /** HTTP method: GET, POST, PUT, PATCH, DELETE, ... */
  method: string;
  /** Path and query, as sent. */
  url: string;
  /** The User-Agent header ("" when none). */
  userAgent: string;
  at: Date;
}

export interface ApiServer {
  /** e.g. `https://127.0.0.1:40123` */
  url: string;
  port: number;
  /** Stops serving, ends watches, closes the write-ahead log. */
  close(): Promise<void>;
  /**
   * Writes a kubeconfig for this server (mode 0600): its URL (or `server`, e.g. a proxy in
   * front of it), the owner's token and the CA to verify it with.
   */
  writeKubeconfig(path: string, opts?: { namespace?: string; name?: string; server?: string }): Promise<void>;
}

const VERSION_INFO = {
  major: "1",
  minor: "33",
  gitVersion: "v1.33.5-petset-shim",
  gitCommit: "0000000000000000000000000000000000000000",
  gitTreeState: "clean",
  buildDate: "2025-01-01T00:00:00Z",
  goVersion: "go1.24.0",
  compiler: "gc",
  platform: `${process.platform}/${process.arch === "x64" ? "amd64" : process.arch}`,
};

export async function startApiServer(opts: ApiServerOptions = {}): Promise<ApiServer> {
  const log = opts.logger ?? pino({ level: "silent" });
  const clock = opts.clock ?? systemClock;
  const core = createShimCore({
    clock,
    logger: log,
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
    ...(opts.watchWindow ? { watchWindow: opts.watchWindow } : {}),
    ...(opts.eventTtlMs ? { eventTtlMs: opts.eventTtlMs } : {}),
    ...(opts.nodeMonitorGracePeriodMs ? { nodeMonitorGracePeriodMs: opts.nodeMonitorGracePeriodMs } : {}),
  });
  const { objects, registry, store } = core;

  const openapi = new OpenApiService(registry, () => objects.list(CRDS_GR));
  const closers = new Set<() => void>();
  const onClose = (fn: () => void) => {
    closers.add(fn);
    return () => closers.delete(fn);
  };
  const watchCfg = {
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 10_000,
    maxTimeoutSeconds: opts.maxWatchTimeoutSeconds ?? 1800,
    gauge: new WatchGauge(),
  };
  const tokens = opts.tokens?.length ? opts.tokens : [randomBytes(32).toString("base64url")];
  const bindHost = opts.host ?? "127.0.0.1";
  const extraHosts = isLoopback(bindHost) ? [] : servedHosts(bindHost);
  const certDir = opts.certDir ?? opts.dataDir;
  const tls = certDir ? servingCertIn(certDir, extraHosts) : servingCertFor(extraHosts);
  const guard = new RequestGuard(tokens, extraHosts);
  let address = "";
  // pods/exec runs commands as local processes (docs/apiserver-shim.md, "exec"), each pod in
  // a directory of its own under the data dir (or a temporary one), removed with the pod.
  const executor = new LocalExecutor({
    ...(opts.dataDir ? { rootDir: join(opts.dataDir, "exec") } : {}),
    logger: log,
  });
  const podsGr = grKey(registry.get("", "v1", "pods")!);
  const unsubscribePods = objects.subscribe((e) => {
    if (e.type === "DELETED" && e.gr === podsGr && e.object.metadata.uid)
      executor.forgetPod(e.object.metadata.uid);
  });
  const exec = new ExecEndpoint({ store, registry, executor, logger: log, onClose });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    guard.checkOrigin(req);
    const url = new URL(req.url ?? "/", "http://localhost");
    const path = url.pathname.replace(/\/+$/, "") || "/";
    if (
      path === "/healthz" ||
      path === "/readyz" ||
      path === "/livez" ||
      path.startsWith("/healthz/") ||
      path.startsWith("/readyz/") ||
      path.startsWith("/livez/")
    ) {
      res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8" });
      res.end("ok");
      return;
    }
    const caller = guard.authenticate(req);
    guard.authorize(caller, req.method ?? "", path);
    if (req.method === "GET") {
      const agg = aggregatedDiscoveryType(req);
      const aggHeaders = (t: string) => ({ "Content-Type": t, Vary: "Accept" });
      if (path === "/version") return sendJson(res, 200, VERSION_INFO);
      if (path === "/metrics") {
        res.writeHead(200, { "Content-Type": "text/plain; version=0.0.4; charset=utf-8" });
        res.end(watchCfg.gauge.render() + renderStorageObjects(objects.counts()));
        return;
      }
      if (path === "/api") {
        if (agg)
          return sendJson(
            res,
            200,
            aggregatedDiscovery(registry, true, /v=(v2beta1|v2)/.exec(agg)![1]!),
            aggHeaders(agg),
          );
        return sendJson(res, 200, apiVersions(address), { Vary: "Accept" });
      }
      if (path === "/apis") {
        if (agg)
          return sendJson(
            res,
            200,
            aggregatedDiscovery(registry, false, /v=(v2beta1|v2)/.exec(agg)![1]!),
            aggHeaders(agg),
          );
        return sendJson(res, 200, apiGroupList(registry), { Vary: "Accept" });
      }
      if (path === "/api/v1") return sendJson(res, 200, resourceList(registry, "", "v1"));
      let m = /^\/apis\/([^/]+)$/.exec(path);
      if (m) {
        const doc = apiGroupDoc(registry, m[1]!);
        if (!doc) throw new NotFoundPage();
        return sendJson(res, 200, doc);
      }
      m = /^\/apis\/([^/]+)\/([^/]+)$/.exec(path);
      if (m) {
        if (!registry.versions(m[1]!).includes(m[2]!)) throw new NotFoundPage();
        return sendJson(res, 200, resourceList(registry, m[1]!, m[2]!));
      }
      if (path === "/openapi/v3") return sendJson(res, 200, openapi.index());
      m = /^\/openapi\/v3\/(.+)$/.exec(path);
      if (m) {
        const doc = openapi.document(m[1]!);
        if (!doc) throw pathNotFound();
        const immutable = url.searchParams.get("hash") === doc.hash;
        return sendJson(res, 200, doc.body, {
          ETag: `"${doc.hash}"`,
          "Cache-Control": immutable ? "public, immutable" : "no-cache, private",
          Expires: immutable ? new Date(Date.now() + 365 * 86_400_000).toUTCString() : "0",
        });
      }
    }
    const ri = parseResourcePath(path);
    if (!ri) throw new NotFoundPage();
    // A streaming subresource asked for without an upgrade (kube's UpgradeAwareHandler).
    if (ri.resource === "pods" && ri.subresource === "exec" && ri.group === "")
      throw badRequest("Upgrade request required");
    await handleResource(req, res, ri, url.searchParams, { store, registry, watch: watchCfg, onClose });
  };

  const onHttp = (req: IncomingMessage, res: ServerResponse): void => {
    const started = Date.now();
    opts.onRequest?.({
      method: req.method ?? "",
      url: req.url ?? "",
      userAgent: req.headers["user-agent"] ?? "",
      at: clock.now(),
    });
    handle(req, res)
      .catch((err: unknown) => {
        if (!(err instanceof Error && "status" in err))
          log.error({ err, url: req.url, method: req.method }, "request failed");
        sendError(res, err);
      })
      .finally(() =>
        log.debug(
          {
            method: req.method,
            url: req.url,
            status: res.statusCode,
            ms: Date.now() - started,
            userAgent: req.headers["user-agent"],
          },
          "request",
        ),
      );
  };
  const server = createServer({ cert: tls.cert, key: tls.key }, onHttp);
  // Upgrades: pods/exec over WebSocket (http/exec.ts); nothing else upgrades.
  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    opts.onRequest?.({
      method: req.method ?? "",
      url: req.url ?? "",
      userAgent: req.headers["user-agent"] ?? "",
      at: clock.now(),
    });
    socket.on("error", () => undefined);
    try {
      guard.checkOrigin(req);
      const caller = guard.authenticate(req);
      const url = new URL(req.url ?? "/", "http://localhost");
      const ri = parseResourcePath(url.pathname.replace(/\/+$/, ""));
      if (!ri) throw new NotFoundPage();
      if (ri.group !== "" || ri.resource !== "pods" || ri.subresource !== "exec" || !ri.namespace)
        throw badRequest(`the server does not support upgrades of ${url.pathname}`);
      // Exec runs a command as the user running the server: the owner's token only.
      guard.authorize(caller, "CONNECT", `pods "${ri.name ?? ""}" exec`);
      if (!isLoopback(req.socket.remoteAddress))
        throw new ApiError(
          403,
          "Forbidden",
          `pods "${ri.name ?? ""}" is forbidden: the embedded API server serves pods/exec to loopback clients only (the command runs as the user running the server)`,
          { name: ri.name ?? "", kind: "pods" },
        );
      if (req.method !== "GET" && req.method !== "POST")
        throw new ApiError(
          405,
          "MethodNotAllowed",
          `the server does not allow this method on the requested resource`,
        );
      exec.upgrade(req, socket, head, {
        namespace: ri.namespace,
        name: ri.name ?? "",
        query: url.searchParams,
      });
    } catch (err) {
      if (!(err instanceof ApiError)) log.error({ err, url: req.url }, "upgrade failed");
      rejectWithStatus(socket, err instanceof ApiError ? err : internalError(err));
    }
  };
  server.on("upgrade", upgrade);
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, bindHost, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  // A wildcard bind answers on every interface; clients on this machine use loopback.
  const urlHost = isWildcard(addr.address) ? "127.0.0.1" : addr.address;
  const host = urlHost.includes(":") ? `[${urlHost}]` : urlHost;
  address = `${host}:${addr.port}`;
  const url = `https://${address}`;
  log.info({ url, dataDir: opts.dataDir }, "API server listening");
  let closed = false;
  return {
    url,
    port: addr.port,
    async close() {
      if (closed) return;
      closed = true;
      for (const c of [...closers]) c();
      unsubscribePods();
      executor.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      core.stop();
    },
    writeKubeconfig: (path, o = {}) =>
      writeKubeconfigFile(path, {
        server: o.server ?? url,
        token: tokens[0]!,
        certificateAuthority: tls.caCert,
        ...(o.namespace ? { namespace: o.namespace } : {}),
        ...(o.name ? { name: o.name } : {}),
      }),
  };
}

function isWildcard(address: string): boolean {
  return address === "0.0.0.0" || address === "::" || address === "";
}

/** The names and addresses a server bound to `bindHost` answers on (TLS names, Host header). */
function servedHosts(bindHost: string): string[] {
  if (!isWildcard(bindHost)) return [bindHost];
  const addresses = Object.values(networkInterfaces())
    .flat()
    .map((i) => i?.address)
    .filter((a): a is string => a !== undefined);
  return [hostname(), ...addresses];
}
