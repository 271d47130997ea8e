/**
 * API clients on pooled keep-alive connections. client-node (1.x) gives every request a fresh
 * http(s) agent, so every request opens its own connection: a TCP connect and a TLS handshake
 * (a fresh secure context, parsing the CA) on both ends. The controller, the simulated kubelet
 * and the tests make thousands of requests; `pooledKubeConfig` and `KeepAliveAgents` reuse
 * connections instead. `makeApiClientWith` is the hook: a client whose every request passes
 * through `pre` just before it is sent, on http-library.ts rather than node-fetch.
 */
import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import { Socket } from "node:net";
import {
  createConfiguration,
  type KubeConfig,
  type RequestContext,
  type ResponseContext,
  ServerConfiguration,
} from "@kubernetes/client-node";
import { nodeHttpLibrary } from "./http-library.js";

/** What this file needs of an http(s) agent: its options and its connection factory. */
export interface ConnectingAgent {
  options?: Record<string, unknown>;
  createConnection(options: Record<string, unknown>, callback?: unknown): unknown;
}

export type ApiClass<T> = new (config: ReturnType<typeof createConfiguration>) => T;

/** `kubeConfig.makeApiClient(ApiClass)` with `pre` run on every request just before it is sent. */
export function makeApiClientWith<T>(
  kubeConfig: KubeConfig,
  apiClass: ApiClass<T>,
  pre: (ctx: RequestContext) => void | Promise<void>,
): T {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error("kubeconfig: no current cluster");
  const config = createConfiguration({
    baseServer: new ServerConfiguration(cluster.server, {}),
    httpApi: nodeHttpLibrary(),
    authMethods: { default: reusingTls(kubeConfig) },
    promiseMiddleware: [
      {
        async pre(ctx: RequestContext): Promise<RequestContext> {
          await pre(ctx);
          return ctx;
        },
        async post(ctx: ResponseContext): Promise<ResponseContext> {
          return ctx;
        },
      },
    ],
  });
  return new apiClass(config);
}

/** How long TLS material read from files (an in-cluster CA, a client certificate) is reused. */
export const TLS_REREAD_MS = 60_000;

/** What `reusingTls` overrides of client-node's KubeConfig (1.4.x; private there). */
interface TlsSteps {
  applyHTTPSOptions(opts: Record<string, unknown>): void;
}

const reusing = new WeakMap<KubeConfig, KubeConfig>();

/**
 * `kubeConfig` for authenticating requests, with its TLS part reused. client-node's
 * `applySecurityAuthentication` runs for every request: it reads the CA, client certificate and
 * key again (decoding their base64, or reading their files: in a cluster, the service
 * account's CA file on every request) for the new https.Agent it makes of them, which
 * `KeepAliveAgents` then compares byte by byte with its pooled ones (issue 29: with the
 * agents' swap, 2 % of the controller's CPU in a rollout). This overlay keeps one copy of the
 * TLS material (read again after TLS_REREAD_MS when it comes from files, at once when the
 * current cluster or user changes), so the comparison finds the very same buffers; the
 * credentials (a token, a token file, an exec plugin) are still applied to every request, as
 * client-node does. Each request still gets an agent of its own: connectThenCheck
 * (fenced-connection.ts) gives a request's agent the connection it checked. Falls back to
 * `kubeConfig` itself should client-node's internals change.
 */
export function reusingTls(kubeConfig: KubeConfig): KubeConfig {
  const known = reusing.get(kubeConfig);
  if (known !== undefined) return known;
  const steps = kubeConfig as unknown as TlsSteps;
  if (typeof steps.applyHTTPSOptions !== "function") return kubeConfig;
  let tls: { cluster: unknown; user: unknown; at: number; options: Record<string, unknown> } | undefined;
  const overlay = Object.create(kubeConfig) as KubeConfig;
  const own = overlay as unknown as TlsSteps;
  own.applyHTTPSOptions = (opts) => {
    const cluster = kubeConfig.getCurrentCluster();
    const user = kubeConfig.getCurrentUser();
    const now = Date.now();
    const fromFiles = Boolean(cluster?.caFile || user?.certFile || user?.keyFile);
    if (
      tls === undefined ||
      tls.cluster !== cluster ||
      tls.user !== user ||
      (fromFiles && now - tls.at >= TLS_REREAD_MS)
    ) {
      const options: Record<string, unknown> = {};
      steps.applyHTTPSOptions.call(kubeConfig, options);
      tls = { cluster, user, at: now, options };
    }
    const { headers, ...rest } = tls.options;
    Object.assign(opts, rest);
    if (headers !== undefined)
      opts.headers = { ...(opts.headers as object | undefined), ...(headers as object) };
  };
  reusing.set(kubeConfig, overlay);
  return overlay;
}

