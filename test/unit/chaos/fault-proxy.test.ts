/**
 * The fault proxy of the chaos harness (test/chaos/fault-proxy.ts) in front of the embedded API
 * server on loopback: what a client sees through it for each fault, as raw HTTP (status,
 * headers, body, watch events) and through client-node.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { type RequestOptions, request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiServer, startApiServer } from "../../../src/apiserver-shim/index.js";
import { loadKubeConfig } from "../../../src/util/kubeconfig.js";
import { type FaultProxy, startFaultProxy } from "../../chaos/fault-proxy.js";

let server: ApiServer;
let proxy: FaultProxy;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "petset-proxy-"));
  server = await startApiServer({});
  await server.writeKubeconfig(join(dir, "kubeconfig"));
  proxy = await startFaultProxy(loadKubeConfig({ kubeconfig: join(dir, "kubeconfig") }));
});

afterAll(async () => {
  await proxy?.stop();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A GET through the proxy with its kubeconfig's CA; resolves with whatever came back. */
async function get(kc: KubeConfig, path: string, abortAfterMs?: number): Promise<RawResponse> {
  const server = new URL(kc.getCurrentCluster()?.server ?? "");
  const opts: RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  return new Promise((resolve, reject) => {
    const req = request(
      { ...opts, hostname: server.hostname, port: server.port, path, method: "GET" },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          body += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    if (abortAfterMs !== undefined) req.setTimeout(abortAfterMs, () => req.destroy(new Error("timed out")));
    req.end();
  });
}

describe("fault proxy", () => {
  it("passes requests through with the target's credentials", async () => {
    proxy.clear();
    const ns = await proxy.kubeconfig.makeApiClient(CoreV1Api).readNamespace({ name: "default" });
    expect(ns.metadata?.name).toBe("default");
  });

  it("answers a 429 burst as kube-apiserver's watch cache does, then passes again", async () => {
    proxy.set([{ kind: "status-burst", code: 429, count: 2 }]);
    for (let i = 0; i < 2; i++) {
      const r = await get(proxy.kubeconfig, "/api/v1/namespaces/default");
      expect(r.status).toBe(429);
      expect(r.headers["retry-after"]).toBe("1");
      expect(JSON.parse(r.body)).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "storage is (re)initializing",
        reason: "TooManyRequests",
        details: { retryAfterSeconds: 1 },
        code: 429,
      });
    }
    expect((await get(proxy.kubeconfig, "/api/v1/namespaces/default")).status).toBe(200);
    expect(proxy.stats()["status-429"]).toBe(2);
  });

  it("answers a 503 burst as a shutting-down kube-apiserver does", async () => {
    proxy.set([{ kind: "status-burst", code: 503, count: 1 }]);
    const r = await get(proxy.kubeconfig, "/api/v1/namespaces");
    expect(r.status).toBe(503);
    expect(r.headers["retry-after"]).toBe("1");
    expect(JSON.parse(r.body)).toMatchObject({ kind: "Status", reason: "ServiceUnavailable", code: 503 });
  });

  it("answers every watch with one 410 Expired ERROR event and ends it; lists pass", async () => {
    proxy.set([{ kind: "gone-watch" }]);
    const r = await get(proxy.kubeconfig, "/api/v1/namespaces/default/pods?watch=true&resourceVersion=7");
    expect(r.status).toBe(200);
    const events = r.body
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as unknown);
    expect(events).toEqual([
      {
        type: "ERROR",
        object: {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: "too old resource version: 7",
          reason: "Expired",
          code: 410,
        },
      },
    ]);
    expect((await get(proxy.kubeconfig, "/api/v1/namespaces/default/pods")).status).toBe(200);
  });

  it("ends a watch cleanly after afterMs", async () => {
    proxy.set([{ kind: "half-close-watch", afterMs: 300 }]);
    const started = Date.now();
    const r = await get(proxy.kubeconfig, "/api/v1/namespaces/default/configmaps?watch=1", 10_000);
    expect(r.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(proxy.stats()["half-closed-watch"]).toBeGreaterThanOrEqual(1);
  });

  it("resets connections, holds blackholed requests unanswered, and delays with latency", async () => {
    proxy.set([{ kind: "reset", probability: 1 }]);
    await expect(get(proxy.kubeconfig, "/api/v1/namespaces/default")).rejects.toThrow(
      /ECONNRESET|socket hang up/,
    );

    proxy.set([{ kind: "blackhole", probability: 1 }]);
    await expect(get(proxy.kubeconfig, "/api/v1/namespaces/default", 500)).rejects.toThrow(/timed out/);
    expect(proxy.stats().blackholed).toBeGreaterThanOrEqual(1);

    proxy.set([{ kind: "latency", ms: 150 }]);
    const started = Date.now();
    expect((await get(proxy.kubeconfig, "/api/v1/namespaces/default")).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    proxy.clear();
  });
});
