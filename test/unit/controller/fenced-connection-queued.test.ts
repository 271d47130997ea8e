/**
 * Issue 24 item 13: bytes a request wrote can wait inside the process after `write()` returned
 * (a TLS handshake not yet done, a TCP connect not yet done, a body queued behind a full
 * connection). A check made at `write()` passes, the process freezes there (SIGSTOP) past its
 * Lease, and on resume the bytes leave: a write from a replica that no longer leads (chaos seed
 * 777: an Event POSTed by a resumed leader). The fence must run as the bytes leave.
 *
 * Real sockets on loopback: an origin server that records every request it received whole,
 * and a gate in front of it that holds each connection (reads nothing) until released, so a
 * handshake or a body is held at a chosen point. "The process froze and woke after its Lease"
 * is the check starting to refuse at that point.
 */
import {
  createServer as createHttpServer,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer, Agent as HttpsAgent, request as httpsRequest } from "node:https";
import {
  type AddressInfo,
  connect,
  createServer as createNetServer,
  type Server,
  type Socket,
} from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createServingCert } from "../../../src/apiserver-shim/serving-cert.js";
import { FencedAgents } from "../../../src/controller/fenced-connection.js";
import { LeaseLostError } from "../../../src/controller/lease-guard.js";

const cert = createServingCert(["localhost", "127.0.0.1"]);
/** Requests the origins received whole (headers and the full body). */
const received: string[] = [];
const record = (req: IncomingMessage, res: ServerResponse) => {
  let bytes = 0;
  req.on("data", (d: Buffer) => (bytes += d.length));
  req.on("end", () => {
    received.push(`${req.method} ${req.url} ${bytes}`);
    res.end("ok");
  });
};
const plainOrigin = createHttpServer(record);
const tlsOrigin = createHttpsServer({ cert: cert.cert, key: cert.key }, record);

/** A TCP gate: holds each accepted connection, unread, until `release()` pipes it on. */
function gate(origin: () => number) {
  const held: Socket[] = [];
  const waiters: (() => void)[] = [];
  const server: Server = createNetServer({ pauseOnConnect: true }, (client) => {
    held.push(client);
    for (const w of waiters.splice(0)) w();
  });
  return {
    server,
    held,
    /** Resolves once a connection is held. */
    connection: () => new Promise<void>((resolve) => (held.length > 0 ? resolve() : waiters.push(resolve))),
    release() {
      for (const client of held.splice(0)) {
        const up = connect(origin(), "127.0.0.1");
        client.pipe(up).pipe(client);
        up.on("error", () => client.destroy());
        client.on("error", () => up.destroy());
        client.resume();
      }
    },
  };
}
const port = (s: { address(): unknown }) => (s.address() as AddressInfo).port;
const plainGate = gate(() => port(plainOrigin));
const tlsGate = gate(() => port(tlsOrigin));

const listen = (s: Server) => new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
beforeAll(async () => {
  for (const s of [plainOrigin, tlsOrigin, plainGate.server, tlsGate.server]) await listen(s);
});
afterAll(async () => {
  for (const s of [plainOrigin, tlsOrigin]) s.closeAllConnections();
  for (const s of [plainOrigin, tlsOrigin, plainGate.server, tlsGate.server])
    await new Promise((resolve) => s.close(resolve));
});

/** A fence that lets writes through until `freeze()`, then refuses every one. */
function fence() {
  let frozen = false;
  let checks = 0;
  const agents = new FencedAgents(() => {
    checks++;
    if (frozen) throw new LeaseLostError("resumed after the Lease expired");
  });
  return {
    agents,
    freeze: () => {
      frozen = true;
    },
    checks: () => checks,
  };
}
let current: ReturnType<typeof fence> | undefined;
afterEach(() => current?.agents.destroy());

/** The request's outcome: its status, or the error it failed with. */
function outcome(req: ReturnType<typeof httpRequest>): Promise<number | Error> {
  return new Promise((resolve) => {
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", resolve);
  });
}

