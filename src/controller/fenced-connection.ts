/**
 * The last fence check before a write leaves the process: connect first, check, then send.
 *
 * client-node gives every request a fresh agent, so every request opens its own connection:
 * a TCP connect and, on https, a TLS handshake. Those are I/O waits between a check made
 * before the request and the moment its bytes reach the socket. A process frozen in such a
 * wait (SIGSTOP, a stopped container, a long pause) and resumed after its Lease expired would
 * send a write it checked before the freeze. Here the connection is made before the check, and
 * the request is then handed the connected socket: what separates the check from the write
 * is a few synchronous steps (the HTTP client writing headers and body), no I/O.
 *
 * Only the plain http/https agents client-node creates are handled; behind a proxy agent the
 * check is made before connecting (docs/operations.md, "Fencing").
 */
import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import { isIP, Socket } from "node:net";
import { TLSSocket } from "node:tls";

/** What this file needs of an http(s) agent: its options and its connection factory. */
interface ConnectingAgent {
  options?: Record<string, unknown>;
  createConnection(options: Record<string, unknown>, callback?: unknown): unknown;
}

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
  a.createConnection = () => socket;
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
