/**
 * HTTP upgrades (pods/exec's WebSocket) through the fault proxy (fault-proxy.ts): the upgrade
 * request is sent on to the target with the target's credentials, and once the target has
 * switched protocols (the command is running) the two connections are spliced. What a fault
 * does to an upgrade:
 * - refused: answered with a kube Status (a 429/503 burst) and closed; nothing reaches the
 *   target;
 * - drop: the target switched protocols (the command started), the client's connection is reset
 *   before it sees the 101; the target's side is read to its end, so the command runs to
 *   completion as if the network had failed on the client's side only;
 * - delay: the 101 and everything after it reach the client `delayMs` late (held, in order).
 */
import type { IncomingMessage } from "node:http";
import { request as plainRequest } from "node:http";
import { request as httpRequest, type RequestOptions } from "node:https";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";

export type UpgradeAnswer = { kind: "pass" } | { kind: "drop" } | { kind: "delay"; ms: number };

export interface UpgradeTarget {
  options: RequestOptions;
  protocol: string;
  hostname: string;
  port: string;
  pathPrefix: string;
  headers: Record<string, string>;
}

/** A raw HTTP answer on an upgrade's socket (it has no ServerResponse). */
export function answerRaw(
  socket: Duplex,
  status: number,
  statusText: string,
  headers: Record<string, string>,
  body: string,
): void {
  const lines = [`HTTP/1.1 ${status} ${statusText}`];
  const all = {
    "Content-Type": "application/json",
    ...headers,
    "Content-Length": String(Buffer.byteLength(body)),
    Connection: "close",
  };
  for (const [k, v] of Object.entries(all)) lines.push(`${k}: ${v}`);
  socket.end(`${lines.join("\r\n")}\r\n\r\n${body}`);
}

function head(res: IncomingMessage): string {
  const lines = [`HTTP/1.1 ${res.statusCode ?? 101} ${res.statusMessage ?? "Switching Protocols"}`];
  for (let i = 0; i < res.rawHeaders.length; i += 2)
    lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
  return `${lines.join("\r\n")}\r\n\r\n`;
}

/**
 * Sends the upgrade `req` (its socket `client`, its first bytes `first`) on to `target`,
 * applying `answer`; `reset` resets the client's TCP connection; `later` schedules a delay the
 * proxy can cancel; `track` registers the target's socket so the proxy's stop ends it.
 */
export function forwardUpgrade(
  req: IncomingMessage,
  client: Duplex,
  first: Buffer,
  path: string,
  target: UpgradeTarget,
  answer: UpgradeAnswer,
  hooks: {
    reset: () => void;
    later: (ms: number, fn: () => void) => void;
    track: (s: Socket) => void;
    count: (what: string) => void;
  },
): void {
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined && k !== "host" && k !== "authorization") headers[k] = v;
  }
  const send = target.protocol === "http:" ? plainRequest : httpRequest;
  const out = send({
    ...target.options,
    protocol: target.protocol,
    hostname: target.hostname,
    port: target.port,
    method: req.method,
    path: `${target.pathPrefix}${path}`,
    headers: { ...headers, ...target.headers },
    agent: false,
  });
  client.on("error", () => out.destroy());
  out.on("upgrade", (res: IncomingMessage, up: Socket, upHead: Buffer) => {
    hooks.track(up);
    up.on("error", () => client.destroy());
    if (answer.kind === "drop") {
      // The command runs; the client never learns it started.
      hooks.count("lost-answer-dropped");
      hooks.reset();
      up.resume();
      return;
    }
    const splice = () => {
      if (client.destroyed) {
        up.destroy();
        return;
      }
      client.write(head(res));
      if (upHead.length > 0) client.write(upHead);
      if (first.length > 0) up.write(first);
      up.pipe(client);
      client.pipe(up);
    };
    if (answer.kind === "delay") {
      hooks.count("lost-answer-delayed");
      up.pause();
      hooks.later(answer.ms, splice);
    } else splice();
  });
  out.on("response", (res: IncomingMessage) => {
    // The target refused the upgrade (a Status): pass its answer on as it is.
    let body = "";
    res.setEncoding("utf8");
    res.on("data", (c: string) => {
      body += c;
    });
    res.on("end", () => {
      const h: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers))
        if (typeof v === "string" && k !== "content-length" && k !== "connection") h[k] = v;
      answerRaw(client, res.statusCode ?? 502, res.statusMessage ?? "", h, body);
    });
  });
  out.on("error", (err) => {
    if (!client.destroyed)
      answerRaw(
        client,
        502,
        "Bad Gateway",
        {},
        JSON.stringify({
          kind: "Status",
          apiVersion: "v1",
          status: "Failure",
          code: 502,
          message: `fault proxy: ${err.message}`,
        }),
      );
  });
  out.end();
}
