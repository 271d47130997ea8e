/**
 * The informers' watch transport (src/controller/watch-transport.ts) against a real Node HTTP
 * server: events whatever their chunking, the end of a stream, a refused watch, a server that
 * never answers, and an abort, each reported once as client-node's Watch does.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LineSplitter, StreamWatch } from "../../../src/controller/watch-transport.js";

let server: Server;
let port = 0;
/** How the server answers the next watch: given the response, writes what the test needs. */
let answer: (res: ServerResponse, url: URL) => void = (res) => res.end();
const urls: URL[] = [];
const auths: (string | undefined)[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    urls.push(url);
    auths.push(req.headers.authorization);
    answer(res, url);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function kubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "c", server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: "u", token: "w4tch" }],
    contexts: [{ name: "x", cluster: "c", user: "u" }],
    currentContext: "x",
  });
  return kc;
}

interface Run {
  events: [string, unknown][];
  done: Promise<unknown[]>;
  controller: AbortController;
}

/** Starts a watch; `done` resolves with every argument `done` was called with, 50 ms after its first call. */
async function watch(timeoutMs = 5_000, query: Record<string, unknown> = {}): Promise<Run> {
  const events: [string, unknown][] = [];
  const calls: unknown[] = [];
  let settle: (v: unknown[]) => void = () => {};
  const done = new Promise<unknown[]>((r) => {
    settle = r;
  });
  const controller = await new StreamWatch(kubeConfig(), timeoutMs).watch(
    "/api/v1/pods",
    query,
    (type, obj) => events.push([type, obj]),
    (err) => {
      calls.push(err);
      if (calls.length === 1) setTimeout(() => settle(calls), 50);
    },
  );
  return { events, done, controller };
}

const line = (type: string, name: string) => `${JSON.stringify({ type, object: { metadata: { name } } })}\n`;

describe("LineSplitter", () => {
  it.each([
    ["one line per chunk", ["a\n", "b\n"], ["a", "b"]],
    ["a line across chunks", ['{"x":', "1}\n"], ['{"x":1}']],
    ["several lines in one chunk", ["a\nb\nc\n"], ["a", "b", "c"]],
    ["CRLF endings", ["a\r\nb\r", "\n"], ["a", "b"]],
    ["empty lines skipped", ["\n\na\n\n"], ["a"]],
    ["a last line without newline", ["a\nb"], ["a", "b"]],
  ])("%s", (_, chunks, expected) => {
    const got: string[] = [];
    const s = new LineSplitter((l) => got.push(l));
    for (const c of chunks) s.push(c);
    s.end();
    expect(got).toEqual(expected);
  });
});

describe("StreamWatch", () => {
  it("asks for a watch with the query, delivers each event whatever the chunking, and reports the end once", async () => {
    const two = line("ADDED", "a") + line("MODIFIED", "b");
    const last = line("DELETED", "c");
    answer = (res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.write(two.slice(0, 30)); // half an event
      res.write(two.slice(30)); // its rest and a whole one
      res.write("not json\n");
      res.write(last.slice(0, 10));
      res.end(last.slice(10));
    };
    urls.length = 0;
    auths.length = 0;
    const run = await watch(5_000, {
      resourceVersion: "42",
      labelSelector: "petset.dev/petset",
      skipped: undefined,
    });
    expect(await run.done).toEqual([null]);
    expect(run.events).toEqual([
      ["ADDED", { metadata: { name: "a" } }],
      ["MODIFIED", { metadata: { name: "b" } }],
      ["DELETED", { metadata: { name: "c" } }],
    ]);
    expect(auths[0]).toBe("Bearer w4tch"); // the kubeconfig's credentials ride along
    const q = urls[0]?.searchParams;
    expect([q?.get("watch"), q?.get("resourceVersion"), q?.get("labelSelector"), q?.has("skipped")]).toEqual([
      "true",
      "42",
      "petset.dev/petset",
      false,
    ]);
  });

  it("reports a refused watch with its status code (a 410 makes client-node's ListWatch relist)", async () => {
    answer = (res) => {
      res.writeHead(410, { "Content-Type": "application/json" });
      res.end('{"kind":"Status","code":410}');
    };
    const run = await watch();
    const calls = await run.done;
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ statusCode: 410, message: "Gone" });
    expect(run.events).toEqual([]);
  });

  it("gives up on a server that accepts and sends no headers", async () => {
    answer = () => {}; // never answers
    const run = await watch(200);
    const calls = await run.done;
    expect(calls).toHaveLength(1);
    expect(String(calls[0])).toMatch(/no answer to the watch of \/api\/v1\/pods within 200 ms/);
  });

  it("keeps a live watch past the headers timeout, and ends it once on abort", async () => {
    let open: ServerResponse | undefined;
    answer = (res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.write(line("ADDED", "early"));
      open = res;
    };
    const run = await watch(100);
    const deadline = Date.now() + 5_000;
    while (run.events.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    // Past the headers timeout (100 ms), the stream still delivers.
    await new Promise((r) => setTimeout(r, 300));
    open?.write(line("MODIFIED", "late"));
    while (run.events.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(run.events.map(([t]) => t)).toEqual(["ADDED", "MODIFIED"]);
    run.controller.abort();
    const calls = await run.done;
    expect(calls).toHaveLength(1);
  });
});
