/**
 * The embedded server refuses what it must (docs/apiserver-shim.md, "Security model"), each
 * refusal with the status kube-apiserver gives: no token or a wrong one 401, a browser's Host
 * or Origin 403, exec without the kubeconfig's token refused; it serves only TLS, which
 * kubectl verifies with the CA in the kubeconfig (on loopback and beyond). Self-contained:
 * its own servers, so it runs the same on every backend.
 */
import { X509Certificate } from "node:crypto";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { networkInterfaces } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { parse } from "yaml";
import { type ShimHarness, startHarness } from "./harness.js";

interface Reply {
  status: number;
  body: { kind?: string; code?: number; reason?: string; message?: string };
}

/** One request with exactly these headers (fetch would add its own and refuses to set Host). */
function call(
  method: string,
  url: string,
  headers: Record<string, string>,
  o: { body?: unknown } = {},
): Promise<Reply> {
  const send = url.startsWith("https:") ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    // The certificate is checked against `localhost` (in every serving certificate), not
    // against the Host header, which some of these requests forge.
    const req = send(url, { method, headers, ca, servername: "localhost" }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => {
        text += c.toString();
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Reply["body"] }));
    });
    req.on("error", reject);
    req.end(o.body === undefined ? undefined : JSON.stringify(o.body));
  });
}

const get = (url: string, headers: Record<string, string>): Promise<Reply> => call("GET", url, headers);

/** The CA of the server under test (from its kubeconfig). */
let ca = "";

/** Opens pods/exec over WebSocket as kubectl does; resolves with the HTTP status of the refusal. */
function execStatus(url: string, headers: Record<string, string>): Promise<number> {
  const ws = new WebSocket(url.replace(/^http/, "ws"), ["v5.channel.k8s.io"], { headers, ca });
  return new Promise((resolve, reject) => {
    ws.on("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on("open", () => {
      ws.terminate();
      reject(new Error("exec was upgraded"));
    });
    ws.on("error", () => undefined);
  });
}

const PODS = "/api/v1/namespaces/default/pods";
const EXEC = `${PODS}/web-0/exec?command=id&stdout=true&stderr=true`;

