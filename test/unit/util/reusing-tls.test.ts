/**
 * API clients reuse the kubeconfig's TLS material (src/util/keep-alive.ts `reusingTls`) but
 * not its credentials, against a real HTTPS server: a token changed between two requests is
 * sent at once; a CA file is read again only after TLS_REREAD_MS; each request still has an
 * agent of its own (connectThenCheck hands a request's agent its checked connection), made of
 * the same CA buffer.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createServingCert } from "../../../src/apiserver-shim/serving-cert.js";
import { makeApiClientWith, TLS_REREAD_MS } from "../../../src/util/keep-alive.js";

const cert = createServingCert(["127.0.0.1"]);
const otherCa = createServingCert(["127.0.0.1"]).caCert;
let server: Server;
let dir: string;
const tokens: (string | undefined)[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "petset-tls-"));
  server = createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    tokens.push(req.headers.authorization);
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end('{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"ns"}}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
});

afterEach(() => {
  vi.useRealTimers();
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

function kubeConfigWithCaFile(caFile: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "c", server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caFile }],
    users: [{ name: "u", token: "first" }],
    contexts: [{ name: "x", cluster: "c", user: "u" }],
    currentContext: "x",
  });
  return kc;
}

describe("reusingTls", () => {
  it("applies the current token to every request; each request's own agent holds the same CA buffer", async () => {
    const caFile = join(dir, "ca-token.crt");
    writeFileSync(caFile, cert.caCert);
    const kc = kubeConfigWithCaFile(caFile);
    const agents: unknown[] = [];
    const api = makeApiClientWith(kc, CoreV1Api, (ctx) => {
      agents.push(ctx.getAgent());
    });
    tokens.length = 0;
    await api.readNamespace({ name: "ns" });
    const user = kc.getCurrentUser();
    if (user === null) throw new Error("no user");
    (user as { token?: string }).token = "second";
    await api.readNamespace({ name: "ns" });
    expect(tokens).toEqual(["Bearer first", "Bearer second"]);
    expect(agents).toHaveLength(2);
    expect(agents[1]).not.toBe(agents[0]);
    const ca = (a: unknown) => (a as { options: { ca?: unknown } }).options.ca;
    expect(Buffer.isBuffer(ca(agents[0]))).toBe(true);
    expect(ca(agents[1])).toBe(ca(agents[0]));
  });

  it("reads a CA file again only once TLS_REREAD_MS has passed", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const caFile = join(dir, "ca-reread.crt");
    writeFileSync(caFile, cert.caCert);
    const api = makeApiClientWith(kubeConfigWithCaFile(caFile), CoreV1Api, () => {});
    await api.readNamespace({ name: "ns" });
    // The server's CA is replaced by one that did not sign its certificate: still trusted as read...
    writeFileSync(caFile, otherCa);
    await api.readNamespace({ name: "ns" });
    // ...until the file is read again.
    vi.setSystemTime(Date.now() + TLS_REREAD_MS);
    await expect(api.readNamespace({ name: "ns" })).rejects.toThrow(/certificate/);
  });
});
