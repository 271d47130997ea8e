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
      opts.registry.metrics().then(
        (body) => {
          res.writeHead(200, { "content-type": opts.registry.contentType });
          writeInSlices(res, body);
        },
        (err: unknown) => res.writeHead(500).end(String(err)),
      );
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

/** Characters (UTF-16 units) of the exposition text encoded and written at a time. */
export const METRICS_SLICE = 64 * 1024;

/**
 * Writes a text answer in slices of METRICS_SLICE characters, each encoded on its own, the next
 * when the socket has taken the last. At 10,000 PetSets /metrics holds about 50,000 series,
 * several MB: `end(body)` would encode it into one malloc'd buffer of that size per scrape,
 * and glibc, whose mmap threshold rises to the largest block freed, then serves such blocks
 * from its arenas and keeps their pages (one scrape at the end of a 10,000 x 3 restart raised
 * the RSS by 14 MiB; docs/benchmarks.md §4 "Memory"). Slices never split a surrogate pair.
 */
export function writeInSlices(res: ServerResponse, body: string): void {
  let at = 0;
  const next = (): void => {
    while (at < body.length) {
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
    res.end();
  };
  next();
}
