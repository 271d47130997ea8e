/**
 * The fence's last check is synchronous with the write of the request's bytes:
 * - FencedAgents: pooled keep-alive connections whose every socket write is checked first;
 * - connectThenCheck: the check runs on an established connection, and the request then goes
 *   out on that very connection.
 */
import { Agent, createServer, request, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectThenCheck,
  FencedAgents,
  type WriteDispatched,
  writeDispatched,
} from "../../../src/controller/fenced-connection.js";
import { LeaseLostError } from "../../../src/controller/lease-guard.js";

let server: Server;
let url: string;
const sockets: Socket[] = [];
const bytesPerSocket = new Map<Socket, number>();
const requests: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.end("ok");
  });
  server.on("connection", (s: Socket) => {
    sockets.push(s);
    bytesPerSocket.set(s, 0);
    s.on("data", (d: Buffer) => bytesPerSocket.set(s, (bytesPerSocket.get(s) ?? 0) + d.length));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/namespaces/ns/pods`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function post(agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", agent }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end("{}");
  });
}

async function until(cond: () => boolean): Promise<void> {
  const deadline = Date.now() + 3_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error("condition not reached within 3 s");
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("connectThenCheck", () => {
  it("a check that fails once connected closes the connection before a byte is sent", async () => {
    const before = sockets.length;
    const refused = new LeaseLostError("frozen while connecting");
    const err = await connectThenCheck(
      new Agent(),
      url,
      () => {
        throw refused;
      },
      undefined,
    ).catch((e: unknown) => e);
    expect(err).toBe(refused);
    await until(() => sockets.length === before + 1 && sockets[before]?.closed === true);
    expect(bytesPerSocket.get(sockets[before] as Socket)).toBe(0);
    expect(requests).toEqual([]);
  });

  it("a check that passes hands the connected socket to the request", async () => {
    const before = sockets.length;
    const agent = new Agent();
    let checks = 0;
    await connectThenCheck(agent, url, () => checks++, undefined);
    expect(checks).toBe(1);
    expect(await post(agent)).toBe(200);
    expect(requests).toEqual(["POST /api/v1/namespaces/ns/pods"]);
    // One connection for the check and the request together.
    expect(sockets.length).toBe(before + 1);
  });

  it("checks once more in the request's first write: a freeze after the connected check sends nothing", async () => {
    const before = sockets.length;
    const agent = new Agent();
    let frozen = false;
    await connectThenCheck(
      agent,
      url,
      () => {
        if (frozen) throw new LeaseLostError("frozen after the connected check");
      },
      undefined,
    );
    frozen = true; // the process stopped here, between the check and the write, and woke late
    const err = await post(agent).catch((e: unknown) => e);
    expect(String(err)).toMatch(/frozen after the connected check/);
    await until(() => sockets.length === before + 1 && sockets[before]?.closed === true);
    expect(bytesPerSocket.get(sockets[before] as Socket)).toBe(0);
    expect(requests).toEqual(["POST /api/v1/namespaces/ns/pods"]); // only the earlier test's
  });

  it("any other agent (a proxy's) is checked before connecting", async () => {
    let checked = false;
    await connectThenCheck(
      undefined,
      url,
      () => {
        checked = true;
      },
      undefined,
    );
    expect(checked).toBe(true);
  });
});

describe("FencedAgents (pooled keep-alive connections, checked at every write)", () => {
  const writeAgent = (agents: FencedAgents) => agents.forRequest(new Agent(), true) as Agent;

  it("requests reuse one connection, and clients share the agent of the same options", async () => {
    const agents = new FencedAgents(() => {});
    const before = sockets.length;
    const agent = writeAgent(agents);
    expect(writeAgent(agents)).toBe(agent);
    expect(agents.forRequest(new Agent(), false)).not.toBe(agent); // reads have their own pool
    for (let i = 0; i < 3; i++) expect(await post(agent)).toBe(200);
    expect(sockets.length).toBe(before + 1);
    agents.destroy();
  });

  it("a refused write on a pooled connection sends none of its bytes and closes that connection", async () => {
    let frozen = false;
    const agents = new FencedAgents(() => {
      if (frozen) throw new LeaseLostError("woke after the Lease expired");
    });
    const agent = writeAgent(agents);
    const before = sockets.length;
    const seen = requests.length;
    expect(await post(agent)).toBe(200);
    const socket = sockets[before] as Socket;
    await until(() => (bytesPerSocket.get(socket) ?? 0) > 0 && requests.length === seen + 1);
    const sent = bytesPerSocket.get(socket);
    frozen = true; // stopped between the request's first check and its write, resumed late
    const err = await post(agent).catch((e: unknown) => e);
    expect(String(err)).toMatch(/woke after the Lease expired/);
    await until(() => socket.closed);
    expect(bytesPerSocket.get(socket)).toBe(sent);
    expect(requests.length).toBe(seen + 1);
    agents.destroy();
  });

  it("a refused write on a new connection sends nothing", async () => {
    const agents = new FencedAgents(() => {
      throw new LeaseLostError("not the leader");
    });
    const before = sockets.length;
    const seen = requests.length;
    const err = await post(writeAgent(agents)).catch((e: unknown) => e);
    expect(String(err)).toMatch(/not the leader/);
    await until(() => sockets.length === before + 1 && sockets[before]?.closed === true);
    expect(bytesPerSocket.get(sockets[before] as Socket)).toBe(0);
    expect(requests.length).toBe(seen);
  });

  it("publishes each write that passed its check (request line, time taken before the check), none refused", async () => {
    const seen: WriteDispatched[] = [];
    const listen = (m: unknown) => seen.push(m as WriteDispatched);
    writeDispatched.subscribe(listen);
    try {
      let frozen = false;
      const agents = new FencedAgents(() => {
        if (frozen) throw new LeaseLostError("not the leader");
      });
      const agent = writeAgent(agents);
      const before = Date.now();
      expect(await post(agent)).toBe(200);
      expect(seen).toEqual([
        { request: "POST /api/v1/namespaces/ns/pods HTTP/1.1", checkedAt: expect.any(Number) },
      ]);
      expect(seen[0]?.checkedAt).toBeGreaterThanOrEqual(before);
      expect(seen[0]?.checkedAt).toBeLessThanOrEqual(Date.now());
      frozen = true;
      await post(agent).catch(() => undefined);
      expect(seen).toHaveLength(1);
      agents.destroy();
    } finally {
      writeDispatched.unsubscribe(listen);
    }
  });

  it("leaves any other agent (a proxy's) to the check made before connecting", () => {
    const agents = new FencedAgents(() => {});
    class ProxyAgent extends Agent {}
    const proxy = new ProxyAgent();
    expect(agents.forRequest(proxy, true)).toBe(proxy);
    expect(agents.forRequest(undefined, true)).toBeUndefined();
  });
});