/** The TLS and proxy-free options a shared agent is made from (they name the server's trust). */
const AGENT_KEYS = ["ca", "cert", "key", "pfx", "passphrase", "rejectUnauthorized", "servername"] as const;

/** Sockets per agent: the controller's workers plus the status and event writes they make. */
const MAX_SOCKETS = 16;

/**
 * Keep-alive agents shared by API clients: `forRequest` swaps the fresh agent client-node
 * makes for every request (a new connection and TLS handshake each) for a pooled one with the
 * same TLS options. Reads and writes have pools of their own; every socket of the write pool
 * is handed to `onWriteSocket` (the controller fences it: fenced-connection.ts). Agents other
 * than the plain http/https ones (a proxy's) are left alone.
 */
export class KeepAliveAgents {
  private readonly agents: { write: boolean; tls: boolean; values: unknown[]; agent: HttpAgent }[] = [];

  constructor(private readonly onWriteSocket?: (socket: Socket) => void) {}

  forRequest(original: unknown, write: boolean): unknown {
    if (
      !(original instanceof HttpAgent) ||
      (original.constructor !== HttpAgent && original.constructor !== HttpsAgent)
    )
      return original;
    const opts = (original as unknown as ConnectingAgent).options ?? {};
    const tls = original instanceof HttpsAgent;
    const values = AGENT_KEYS.map((k) => opts[k]);
    // Compared field by field (a CA is kilobytes: serializing it per request showed in profiles).
    const found = this.agents.find(
      (e) => e.write === write && e.tls === tls && e.values.every((v, i) => sameOption(v, values[i])),
    );
    if (found) return found.agent;
    const picked: Record<string, unknown> = {};
    for (const k of AGENT_KEYS) if (opts[k] !== undefined) picked[k] = opts[k];
    const options = { ...picked, keepAlive: true, maxSockets: MAX_SOCKETS };
    const agent = tls ? new HttpsAgent(options) : new HttpAgent(options);
    if (write && this.onWriteSocket) onEverySocket(agent, this.onWriteSocket);
    this.agents.push({ write, tls, values, agent });
    return agent;
  }

  /** Closes every pooled connection (the replica stops). */
  destroy(): void {
    for (const e of this.agents) e.agent.destroy();
    this.agents.length = 0;
  }
}

/** Whether two TLS option values (string, Buffer, or lists of them) are the same. */
function sameOption(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => sameOption(x, b[i]));
  return false;
}

/** Hands every socket `agent` creates to `fn` before it is used. */
function onEverySocket(agent: HttpAgent, fn: (socket: Socket) => void): void {
  const a = agent as unknown as ConnectingAgent;
  const create = a.createConnection.bind(agent);
  a.createConnection = (options: Record<string, unknown>, callback?: unknown) => {
    const socket = create(options, callback);
    if (socket instanceof Socket) fn(socket);
    return socket;
  };
}

/**
 * A KubeConfig whose `makeApiClient` builds clients sharing pooled keep-alive connections;
 * everything else (auth, TLS, current context) is the original's, by delegation.
 */
export function pooledKubeConfig(kubeConfig: KubeConfig): KubeConfig & { closeConnections(): void } {
  const agents = new KeepAliveAgents();
  const pooled = Object.create(kubeConfig) as KubeConfig & { closeConnections(): void };
  pooled.makeApiClient = <T>(apiClass: ApiClass<T>) =>
    makeApiClientWith(kubeConfig, apiClass, (ctx) => {
      const write = String(ctx.getHttpMethod()) !== "GET";
      ctx.setAgent(agents.forRequest(ctx.getAgent(), write) as Parameters<typeof ctx.setAgent>[0]);
    });
  pooled.closeConnections = () => agents.destroy();
  return pooled;
}