async function until(cond: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error("condition not reached within 5 s");
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("issue 24 item 13: a write checked before a freeze does not leave after it", () => {
  it("issue 24 item 13: a request written while its TLS handshake is pending is checked once the handshake is done, and refused after a freeze", async () => {
    current = fence();
    const agent = current.agents.forRequest(new HttpsAgent({ ca: cert.caCert }), true) as HttpsAgent;
    const url = `https://127.0.0.1:${port(tlsGate.server)}/api/v1/namespaces/chaos/events`;
    const req = httpsRequest(url, { method: "POST", agent });
    const result = outcome(req);
    req.end('{"kind":"Event"}'); // written now: the connection is not even open yet
    // The handshake cannot finish while the gate holds the connection: the process freezes
    // here, with the request written and its connection handshaking, and wakes without the Lease.
    await tlsGate.connection();
    current.freeze();
    tlsGate.release();
    const r = await result;
    expect(r).toBeInstanceOf(Error);
    expect(String(r)).toMatch(/resumed after the Lease expired/);
    expect(received.filter((l) => l.includes("/events"))).toEqual([]);
  });

  it("issue 24 item 13: a request written while its TCP connection is still connecting is checked once connected", async () => {
    current = fence();
    const agent = current.agents.forRequest(new HttpAgent(), true) as HttpAgent;
    const url = `http://127.0.0.1:${port(plainGate.server)}/api/v1/namespaces/chaos/pods`;
    const req = httpRequest(url, { method: "POST", agent });
    // The freeze lands between write() and the connection being established.
    req.on("socket", (s) => s.prependOnceListener("connect", () => current?.freeze()));
    const result = outcome(req);
    req.end("{}");
    await plainGate.connection();
    plainGate.release();
    const r = await result;
    expect(String(r)).toMatch(/resumed after the Lease expired/);
    expect(received.filter((l) => l.includes("/pods"))).toEqual([]);
  });

  it("issue 24 item 13: a body queued behind a full connection is checked as it leaves, and a freeze while it waits sends no more of it", async () => {
    current = fence();
    const agent = current.agents.forRequest(new HttpAgent(), true) as HttpAgent;
    const first = Buffer.alloc(16 << 20, 1); // more than the kernel buffers while the gate reads nothing
    const rest = Buffer.alloc(1024, 2);
    const url = `http://127.0.0.1:${port(plainGate.server)}/apis/petset.dev/v1alpha1/petsetversions`;
    const req = httpRequest(url, {
      method: "POST",
      agent,
      headers: { "content-length": String(first.length + rest.length) },
    });
    const result = outcome(req);
    req.write(first);
    await plainGate.connection();
    await until(() => req.socket !== null && !req.socket.connecting);
    await new Promise((r) => setImmediate(r));
    const socket = req.socket as Socket;
    // Precondition: the kernel did not take the whole first part, so `rest` queues behind it.
    expect(socket.writableLength).toBeGreaterThan(0);
    const checked = current.checks();
    req.end(rest); // checked at write() before: passes, and waits in the process
    current.freeze();
    plainGate.release();
    const r = await result;
    expect(String(r)).toMatch(/resumed after the Lease expired/);
    expect(current.checks()).toBeGreaterThan(checked);
    expect(received.filter((l) => l.includes("/petsetversions"))).toEqual([]);
  });

  it("a request on an established TLS connection still goes out, checked", async () => {
    current = fence();
    const agent = current.agents.forRequest(new HttpsAgent({ ca: cert.caCert }), true) as HttpsAgent;
    const url = `https://127.0.0.1:${port(tlsOrigin)}/api/v1/namespaces/chaos/configmaps`;
    for (let i = 0; i < 2; i++) {
      const req = httpsRequest(url, { method: "POST", agent });
      const result = outcome(req);
      req.end("{}");
      expect(await result).toBe(200);
    }
    expect(current.checks()).toBeGreaterThanOrEqual(2);
    expect(received.filter((l) => l.includes("/configmaps"))).toHaveLength(2);
  });
});
