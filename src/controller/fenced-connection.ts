/**
 * The last fence check before a write leaves the process, synchronously with the socket write.
 *
 * Two ways, one rule (nothing but a synchronous call between the check and the bytes):
 * - `FencedAgents` (the controller's API clients): keep-alive agents shared by a replica's
 *   clients, one for reads and one for writes. Every dispatch of bytes to a socket of the
 *   write agent runs the check first, and nothing is dispatched before the connection is
 *   established (TCP connected, TLS handshake done; see fenceSocketWrites); a refused write
 *   destroys the connection before a byte of it is sent. A
 *   pooled connection is reused by later requests, so a sync no longer pays a TCP connect and
 *   a TLS handshake per request (that was a fifth of the controller's CPU, docs/benchmarks.md).
 * - `connectThenCheck` (Lease writes, which keep a fresh connection each): connect first,
 *   check, then send on that connection.
 *
 * client-node gives every request a fresh agent, so every request opens its own connection:
 * a TCP connect and, on https, a TLS handshake. Those are I/O waits between a check made
 * before the request and the moment its bytes reach the socket. A process frozen in such a
 * wait (SIGSTOP, a stopped container, a long pause) and resumed after its Lease expired would
 * send a write it checked before the freeze. Here the connection is made before the check, the
 * request is then handed the connected socket, and the check runs once more as the request's
 * first bytes are dispatched to that socket: nothing separates it from the bytes reaching the
 * kernel but that synchronous call.
 *
 * Only the plain http/https agents client-node creates are handled; behind a proxy agent the
 * check is made before connecting (docs/operations.md, "Fencing").
 */
import { channel } from "node:diagnostics_channel";
import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import { isIP, Socket } from "node:net";
import { TLSSocket } from "node:tls";
import { type ConnectingAgent, KeepAliveAgents } from "../util/keep-alive.js";

/**
 * Runs `check` on a connection already established for `url` through `agent`, and makes the
 * agent's next request use that connection. Throws what `check` throws (the connection is
 * closed then), or the connection error; an aborted `signal` ends the attempt.
 */
export async function connectThenCheck(
  agent: unknown,
  url: string,
  check: () => void,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (
    !(agent instanceof HttpAgent) ||
    (agent.constructor !== HttpAgent && agent.constructor !== HttpsAgent)
  ) {
    check();
    return;
  }
  const a = agent as unknown as ConnectingAgent;
  const target = new URL(url);
  const host = target.hostname.replace(/^\[(.*)\]$/, "$1");
  const tls = agent instanceof HttpsAgent;
  const options: Record<string, unknown> = {
    host,
    port: Number(target.port) || (tls ? 443 : 80),
    ...(tls && isIP(host) === 0 ? { servername: host } : {}),
    ...a.options,
  };
  const socket = a.createConnection(options);
  if (!(socket instanceof Socket)) {
    check();
    return;
  }
  try {
    await connected(socket, tls, signal);
    check();
  } catch (err) {
    socket.destroy();
    throw err;
  }
  checkBeforeFirstWrite(socket, check);
  a.createConnection = () => socket;
}

/**
 * The check once more, synchronously with the request's first dispatch to the socket: between
 * the check above and that write lie promise continuations, which queue behind whatever else
 * the process has to do (watch events, other syncs): milliseconds on a busy replica, enough
 * for a freeze to land in. A connected socket hands the bytes to the kernel in the same call,
 * so nothing separates this check from the write. A refused write destroys the connection
 * before a byte of the request is sent.
 */
function checkBeforeFirstWrite(socket: Socket, check: () => void): void {
  fenceSocketWrites(socket, check, { once: true, established: true });
}

