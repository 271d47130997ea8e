/**
 * The controller's probe server (src/controller/http-server.ts): /metrics answers the registry's
 * text whole however large, collected one metric at a time and written in slices (a slice never
 * splits a character), and the probes answer as Kubernetes reads them.
 */
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
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
    void writeInSlices(res, body).then(() => res.end());
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

describe("writeInSlices when the reader goes away", () => {
  it("rejects instead of waiting for a drain that never comes", async () => {
    let written: Promise<void> | undefined;
    const server = createServer((_req, res) => {
      res.writeHead(200);
      written = writeInSlices(res, "x".repeat(METRICS_SLICE * 400));
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => {
      const req = request({ host: "127.0.0.1", port }, (res) => {
        res.once("data", () => {
          req.destroy();
          resolve();
        });
      });
      req.on("error", () => undefined);
      req.end();
    });
    await expect(written).rejects.toThrow(/closed/);
  });
});

async function probeOf(registry: Registry): Promise<string> {
  const probe = await startProbeServer({ addr: "127.0.0.1:0", registry, ready: () => true });
  servers.push(probe.server);
  return `http://127.0.0.1:${probe.port}`;
}

describe("/metrics one metric at a time", () => {
  it("collects a metric only after the one before it is collected, and answers what metrics() answers", async () => {
    const registry = new Registry();
    const order: string[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => {
      release = r;
    });
    new Gauge({
      name: "petset_test_first",
      help: "first",
      registers: [registry],
      async collect() {
        order.push("first started");
        await held;
        this.set(1);
        order.push("first done");
      },
    });
    new Gauge({
      name: "petset_test_second",
      help: "second",
      registers: [registry],
      collect() {
        order.push("second started");
        this.set(2);
      },
    });
    const counter = new Counter({
      name: "petset_test_total",
      help: "c",
      labelNames: ["k"],
      registers: [registry],
    });
    counter.inc({ k: "a" }, 3);
    const histogram = new Histogram({
      name: "petset_test_seconds",
      help: "h",
      buckets: [0.1, 1],
      registers: [registry],
    });
    histogram.observe(0.5);
    const base = await probeOf(registry);
    const answer = fetch(`${base}/metrics`).then((r) => r.text());
    await expect.poll(() => order.length).toBe(1);
    release();
    const text = await answer;
    expect(order.slice(0, 3)).toEqual(["first started", "first done", "second started"]);
    expect(text).toBe(await registry.metrics());
    expect(text).toContain('petset_test_total{k="a"} 3\n\n# HELP petset_test_seconds h');
  });

  it("answers an empty registry as metrics() does", async () => {
    const registry = new Registry();
    const text = await (await fetch(`${await probeOf(registry)}/metrics`)).text();
    expect(text).toBe(await registry.metrics());
  });

  it("answers 500 naming the error when the first metric fails, and cuts the answer when a later one does", async () => {
    const registry = new Registry();
    let failFirst = true;
    new Gauge({
      name: "petset_test_a",
      help: "a",
      registers: [registry],
      collect() {
        if (failFirst) throw new Error("collect of a failed");
        this.set(1);
      },
    });
    new Gauge({
      name: "petset_test_b",
      help: "b",
      registers: [registry],
      collect() {
        if (!failFirst) throw new Error("collect of b failed");
      },
    });
    const base = await probeOf(registry);
    const first = await fetch(`${base}/metrics`);
    expect(first.status).toBe(500);
    expect(await first.text()).toContain("collect of a failed");
    failFirst = false;
    // The status line may already be out: either way the scrape fails, never reads as whole.
    await expect(fetch(`${base}/metrics`).then((r) => r.text())).rejects.toThrow();
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
