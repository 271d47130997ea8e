/**
 * A thin HTTP client for benchmarks: raw requests and watch streams with the kubeconfig's
 * credentials, keep-alive, and byte counts. client-node's generated clients spend more CPU
 * per request than the servers under test on a 2-core machine, so the load generator
 * stays as close to the wire as kubectl's own transport.
 */
import http from "node:http";
import https from "node:https";
import type { KubeConfig } from "@kubernetes/client-node";

export interface HttpResponse {
  status: number;
  body: Buffer;
}

export interface WatchEvent {
  type: string;
  object: { metadata?: { name?: string; resourceVersion?: string }; [k: string]: unknown };
}

export interface WatchStream {
  /** Resolves once the server has answered with the response headers. */
  readonly established: Promise<void>;
  /**
   * Resolves when the server ended the stream (its timeout, or kube-apiserver closing a watcher
   * it judged unresponsive) or the connection broke; not after close().
   */
  readonly ended: Promise<void>;
  close(): void;
}

export class KubeHttpError extends Error {
  override name = "KubeHttpError";
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(`${method} ${path}: HTTP ${status}: ${body.slice(0, 300)}`);
  }
}

interface Transport {
  base: URL;
  headers: Record<string, string>;
  tls: https.AgentOptions;
}

async function transportFor(kc: KubeConfig): Promise<Transport> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error("kubeconfig has no current cluster");
  const opts: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.headers ?? {})) {
    if (typeof v === "string" || typeof v === "number") headers[k] = String(v);
  }
  const tls: https.AgentOptions = {};
  if (opts.ca) tls.ca = opts.ca;
  if (opts.cert) tls.cert = opts.cert;
  if (opts.key) tls.key = opts.key;
  if (opts.rejectUnauthorized !== undefined) tls.rejectUnauthorized = opts.rejectUnauthorized;
  return { base: new URL(cluster.server), headers, tls };
}

export class KubeHttp {
  private readonly agent: http.Agent;
  private readonly watchAgent: http.Agent;

  private constructor(private readonly t: Transport) {
    const secure = t.base.protocol === "https:";
    const make = (o: http.AgentOptions) => (secure ? new https.Agent({ ...o, ...t.tls }) : new http.Agent(o));
    this.agent = make({ keepAlive: true, maxSockets: 64 });
    this.watchAgent = make({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  }

  static async create(kc: KubeConfig): Promise<KubeHttp> {
    return new KubeHttp(await transportFor(kc));
  }

  private options(method: string, path: string, agent: http.Agent, extra: Record<string, string>) {
    return {
      protocol: this.t.base.protocol,
      hostname: this.t.base.hostname,
      port: this.t.base.port,
      method,
      path,
      agent,
      headers: { ...this.t.headers, accept: "application/json", ...extra },
    };
  }

  private lib() {
    return this.t.base.protocol === "https:" ? https : http;
  }

  request(
    method: string,
    path: string,
    body?: unknown,
    contentType = "application/json",
  ): Promise<HttpResponse> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const extra: Record<string, string> = payload
      ? { "content-type": contentType, "content-length": String(payload.length) }
      : {};
    return new Promise((resolve, reject) => {
      const req = this.lib().request(this.options(method, path, this.agent, extra), (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(payload);
    });
  }

  /** Sends the request and parses the JSON answer; any status >= 300 throws KubeHttpError. */
  async json<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
    const res = await this.request(method, path, body, contentType);
    if (res.status >= 300) throw new KubeHttpError(method, path, res.status, res.body.toString());
    return JSON.parse(res.body.toString()) as T;
  }

  /** Like json() but retries 409/429/5xx answers and connection resets a few times. */
  async jsonRetry<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.json<T>(method, path, body, contentType);
      } catch (err) {
        const retriable =
          !(err instanceof KubeHttpError) || err.status === 429 || err.status >= 500 || err.status === 409;
        if (!retriable || attempt >= 5) throw err;
        await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
      }
    }
  }

  /**
   * Opens a watch (`path` without the watch parameter); `onEvent` gets every event with
   * the time (performance.now()) its line was fully received.
   */
  watch(path: string, onEvent: (e: WatchEvent, receivedAt: number) => void): WatchStream {
    const sep = path.includes("?") ? "&" : "?";
    const full = `${path}${sep}watch=1&allowWatchBookmarks=true&timeoutSeconds=1800`;
    let req: http.ClientRequest | undefined;
    let closed = false;
    let markEnded: () => void = () => {};
    const ended = new Promise<void>((resolve) => {
      markEnded = () => {
        if (!closed) resolve();
      };
    });
    const established = new Promise<void>((resolve, reject) => {
      req = this.lib().request(this.options("GET", full, this.watchAgent, {}), (res) => {
        if ((res.statusCode ?? 0) >= 300) {
          reject(new KubeHttpError("GET", full, res.statusCode ?? 0, ""));
          res.resume();
          return;
        }
        resolve();
        let buffered = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          const now = performance.now();
          buffered += chunk;
          let nl = buffered.indexOf("\n");
          while (nl >= 0) {
            const line = buffered.slice(0, nl).trim();
            buffered = buffered.slice(nl + 1);
            if (line) onEvent(JSON.parse(line) as WatchEvent, now);
            nl = buffered.indexOf("\n");
          }
        });
        res.on("error", () => {});
        res.on("close", markEnded);
      });
      req.on("error", (err) => {
        if (!closed) reject(err);
        markEnded();
      });
      req.end();
    });
    return {
      established,
      ended,
      close() {
        closed = true;
        req?.destroy();
      },
    };
  }

  destroy(): void {
    this.agent.destroy();
    this.watchAgent.destroy();
  }
}
