/**
 * HTTP fuzz of the embedded API server: malformed JSON, YAML and protobuf bodies, bodies over
 * kube's 3 MiB request limit (k8s.io/apiserver MaxRequestBodyBytes; 413 RequestEntityTooLarge),
 * bad query and watch parameters, slow and abandoned clients, thousands of concurrent watches.
 * The server must never answer 5xx or stop answering, and no stored object may change: every
 * object is dumped before and after and compared.
 */
import { Agent, request } from "node:https";
import { connect } from "node:tls";
import fc from "fast-check";
import { startApiServer } from "../../src/apiserver-shim/index.js";
import { createLogger } from "../../src/util/logger.js";

export interface HttpFuzzSummary {
  requests: number;
  byStatus: Record<string, number>;
  "5xx": number;
  fiveXxSamples: string[];
  oversized413: number;
  concurrentWatches: number;
  slowClients: number;
  abandonedClients: number;
  changedObjects: string[];
  serverAnsweredAfter: boolean;
  durationMs: number;
}

interface Target {
  url: URL;
  token: string;
  agent: Agent;
}

interface Reply {
  status: number;
  body: string;
}

function send(t: Target, method: string, path: string, body?: Buffer, contentType?: string): Promise<Reply> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: t.url.hostname,
        port: t.url.port,
        method,
        path,
        agent: t.agent,
        headers: {
          Authorization: `Bearer ${t.token}`,
          ...(contentType ? { "Content-Type": contentType } : {}),
          ...(body ? { "Content-Length": body.length } : {}),
        },
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", () => resolve({ status: -1, body: "response error" }));
      },
    );
    // A reset after a 413 is the server closing the connection as kube does: not a failure.
    req.on("error", (e) => resolve({ status: -1, body: String(e) }));
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.end(body);
  });
}

const NS = "httpfuzz";
const PETSETS = `/apis/petset.dev/v1alpha1/namespaces/${NS}/petsets`;
const CONFIGMAPS = `/api/v1/namespaces/${NS}/configmaps`;
const PODS = `/api/v1/namespaces/${NS}/pods`;
const COLLECTIONS = [PETSETS, CONFIGMAPS, PODS];

const JSON_CT = "application/json";
const YAML_CT = "application/yaml";
const PROTO_CT = "application/vnd.kubernetes.protobuf";
const PATCH_CTS = [
  "application/merge-patch+json",
  "application/strategic-merge-patch+json",
  "application/json-patch+json",
  "application/apply-patch+yaml",
];

