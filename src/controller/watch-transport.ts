/**
 * The byte transport under client-node's informers (`ListWatch`): a `Watch` whose `watch()`
 * reads the stream with one `http(s).request` and splits it into lines itself. client-node's
 * own `Watch` pipes node-fetch's body through a PassThrough into `readline`: three stream
 * layers per event, a fifth of the CPU the controller spends on a pod's watch event (issue 29;
 * a rollout takes ~8 per pet). Everything above the bytes stays client-node's: `ListWatch`
 * lists, caches, relists after a 410 and hands events to the handlers as before.
 *
 * Same contract as client-node's `Watch.watch` (watch.js): `callback(type, object, event)` per
 * line (a line that is not JSON is skipped), `done(err)` once, when the stream ends (null) or
 * fails (the error; a non-200 answer as an Error with `statusCode`), and the returned
 * controller's `abort()` ends it. Added: the response headers must come within
 * `headersTimeoutMs` (a peer that accepts and never answers would stall the cache forever;
 * test/integration/network-faults.test.ts, blackhole); a live watch is never cut.
 */
import { request as httpRequest, type IncomingMessage, STATUS_CODES } from "node:http";
import { request as httpsRequest } from "node:https";
import { type KubeConfig, Watch } from "@kubernetes/client-node";

type WatchCallback = (phase: string, apiObj: unknown, watchObj?: unknown) => void;

/** Splits a stream of text into lines; `onLine` gets each complete one (without the newline). */
export class LineSplitter {
  private rest = "";
  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: string): void {
    let text = this.rest === "" ? chunk : this.rest + chunk;
    let nl = text.indexOf("\n");
    while (nl >= 0) {
      const line = text.charCodeAt(nl - 1) === 13 ? text.slice(0, nl - 1) : text.slice(0, nl);
      if (line !== "") this.onLine(line);
      text = text.slice(nl + 1);
      nl = text.indexOf("\n");
    }
    this.rest = text;
  }

  /** The stream ended: a last line without a newline is still a line. */
  end(): void {
    const last = this.rest;
    this.rest = "";
    if (last !== "") this.onLine(last);
  }
}

/** The request headers client-node's `applyToFetchOptions` gives (node-fetch Headers), as a record. */
function headerRecord(h: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (h === undefined || h === null) return out;
  const iterable = h as { forEach?: (cb: (value: string, name: string) => void) => void };
  if (typeof iterable.forEach === "function" && !Array.isArray(h)) {
    iterable.forEach((value, name) => {
      out[name] = value;
    });
    return out;
  }
  for (const [k, v] of Object.entries(h as Record<string, unknown>)) if (typeof v === "string") out[k] = v;
  return out;
}

export class StreamWatch extends Watch {
  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly headersTimeoutMs: number,
  ) {
    super(kubeConfig);
  }

  override async watch(
    path: string,
    queryParams: Record<string, unknown>,
    callback: WatchCallback,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    const cluster = this.kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error("No currently active cluster");
    const url = new URL(cluster.server + path);
    url.searchParams.set("watch", "true");
    for (const [key, val] of Object.entries(queryParams ?? {}))
      if (val !== undefined) url.searchParams.set(key, String(val));
    const controller = new AbortController();
    let doneCalled = false;
    const doneOnce = (err: unknown) => {
      if (doneCalled) return;
      doneCalled = true;
      controller.abort();
      done(err);
    };
    try {
      const init = await this.kubeConfig.applyToFetchOptions({});
      const headers = headerRecord(init.headers);
      const send = url.protocol === "https:" ? httpsRequest : httpRequest;
      const req = send(url, {
        method: "GET",
        headers,
        ...(init.agent !== undefined ? { agent: init.agent as never } : {}),
        signal: controller.signal,
      });
      const timer = setTimeout(
        () => req.destroy(new Error(`no answer to the watch of ${path} within ${this.headersTimeoutMs} ms`)),
        this.headersTimeoutMs,
      );
      req.on("error", (err) => {
        clearTimeout(timer);
        doneOnce(err);
      });
      req.on("response", (res: IncomingMessage) => {
        clearTimeout(timer);
        if (res.statusCode !== 200) {
          res.resume();
          const status = res.statusCode ?? 0;
          doneOnce(
            Object.assign(new Error(res.statusMessage || STATUS_CODES[status] || "Internal Server Error"), {
              statusCode: status,
            }),
          );
          return;
        }
        res.socket.setKeepAlive(true, 30_000);
        const lines = new LineSplitter((line) => {
          try {
            const event = JSON.parse(line) as { type: string; object: unknown };
            callback(event.type, event.object, event);
          } catch {
            // As client-node's Watch: a line that does not parse is skipped.
          }
        });
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => lines.push(chunk));
        res.on("end", () => {
          lines.end();
          doneOnce(null);
        });
        res.on("error", doneOnce);
        res.on("close", () => doneOnce(null));
      });
      req.end();
    } catch (err) {
      doneOnce(err);
    }
    return controller;
  }
}
