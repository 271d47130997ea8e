/**
 * The last fence check before a write leaves the process, synchronously with the socket write.
 *
 * Two ways, one rule (nothing but a synchronous call between the check and the bytes):
 * - `FencedAgents` (the controller's API clients): keep-alive agents shared by a replica's
 *   clients, one for reads and one for writes. Every write to a socket of the write agent runs
 *   the check first; a refused write destroys the connection before a byte of it is sent. A
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
 * request is then handed the connected socket, and the check runs once more inside the
 * request's first write to that socket: nothing separates it from the bytes reaching the
 * kernel but that synchronous call.
 *
 * Only the plain http/https agents client-node creates are handled; behind a proxy agent the
 * check is made before connecting (docs/operations.md, "Fencing").
 */
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
 * The check once more, synchronously with the request's first write to the socket: between
 * the check above and that write lie promise continuations, which queue behind whatever else
 * the process has to do (watch events, other syncs): milliseconds on a busy replica, enough
 * for a freeze to land in. A connected socket hands the bytes to the kernel in the same call,
 * so nothing separates this check from the write. A refused write destroys the connection
 * before a byte of the request is sent.
 */
function checkBeforeFirstWrite(socket: Socket, check: () => void): void {
  fenceSocketWrites(socket, check, { once: true });
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
 * `check` before every write to `socket` (`once`: only the first): a request on a pooled connection is checked when its
 * bytes go out, not when the connection was made. A refused write destroys the connection
 * (with the check's error, which the request fails with) and sends nothing.
 */
export function fenceSocketWrites(socket: Socket, check: () => void, opts: { once?: boolean } = {}): void {
  const write = socket.write;
  socket.write = function (this: Socket, ...args: unknown[]): boolean {
    if (opts.once) socket.write = write;
    try {
      check();
    } catch (err) {
      socket.destroy(err instanceof Error ? err : new Error(String(err)));
      return false;
    }
    return (write as (...a: unknown[]) => boolean).apply(this, args);
  } as Socket["write"];
}
