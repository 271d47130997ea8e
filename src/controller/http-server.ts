/** `/metrics`, `/healthz` and `/readyz` of the controller. */
import { createServer, type Server } from "node:http";
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
        (body) => res.writeHead(200, { "content-type": opts.registry.contentType }).end(body),
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