/** Bodies no server may accept: each is malformed for the content type it is sent with. */
const malformedJson = fc.oneof(
  fc.constantFrom(
    "{",
    "}",
    "[",
    '{"a":',
    '{"metadata":{"name":"x"}',
    "nul",
    "tru",
    '{"a":1,}',
    "\u0000",
    "{'a':1}",
  ),
  fc.string({ minLength: 1, maxLength: 200 }).map((s) => `{${s}`),
  fc.integer({ min: 1000, max: 100_000 }).map((n) => "[".repeat(n)),
  fc.integer({ min: 1000, max: 20_000 }).map((n) => `${'{"a":'.repeat(n)}1${"}".repeat(n - 1)}`),
  fc
    .uint8Array({ minLength: 1, maxLength: 300 })
    .map((b) => Buffer.concat([Buffer.from("{"), Buffer.from(b)]).toString("latin1")),
);
const malformedYaml = fc.oneof(
  fc.constantFrom(
    "a: [",
    "\tkey: value",
    "a: &x [*x]",
    "- a\nb: c",
    "key: 'unterminated",
    "? [\n",
    // an alias bomb: every level multiplies the one before
    `a: &a ["x","x","x","x","x","x","x","x","x"]\n${Array.from({ length: 9 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`).join("\n")}`,
  ),
  fc.string({ minLength: 1, maxLength: 200 }).map((s) => `kind: [${s}`),
);
const malformedProtobuf = fc.oneof(
  fc.uint8Array({ minLength: 0, maxLength: 400 }),
  fc.uint8Array({ minLength: 0, maxLength: 400 }).map((b) => new Uint8Array([0x6b, 0x38, 0x73, 0x00, ...b])),
  // the magic, then a length-delimited field claiming far more bytes than follow
  fc.constant(new Uint8Array([0x6b, 0x38, 0x73, 0x00, 0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01])),
);

const badQuery = fc.constantFrom(
  "limit=-1",
  "limit=abc",
  "limit=99999999999999999999",
  "continue=garbage",
  "continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTF9",
  "resourceVersion=abc",
  "resourceVersion=-5",
  "resourceVersionMatch=Bogus",
  "resourceVersion=0&resourceVersionMatch=Exact",
  "labelSelector=!!",
  "labelSelector=a%20in%20(",
  "fieldSelector=a==b==c",
  "fieldSelector=spec.bogus=1",
  "timeoutSeconds=-5",
  "timeoutSeconds=abc",
  "watch=maybe",
  "watch=true&resourceVersion=abc",
  "watch=true&resourceVersion=1&resourceVersionMatch=Exact",
  "watch=true&sendInitialEvents=true",
  "watch=true&allowWatchBookmarks=x&timeoutSeconds=1",
  "watch=1&timeoutSeconds=0",
  "%zz=1",
  "a=%",
);
const badWriteQuery = fc.constantFrom(
  "dryRun=Bogus",
  "fieldValidation=Bogus",
  `fieldManager=${"m".repeat(200)}`,
  "fieldManager=%00",
  "force=maybe",
);

const badDeleteQuery = fc.constantFrom(
  "dryRun=Bogus",
  "dryRun=All&dryRun=x",
  "dryRun=All",
  "propagationPolicy=Bogus",
  "gracePeriodSeconds=abc",
  "gracePeriodSeconds=1.5",
);

type FuzzRequest = { method: string; path: string; body?: Buffer; contentType?: string };

const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc.oneof(
  fc
    .record({
      c: fc.constantFrom(...COLLECTIONS),
      body: malformedJson,
      method: fc.constantFrom("POST", "PUT"),
    })
    .map(({ c, body, method }) => ({
      method,
      path: method === "PUT" ? `${c}/victim` : c,
      body: Buffer.from(body),
      contentType: JSON_CT,
    })),
  fc
    .record({ c: fc.constantFrom(...COLLECTIONS), body: malformedJson, ct: fc.constantFrom(...PATCH_CTS) })
    .map(({ c, body, ct }) => ({
      method: "PATCH",
      path: `${c}/victim${ct.includes("apply") ? "?fieldManager=fuzz" : ""}`,
      body: Buffer.from(body),
      contentType: ct,
    })),
  fc.record({ c: fc.constantFrom(...COLLECTIONS), body: malformedYaml }).map(({ c, body }) => ({
    method: "POST",
    path: c,
    body: Buffer.from(body),
    contentType: YAML_CT,
  })),
  fc.record({ c: fc.constantFrom(...COLLECTIONS), body: malformedProtobuf }).map(({ c, body }) => ({
    method: "POST",
    path: c,
    body: Buffer.from(body),
    contentType: PROTO_CT,
  })),
  fc.record({ c: fc.constantFrom(...COLLECTIONS), q: badQuery }).map(({ c, q }) => ({
    method: "GET",
    path: `${c}?${q}${q.startsWith("watch") && !q.includes("timeoutSeconds") ? "&timeoutSeconds=1" : ""}`,
  })),
  fc.record({ c: fc.constantFrom(...COLLECTIONS), q: badWriteQuery }).map(({ c, q }) => ({
    method: "POST",
    path: `${c}?${q}`,
    // The create body lacks a name: even where the query passes, nothing is stored.
    body: Buffer.from('{"metadata":{}}'),
    contentType: JSON_CT,
  })),
  // Deletes kube refuses (or only pretends, dryRun=All): the victim must survive each.
  fc.record({ c: fc.constantFrom(...COLLECTIONS), q: badDeleteQuery }).map(({ c, q }) => ({
    method: "DELETE",
    path: `${c}/victim?${q}`,
  })),
);

async function dump(t: Target): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const c of [...COLLECTIONS, "/api/v1/namespaces"]) {
    const r = await send(t, "GET", c);
    // A collection not served (no CRDs installed) is kube's plain-text 404 page: nothing to dump.
    if (r.status === 404) continue;
    const list = JSON.parse(r.body) as { items?: { metadata?: { name?: string } }[] };
    for (const o of list.items ?? []) out.set(`${c}/${o.metadata?.name}`, JSON.stringify(o));
  }
  return out;
}

/** Opens a watch and returns a function that abandons it (socket destroyed mid-stream). */
function openWatch(t: Target, path: string): Promise<() => void> {
  return new Promise((resolve) => {
    const req = request({
      host: t.url.hostname,
      port: t.url.port,
      path: `${path}?watch=true&timeoutSeconds=120`,
      headers: { Authorization: `Bearer ${t.token}` },
      agent: false,
      ca: t.agent.options.ca,
    });
    req.on("response", (res) => {
      res.resume();
      resolve(() => req.destroy());
    });
    req.on("error", () => resolve(() => {}));
    req.end();
  });
}

/** A client that sends its headers and half a body, then stalls and vanishes. */
function slowClient(t: Target, stallMs: number): Promise<void> {
  return new Promise((resolve) => {
    const sock = connect({ host: t.url.hostname, port: Number(t.url.port), ca: t.agent.options.ca }, () => {
      sock.write(
        `POST ${PETSETS} HTTP/1.1\r\nHost: ${t.url.host}\r\nAuthorization: Bearer ${t.token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"metadata":`,
      );
      setTimeout(() => {
        sock.destroy();
        resolve();
      }, stallMs);
    });
    sock.on("error", () => resolve());
  });
}

export async function runHttpFuzz(o: {
  seed: number;
  runs: number;
  watches: number;
}): Promise<HttpFuzzSummary> {
  const started = Date.now();
  const token = "httpfuzz-owner-token";
  const server = await startApiServer({
    host: "127.0.0.1",
    port: 0,
    tokens: [token],
    logger: createLogger("error"),
  });
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { join } = await import("node:path");
  const { tmpdir } = await import("node:os");
  const { loadKubeConfig } = await import("../../src/util/kubeconfig.js");
  const dir = mkdtempSync(join(tmpdir(), "petset-httpfuzz-"));
  await server.writeKubeconfig(join(dir, "kubeconfig"));
  const ca = Buffer.from(
    loadKubeConfig({ kubeconfig: join(dir, "kubeconfig") }).getCurrentCluster()?.caData ?? "",
    "base64",
  );
  const t: Target = {
    url: new URL(server.url),
    token,
    agent: new Agent({ keepAlive: true, maxSockets: 16, ca }),
  };
  const summary: HttpFuzzSummary = {
    requests: 0,
    byStatus: {},
    "5xx": 0,
    fiveXxSamples: [],
    oversized413: 0,
    concurrentWatches: 0,
    slowClients: 0,
    abandonedClients: 0,
    changedObjects: [],
    serverAnsweredAfter: false,
    durationMs: 0,
  };
  const count = (req: FuzzRequest, r: Reply) => {
    summary.requests++;
    summary.byStatus[String(r.status)] = (summary.byStatus[String(r.status)] ?? 0) + 1;
    if (r.status >= 500) {
      summary["5xx"]++;
      if (summary.fiveXxSamples.length < 10)
        summary.fiveXxSamples.push(
          `${req.method} ${req.path.slice(0, 120)} ${req.contentType ?? ""}: ${r.body.slice(0, 200)}`,
        );
    }
  };
  try {
    await send(
      t,
      "POST",
      "/api/v1/namespaces",
      Buffer.from(JSON.stringify({ metadata: { name: NS } })),
      JSON_CT,
    );
    const victim = (extra: Record<string, unknown>) =>
      Buffer.from(JSON.stringify({ metadata: { name: "victim" }, ...extra }));
    await send(t, "POST", CONFIGMAPS, victim({ data: { a: "1" } }), JSON_CT);
    await send(t, "POST", PODS, victim({ spec: { containers: [{ name: "app", image: "nginx" }] } }), JSON_CT);
    const crd = { selector: { matchLabels: { app: "victim" } } };
    const template = {
      metadata: { labels: { app: "victim" } },
      spec: { containers: [{ name: "app", image: "nginx" }] },
    };
    await send(
      t,
      "POST",
      PETSETS,
      victim({ apiVersion: "petset.dev/v1alpha1", kind: "PetSet", spec: { ...crd, template } }),
      JSON_CT,
    );
    const before = await dump(t);

    for (const req of fc.sample(fuzzRequest, { seed: o.seed, numRuns: o.runs }))
      count(req, await send(t, req.method, req.path, req.body, req.contentType));

    // Over kube's limit: 413, for every content type.
    for (const ct of [JSON_CT, YAML_CT, PROTO_CT]) {
      const big = Buffer.alloc(3 * 1024 * 1024 + 1, 0x20);
      const req = { method: "POST", path: CONFIGMAPS, body: big, contentType: ct };
      const r = await send(t, req.method, req.path, req.body, req.contentType);
      count(req, r);
      if (r.status === 413) summary.oversized413++;
    }

    // Slow and abandoned clients, then thousands of watches open at once.
    await Promise.all(Array.from({ length: 20 }, (_, i) => slowClient(t, 200 + i * 10)));
    summary.slowClients = 20;
    const closers = await Promise.all(
      Array.from({ length: o.watches }, (_, i) => openWatch(t, COLLECTIONS[i % COLLECTIONS.length] ?? PODS)),
    );
    summary.concurrentWatches = closers.length;
    const during = await send(t, "GET", "/readyz");
    count({ method: "GET", path: "/readyz" }, during);
    for (const close of closers) close();
    summary.abandonedClients = closers.length;

    const after = await dump(t);
    for (const [k, v] of before)
      if (after.get(k) !== v) summary.changedObjects.push(`${k}: ${v} -> ${after.get(k)}`);
    for (const k of after.keys()) if (!before.has(k)) summary.changedObjects.push(`${k} (new)`);
    summary.serverAnsweredAfter = (await send(t, "GET", "/readyz")).status === 200;
  } finally {
    t.agent.destroy();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
    summary.durationMs = Date.now() - started;
  }
  return summary;
}