describe("a locked-down embedded server", () => {
  let h: ShimHarness;
  let host: string;
  beforeAll(async () => {
    h = await startHarness({ tokens: ["owner-token", "reader-token"] });
    host = new URL(h.server.url).host;
    ca = h.ca;
  });
  afterAll(async () => {
    await h?.close();
  });

  it("answers the kubeconfig's token", async () => {
    const r = await get(`${h.server.url}${PODS}`, { Host: host, ...h.auth });
    expect(r.status).toBe(200);
    expect(h.auth).toEqual({ Authorization: "Bearer owner-token" });
  });

  it("answers 401 Unauthorized without a token and with a wrong one", async () => {
    const cases: Record<string, string>[] = [
      {},
      { Authorization: "Bearer wrong" },
      { Authorization: "Basic b3duZXI6dG9rZW4=" },
    ];
    for (const headers of cases) {
      const r = await get(`${h.server.url}${PODS}`, { Host: host, ...headers });
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({
        kind: "Status",
        code: 401,
        reason: "Unauthorized",
        message: "Unauthorized",
      });
    }
  });

  it("refuses a foreign Host (DNS rebinding) with 403, even with the token", async () => {
    const r = await get(`${h.server.url}${PODS}`, { ...h.auth, Host: `attacker.example:${h.server.port}` });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ kind: "Status", code: 403, reason: "Forbidden" });
    expect(r.body.message).toContain('the Host header "attacker.example:');
    for (const ok of [`localhost:${h.server.port}`, `[::1]:${h.server.port}`, "127.0.0.1"])
      expect((await get(`${h.server.url}${PODS}`, { ...h.auth, Host: ok })).status).toBe(200);
  });

  it("refuses requests from a web page (Origin, also null; Sec-Fetch-Site) with 403", async () => {
    const browsers: Record<string, string>[] = [
      { Origin: "https://attacker.example" },
      { Origin: "null" },
      { Origin: `https://${host}` },
      { "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors" },
      { "Sec-Fetch-Site": "same-origin" },
    ];
    for (const browser of browsers) {
      const r = await get(`${h.server.url}${PODS}`, { Host: host, ...h.auth, ...browser });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ kind: "Status", code: 403, reason: "Forbidden" });
      expect(r.body.message).toContain("refuses browsers");
    }
  });

  it("lets other tokens read but not write", async () => {
    const reader = { Host: host, Authorization: "Bearer reader-token" };
    expect((await get(`${h.server.url}${PODS}`, reader)).status).toBe(200);
    const w = await call(
      "POST",
      `${h.server.url}/api/v1/namespaces/default/configmaps`,
      { ...reader, "Content-Type": "application/json" },
      { body: { metadata: { name: "by-reader" } } },
    );
    expect(w.status).toBe(403);
    expect(w.body).toMatchObject({ kind: "Status", code: 403, reason: "Forbidden" });
    expect(w.body.message).toContain("this token may only read");
  });

  it("refuses exec without the kubeconfig's token, before looking at the pod", async () => {
    const url = `${h.server.url}${EXEC}`;
    expect(await execStatus(url, {})).toBe(401);
    expect(await execStatus(url, { Authorization: "Bearer wrong" })).toBe(401);
    expect(await execStatus(url, { Authorization: "Bearer reader-token" })).toBe(403);
    expect(await execStatus(url, { ...h.auth, Origin: "https://attacker.example" })).toBe(403);
    expect(await execStatus(url, { ...h.auth, Host: "attacker.example" })).toBe(403);
    // With the owner's token the request gets as far as the pod, which does not exist.
    expect(await execStatus(url, h.auth)).toBe(404);
  });

  it("writes its kubeconfig with mode 0600 and the owner's token only", async () => {
    const { stat, readFile } = await import("node:fs/promises");
    expect((await stat(h.kubeconfig)).mode & 0o777).toBe(0o600);
    const text = await readFile(h.kubeconfig, "utf8");
    expect(text).toContain("owner-token");
    expect(text).not.toContain("reader-token");
  });
});

describe("an embedded server listening beyond loopback", () => {
  let h: ShimHarness;
  beforeAll(async () => {
    h = await startHarness({ host: "0.0.0.0" });
    ca = h.ca;
  });
  afterAll(async () => {
    await h?.close();
  });

  it("serves TLS that kubectl verifies with the CA of the kubeconfig, for its addresses too", async () => {
    expect(h.server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const doc = parse(await (await import("node:fs/promises")).readFile(h.kubeconfig, "utf8")) as {
      clusters: { cluster: Record<string, unknown> }[];
    };
    const cluster = doc.clusters[0]!.cluster;
    expect(cluster["insecure-skip-tls-verify"]).toBeUndefined();
    const ca = Buffer.from(String(cluster["certificate-authority-data"]), "base64").toString();
    expect(new X509Certificate(ca).ca).toBe(true);
    // Every address of the machine is in the certificate and accepted as Host.
    const other = Object.values(networkInterfaces())
      .flat()
      .find((i) => i?.family === "IPv4" && !i.internal)?.address;
    if (other) {
      const r = await get(`https://${other}:${h.server.port}${PODS}`, h.auth);
      expect(r.status).toBe(200);
    }
    const k = await h.kubectl(["get", "namespaces", "-o", "name"]);
    expect(k.stderr).toBe("");
    expect(k.stdout).toContain("namespace/default");
    // Still a token and the browser checks: TLS adds to them.
    const host = new URL(h.server.url).host;
    expect((await get(`${h.server.url}${PODS}`, { Host: host })).status).toBe(401);
    expect((await get(`${h.server.url}${PODS}`, { Host: host, ...h.auth, Origin: "null" })).status).toBe(403);
  });

  it("answers no plain HTTP (kubectl would send no token over it)", async () => {
    await expect(get(h.server.url.replace("https:", "http:") + PODS, h.auth)).rejects.toThrow();
  });
});
