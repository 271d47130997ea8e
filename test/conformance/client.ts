/**
 * Raw HTTP to one API server, with the credentials of a kubeconfig: the suite compares
 * responses byte-level (status codes, Status bodies, watch streams), which a typed client
 * would hide.
 */
import http from "node:http";
import https from "node:https";
import type { KubeConfig } from "@kubernetes/client-node";
import type { Json, Method, StepResponse } from "./types.js";

export interface RawRequest {
  method: Method;
  /** Path with query string. */
  path: string;
  contentType?: string;
  accept?: string;
  body?: string;
}

export interface Server {
  /** `embedded` or `real`: the key of the results. */
  name: string;
  request(req: RawRequest): Promise<StepResponse>;
  /** A watch request: parsed events until the stream ends, `maxEvents` arrived or the timeout. */
  watch(req: RawRequest, maxEvents: number, timeoutMs: number): Promise<StepResponse>;
}

function headersOf(res: http.IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers))
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

/** JSON when it parses (kube serves some JSON documents as text/plain), else the text. */
function parseBody(text: string): Json {
  if (!/^\s*[[{]/.test(text)) return text;
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
}

export async function serverFromKubeConfig(name: string, kc: KubeConfig): Promise<Server> {
  const base = new URL(kc.getCurrentCluster()?.server ?? "");
  const opts: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const tls = base.protocol === "https:";
  const authHeaders = { ...(opts.headers as Record<string, string> | undefined) };

  const open = (req: RawRequest, onResponse: (res: http.IncomingMessage) => void): http.ClientRequest => {
    const headers: Record<string, string> = {
      ...authHeaders,
      Accept: req.accept ?? "application/json",
      // kube names the field manager of a non-apply write after the User-Agent's prefix.
      "User-Agent": "conformance/1.0",
    };
    if (req.body !== undefined) {
      headers["Content-Type"] = req.contentType ?? "application/json";
      // Node sends no framing for a DELETE body unless told its length.
      headers["Content-Length"] = String(Buffer.byteLength(req.body));
    }
    const common = {
      hostname: base.hostname,
      port: base.port,
      path: req.path,
      method: req.method,
      headers,
    };
    const r = tls
      ? https.request({ ...opts, ...common, headers }, onResponse)
      : http.request(common, onResponse);
    if (req.body !== undefined) r.write(req.body);
    r.end();
    return r;
  };

  return {
    name,
    request: (req) =>
      new Promise((resolve, reject) => {
        const r = open(req, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("error", reject);
          res.on("end", () => {
            const headers = headersOf(res);
            const text = Buffer.concat(chunks).toString("utf8");
            resolve({
              status: res.statusCode ?? 0,
              headers,
              body: parseBody(text),
            });
          });
        });
        r.on("error", reject);
      }),
    watch: (req, maxEvents, timeoutMs) =>
      new Promise((resolve, reject) => {
        const events: Json[] = [];
        let status = 0;
        let headers: Record<string, string> = {};
        let done = false;
        let buffered = "";
        const finish = () => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          r.destroy();
          // A watch that failed up front answers with a plain Status body, not a stream.
          const body = status >= 300 && events.length === 1 ? (events[0] ?? null) : events;
          resolve({ status, headers, body });
        };
        const timer = setTimeout(finish, timeoutMs);
        const r = open(req, (res) => {
          status = res.statusCode ?? 0;
          headers = headersOf(res);
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            buffered += chunk;
            let nl = buffered.indexOf("\n");
            while (nl >= 0) {
              const line = buffered.slice(0, nl).trim();
              buffered = buffered.slice(nl + 1);
              if (line) events.push(parseBody(line));
              if (events.length >= maxEvents) return finish();
              nl = buffered.indexOf("\n");
            }
          });
          res.on("end", () => {
            if (buffered.trim()) events.push(parseBody(buffered.trim()));
            finish();
          });
          res.on("error", finish);
        });
        r.on("error", (err) => (done ? undefined : reject(err)));
      }),
  };
}
