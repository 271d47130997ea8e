/** `/metrics`, `/healthz` and `/readyz` of the controller. */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { Registry } from "prom-client";

export interface ProbeServerOptions {
  addr: string; // ":8080" or "127.0.0.1:8080"
  registry: Registry;
  ready: () => boolean;
}

export async function startProbeServer(opts: ProbeServerOptions): Promise<{ server: Server; port: number }> {
  const i = opts.addr.lastIndexOf(":");
  const host = opts.addr.slice(0, i).replace(/^\[|\]$/g, "") || "0.0.0.0";
  const port = Number(opts.addr.slice(i + 1));
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/healthz" || path === "/livez") {
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    } else if (path === "/readyz") {
      const ok = opts.ready();
      res.writeHead(ok ? 200 : 503, { "content-type": "text/plain" }).end(ok ? "ok" : "caches not synced");
    } else if (path === "/metrics") {
      void writeExposition(res, opts.registry);
    } else {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  return { server, port: typeof address === "object" && address ? address.port : port };
}

/**
 * Answers /metrics with the registry's exposition, one metric at a time: each metric is
 * collected and formatted (prom-client's getSingleMetricAsString), written in slices, and the
 * next one collected when the socket has taken it. The text is the one `registry.metrics()`
 * gives (metrics apart by a blank line, a newline at the end), but prom-client's `metrics()`
 * collects every metric at once and holds their values, lines and joined text together: at
 * 10,000 PetSets (50,000 series) a scrape grew the heap by tens of MiB while the sync burst of a
 * restart had it full, and each RSS step of a 10,000 x 3 restart above 300 MiB came with a
 * scrape (docs/benchmarks.md §4 "Memory"). Now at most one metric's text (10,000 series, about
 * 1 MB) is held. A metric that fails before anything is written answers 500; one that fails
 * later cuts the answer short (the scraper sees a broken body, never a partial exposition as
 * whole). The registry is a Prometheus-text one (its type says so); OpenMetrics, whose
 * counters `metrics()` renames, is not served here.
 */
export async function writeExposition(res: ServerResponse, registry: Registry): Promise<void> {
  const [first, ...rest] = registry.getMetricsAsArray().map((m) => m.name);
  let text: string;
  try {
    text = first === undefined ? "" : await registry.getSingleMetricAsString(first);
  } catch (err) {
    res.writeHead(500, { "content-type": "text/plain" }).end(String(err));
    return;
  }
  res.writeHead(200, { "content-type": registry.contentType });
  try {
    for (const name of rest) {
      await writeInSlices(res, text);
      // A metric removed since the list was taken is skipped.
      text = registry.getSingleMetric(name) ? `\n\n${await registry.getSingleMetricAsString(name)}` : "";
    }
    await writeInSlices(res, text);
    res.end("\n");
  } catch {
    res.destroy();
  }
}

/** Characters (UTF-16 units) of the exposition text encoded and written at a time. */
export const METRICS_SLICE = 64 * 1024;

/**
 * Writes a text in slices of METRICS_SLICE characters, each encoded on its own, the next when
 * the socket has taken the last; resolves when the socket has taken the text (the caller ends
 * the answer), rejects when the connection closes first. `end(body)` of a text of several MB
 * would encode it into one malloc'd buffer of that size, and glibc, whose mmap threshold rises
 * to the largest block freed, then serves such blocks from its arenas and keeps their pages (one
 * scrape at the end of a 10,000 x 3 restart raised the RSS by 14 MiB; docs/benchmarks.md §4
 * "Memory"). Slices never split a surrogate pair.
 */
export function writeInSlices(res: ServerResponse, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let at = 0;
    const closed = (): void => {
      res.off("drain", next);
      reject(new Error("connection closed before the answer was written"));
    };
    const next = (): void => {
      while (at < body.length) {
        if (res.destroyed) {
          closed();
          return;
        }
        let end = Math.min(at + METRICS_SLICE, body.length);
        const last = body.charCodeAt(end - 1);
        if (end < body.length && last >= 0xd800 && last <= 0xdbff) end--;
        const slice = Buffer.from(body.slice(at, end), "utf8");
        at = end;
        if (!res.write(slice)) {
          res.once("drain", next);
          return;
        }
      }
      res.off("close", closed);
      resolve();
    };
    res.once("close", closed);
    next();
  });
}
