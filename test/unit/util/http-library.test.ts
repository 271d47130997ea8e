/**
 * The API clients' HTTP library (src/util/http-library.ts) against a real Node HTTP server:
 * what a client-node API call sends and reads, and how a request without an answer fails
 * (callers read node-fetch's message shape, the socket error's code, and the abort reason).
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { CoreV1Api, HttpMethod, KubeConfig, RequestContext } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isLeaseLost, LeaseLostError } from "../../../src/controller/lease-guard.js";
import { decodeChunks, sendRequest } from "../../../src/util/http-library.js";
import { makeApiClientWith } from "../../../src/util/keep-alive.js";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

let server: Server;
let base: string;
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => {
      body += c;
    });
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      if (req.url?.startsWith("/hang")) return; // never answers
      if (req.url?.startsWith("/api/v1/pods")) {
        // A page of a list the size kube-apiserver sends (several MB), in many writes.
        res.writeHead(200, { "Content-Type": "application/json" });
        const items = bigPage().items;
        res.write('{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[');
        for (const [i, it] of items.entries()) res.write((i === 0 ? "" : ",") + JSON.stringify(it));
        res.end("]}");
        return;
      }
      if (req.url?.startsWith("/api/v1/namespaces/ns/configmaps")) {
        res.writeHead(201, { "Content-Type": "application/json", "Set-Cookie": ["a=1", "b=2"] });
        // In two writes: the answer is read whole, whatever its chunks.
        res.write('{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm",');
        res.end('"namespace":"ns","resourceVersion":"7"},"data":{"k":"é"}}');
        return;
      }
      res.writeHead(404, { "Content-Type": "application/json" });
      res.end('{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function kubeConfig(server: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "c", server, skipTLSVerify: true }],
    users: [{ name: "u", token: "t0ken" }],
    contexts: [{ name: "x", cluster: "c", user: "u" }],
    currentContext: "x",
  });
  return kc;
}

describe("http-library", () => {
  it("sends a client-node call whole (method, path, auth, body with its length) and reads the answer", async () => {
    const api = makeApiClientWith(kubeConfig(base), CoreV1Api, () => {});
    seen.length = 0;
    const cm = await api.createNamespacedConfigMap({
      namespace: "ns",
      body: { metadata: { name: "cm" }, data: { k: "é" } },
    });
    expect(cm.metadata?.resourceVersion).toBe("7");
    expect(cm.data).toEqual({ k: "é" });
    const req = seen[0];
    expect(req?.method).toBe("POST");
    expect(req?.url).toBe("/api/v1/namespaces/ns/configmaps");
    expect(req?.headers.authorization).toBe("Bearer t0ken");
    expect(req?.headers["content-type"]).toBe("application/json");
    expect(req?.headers["content-length"]).toBe(String(Buffer.byteLength(req?.body ?? "")));
    expect(JSON.parse(req?.body ?? "")).toEqual({ metadata: { name: "cm" }, data: { k: "é" } });
  });

  it("answers an error status as client-node's ApiException, with the server's Status", async () => {
    const api = makeApiClientWith(kubeConfig(base), CoreV1Api, () => {});
    await expect(api.readNamespacedConfigMap({ namespace: "ns2", name: "x" })).rejects.toMatchObject({
      code: 404,
      body: expect.stringContaining('"reason":"NotFound"'),
    });
  });

  it("joins repeated answer headers and sends Accept */* when the caller names none", async () => {
    seen.length = 0;
    const res = await sendRequest(
      new RequestContext(`${base}/api/v1/namespaces/ns/configmaps`, HttpMethod.GET),
    );
    expect(res.httpStatusCode).toBe(201);
    expect(res.headers["set-cookie"]).toBe("a=1, b=2");
    expect(JSON.parse(await res.body.text()).data).toEqual({ k: "é" });
    expect((await res.body.binary()).toString("utf8")).toContain('"k":"é"');
    expect(seen[0]?.headers.accept).toBe("*/*");
    expect(seen[0]?.headers["content-length"]).toBeUndefined();
  });

  it("fails a request that gets no answer as node-fetch did: message, code, and the socket error as cause", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const url = `http://127.0.0.1:${port}/api/v1/namespaces`;
    const err = await sendRequest(new RequestContext(url, HttpMethod.GET)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({ name: "FetchError", code: "ECONNREFUSED" });
    expect((err as Error).message).toMatch(new RegExp(`^request to ${url} failed, reason: .*ECONNREFUSED`));
    expect(((err as Error).cause as { code?: string }).code).toBe("ECONNREFUSED");
  });

  it("ends a request when its signal aborts, the abort reason as the cause", async () => {
    const ctx = new RequestContext(`${base}/hang`, HttpMethod.GET);
    const abort = new AbortController();
    ctx.setSignal(abort.signal);
    const pending = sendRequest(ctx).then(
      () => undefined,
      (e: unknown) => e,
    );
    await until(() => seen.some((s) => s.url === "/hang"));
    abort.abort(new LeaseLostError("not the leader: test"));
    const err = await pending;
    expect(err).toMatchObject({ name: "AbortError" });
    expect(isLeaseLost(err)).toBe(true);
  });

  it("reads a page of several MB whole, with characters of 2 and 4 bytes throughout", async () => {
    const api = makeApiClientWith(kubeConfig(base), CoreV1Api, () => {});
    const list = await api.listPodForAllNamespaces({ limit: 500 });
    expect(list.metadata?.resourceVersion).toBe("9");
    expect(list.items).toHaveLength(500);
    const want = bigPage().items;
    expect(list.items.map((p) => p.metadata?.annotations)).toEqual(want.map((p) => p.metadata.annotations));
    const raw = await sendRequest(new RequestContext(`${base}/api/v1/pods`, HttpMethod.GET));
    const bytes = await raw.body.binary();
    expect(bytes.length).toBeGreaterThan(3 * 1024 * 1024);
    expect(bytes.toString("utf8")).toBe(await raw.body.text());
  });

  it("decodes a character split between two chunks whole", () => {
    const text = "ascii é and 𝄞 at the edges";
    const bytes = Buffer.from(text, "utf8");
    // Every cut, including those inside é (2 bytes) and 𝄞 (4 bytes).
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(decodeChunks([bytes.subarray(0, cut), bytes.subarray(cut)])).toBe(text);
    }
    const three = [bytes.subarray(0, 15), bytes.subarray(15, 16), bytes.subarray(16)];
    expect(decodeChunks(three)).toBe(text);
    expect(decodeChunks([bytes])).toBe(text);
  });

  it("refuses a body it cannot send rather than sending something else", async () => {
    const ctx = new RequestContext(`${base}/x`, HttpMethod.POST);
    ctx.setBody({ not: "a string" } as never);
    await expect(sendRequest(ctx)).rejects.toThrow(/only string and URLSearchParams request bodies/);
  });
});

/** 500 pods of about 9 KB each, their annotations full of é and 𝄞. */
function bigPage(): { items: { metadata: { name: string; annotations: Record<string, string> } }[] } {
  const items = [];
  for (let i = 0; i < 500; i++) {
    items.push({
      metadata: {
        name: `p-${i}`,
        annotations: { note: `${i} é𝄞 ${"x".repeat(4000)} ${"é".repeat(2000)} 𝄞` },
      },
    });
  }
  return { items };
}

async function until(cond: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error("condition not met within 5 s");
    await new Promise((r) => setImmediate(r));
  }
}
