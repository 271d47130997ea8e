/**
 * The controller's probe server (src/controller/http-server.ts): /metrics answers the registry's
 * text whole however large, written in slices (a slice never splits a character), and the
 * probes answer as Kubernetes reads them.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Gauge, Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import { METRICS_SLICE, startProbeServer, writeInSlices } from "../../../src/controller/http-server.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function serve(body: string): Promise<string> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    writeInSlices(res, body);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

describe("writeInSlices", () => {
  it("sends a text of many slices whole, a 4-byte character across every slice boundary", async () => {
    // 𝄞 is two UTF-16 units: one starts at the last unit of each slice.
    const unit = `${"a".repeat(METRICS_SLICE - 1)}𝄞${"é".repeat(10)}`;
    const body = unit.repeat(40);
    const res = await fetch(await serve(body));
    expect(await res.text()).toBe(body);
  });

  it("sends an empty text and a text shorter than a slice", async () => {
    expect(await (await fetch(await serve(""))).text()).toBe("");
    expect(await (await fetch(await serve("ok é"))).text()).toBe("ok é");
  });
});

describe("startProbeServer", () => {
  it("answers /metrics with the registry's exposition of 50,000 series whole, and the probes", async () => {
    const registry = new Registry();
    const gauge = new Gauge({
      name: "petset_test_series",
      help: "h",
      labelNames: ["petset"],
      registers: [registry],
    });
    for (let i = 0; i < 50_000; i++) gauge.set({ petset: `s-${i}-é` }, i);
    let ready = false;
    const probe = await startProbeServer({ addr: "127.0.0.1:0", registry, ready: () => ready });
    servers.push(probe.server);
    const base = `http://127.0.0.1:${probe.port}`;
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(registry.contentType);
    const text = await res.text();
    expect(text.length).toBeGreaterThan(METRICS_SLICE * 20);
    expect(text).toBe(await registry.metrics());
    expect((await fetch(`${base}/readyz`)).status).toBe(503);
    ready = true;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect(await (await fetch(`${base}/healthz`)).text()).toBe("ok");
    expect((await fetch(`${base}/nothing`)).status).toBe(404);
  });
});