function connected(socket: Socket, tls: boolean, signal: AbortSignal | undefined): Promise<void> {
  const ready = tls && socket instanceof TLSSocket ? "secureConnect" : "connect";
  return new Promise<void>((resolve, reject) => {
    const cleanup = () => {
      socket.off(ready, onReady);
      socket.off("error", onError);
      signal?.removeEventListener("abort", onAbort);
    };
    const onReady = () => {
      cleanup();
      resolve();
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const onAbort = () => {
      cleanup();
      reject(signal?.reason instanceof Error ? signal.reason : new Error("aborted"));
    };
    if (signal?.aborted) return onAbort();
    socket.once(ready, onReady);
    socket.once("error", onError);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * The controller's keep-alive agents (KeepAliveAgents, util/keep-alive.ts) with every socket
 * of the write pool fenced: `check` runs synchronously before each write to it.
 */
export class FencedAgents extends KeepAliveAgents {
  constructor(check: () => void) {
    super((socket) => fenceSocketWrites(socket, check));
  }
}

/**
 * Every write that passed its last check, as it is dispatched: `{ checkedAt, request }` (wall
 * clock taken just before the check, and the request line, e.g. `POST /api/v1/.../events
 * HTTP/1.1`, when the dispatch starts a request). Published only when something subscribes (the
 * controller logs them at debug level: "write dispatched"). A write can reach the server late
 * only if it was checked before the process froze (docs/operations.md, "What is not"): its
 * `checkedAt` says when that was.
 */
export const writeDispatched = channel("petset:fence:write-dispatched");

export interface WriteDispatched {
  checkedAt: number;
  request: string | undefined;
}

/** The request line at the start of `data` (one chunk or writev's chunks), if it starts one. */
function requestLine(writev: boolean, data: unknown): string | undefined {
  const first = writev ? (data as { chunk?: unknown }[])[0]?.chunk : data;
  const head =
    typeof first === "string"
      ? first.slice(0, 512)
      : Buffer.isBuffer(first)
        ? first.subarray(0, 512).toString("latin1")
        : "";
  const line = head.split("\r\n", 1)[0] ?? "";
  return /^[A-Z]+ \S+ HTTP\/1\.[01]$/.test(line) ? line : undefined;
}

/**
 * The two places where bytes a request wrote wait in this process after `write()` returned:
 * net.Socket keeps them while it connects, and a TLS socket keeps them (inside node, in the
 * TLS layer) until its handshake is done, then sends them from C++ with no JavaScript in
 * between; a Writable also queues writes behind one the kernel has not taken yet. A check at
 * `write()` passes, the process freezes (SIGSTOP) during the handshake, and on resume the
 * request leaves while the Lease belongs to another replica (chaos seed 777, issue 24 item 13:
 * an Event POSTed by a resumed leader). So the check runs where the bytes are dispatched to
 * the connection (net.Socket's `_writeGeneric`, which both `_write` and `_writev` call), and
 * nothing is dispatched before the connection is established (TCP connected and, for TLS,
 * `secureConnect`): held until then, then checked. Once dispatched on an established
 * connection, the bytes reach the kernel in that same synchronous call (unless the kernel's
 * send buffer is full, where libuv keeps the rest: only for bodies larger than that buffer).
 */
interface DispatchingSocket {
  _writeGeneric(writev: boolean, data: unknown, encoding: string, cb: (err?: Error | null) => void): unknown;
}

/**
 * `check` before each dispatch of bytes to `socket` (`once`: only the first dispatch);
 * `established`: the socket is already connected (and its TLS handshake done). A request on a
 * pooled connection is checked when its bytes go out, not when the connection was made. A
 * refused dispatch destroys the connection (with the check's error, which the request fails
 * with) and sends nothing.
 */
export function fenceSocketWrites(
  socket: Socket,
  check: () => void,
  opts: { once?: boolean; established?: boolean } = {},
): void {
  const s = socket as Socket & DispatchingSocket;
  const dispatch = s._writeGeneric;
  if (typeof dispatch !== "function")
    throw new Error(
      "fenced-connection: net.Socket has no _writeGeneric in this Node.js; writes cannot be fenced",
    );
  const readyEvent = socket instanceof TLSSocket ? "secureConnect" : "connect";
  let ready = opts.established === true;
  if (!ready)
    socket.once(readyEvent, () => {
      ready = true;
    });
  s._writeGeneric = function (this: Socket, writev, data, encoding, cb) {
    if (!ready && !socket.destroyed) {
      // Held until the connection is established, then checked (below) as it leaves.
      const onReady = () => {
        socket.off("close", onClose);
        s._writeGeneric.call(this, writev, data, encoding, cb);
      };
      const onClose = () => {
        socket.off(readyEvent, onReady);
        cb(new Error("the connection closed before it was established"));
      };
      socket.once(readyEvent, onReady);
      socket.once("close", onClose);
      return;
    }
    const checkedAt = Date.now();
    try {
      check();
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      socket.destroy(e);
      cb(e);
      return;
    }
    if (writeDispatched.hasSubscribers)
      writeDispatched.publish({ checkedAt, request: requestLine(writev, data) } satisfies WriteDispatched);
    if (opts.once) s._writeGeneric = dispatch;
    return dispatch.call(this, writev, data, encoding, cb);
  };
}
