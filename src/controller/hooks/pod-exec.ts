/**
 * Runs a command in a pet's container through `pods/exec` (client-node's `Exec`, over
 * WebSocket), for the exec handler of lifecycle hooks.
 *
 * Contract: resolves with the exit code and the tails of stdout and stderr (the last
 * 64 KiB of each) once the server reported the command's status; a non-zero exit is a
 * result, not an error. Rejects with a PodExecError when the command could not run or its
 * status never arrived: the API refused (reason and message as the server sent them,
 * e.g. NotFound for the pod, BadRequest for the container), the command failed to start
 * (InternalError), the timeout passed (Timeout) or the signal aborted (Aborted). Timeout
 * and abort close the stream, which ends the command on the node. `transient` tells a caller
 * that may try again: no answer at all (the connection failed or was cut before the status,
 * so the command may have run, or may still run), an upgrade refused with 429 or 5xx, or the
 * fence refusing (reason LeaseLost).
 *
 * Fenced (with `fence`): checked before connecting and again, synchronously, as the upgrade
 * request's bytes go out on the connection (and every later write to it): a replica that is
 * not sure it holds its Lease starts no command.
 */
import type { IncomingMessage } from "node:http";
import { isIP, type NetConnectOpts, connect as netConnect, Socket } from "node:net";
import { Readable, Writable } from "node:stream";
import { type ConnectionOptions, connect as tlsConnect } from "node:tls";
import { Exec, type KubeConfig, type V1Status } from "@kubernetes/client-node";
import WebSocket from "ws";
import { z } from "zod";
import { fenceSocketWrites } from "../fenced-connection.js";
import { isTransientStatus } from "./transient.js";

export interface PodExecArgs {
  namespace: string;
  pod: string;
  container: string;
  command: string[];
  /** Written to the command's stdin, then closed. Without it the command gets no stdin. */
  stdin?: string;
  signal?: AbortSignal;
  /** Whole run, from connecting to the status (default: none). */
  timeoutMs?: number;
  /** The Lease fence's check: throws while this process may not write (lease-guard.ts). */
  fence?: () => void;
}

export interface PodExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export type PodExecFailure =
  | "NotFound"
  | "BadRequest"
  | "Forbidden"
  | "InternalError"
  | "Timeout"
  | "Aborted"
  | string;

export class PodExecError extends Error {
  constructor(
    readonly reason: PodExecFailure,
    message: string,
    readonly code?: number,
    cause?: unknown,
    /** Worth trying again (see the header); false: the server's definite answer. */
    readonly transient = false,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "PodExecError";
  }
}

/** Output kept per stream: the tail, as a log would show it. */
export const OUTPUT_LIMIT = 64 * 1024;

const StatusSchema = z.looseObject({
  status: z.string().optional(),
  message: z.string().optional(),
  reason: z.string().optional(),
  code: z.number().optional(),
  details: z
    .looseObject({
      causes: z
        .array(z.looseObject({ reason: z.string().optional(), message: z.string().optional() }))
        .optional(),
    })
    .optional(),
});

/**
 * The exit code a Status reports: 0 for Success, the ExitCode cause of NonZeroExitCode; kwok
 * (the real-backend test cluster) reports a non-zero exit as an InternalError whose message
 * ends with Go's "exit status N". Undefined when the command did not run.
 */
export function exitCodeOf(status: V1Status | z.infer<typeof StatusSchema>): number | undefined {
  if (status.status === "Success") return 0;
  if (status.reason === "NonZeroExitCode") {
    const cause = status.details?.causes?.find((c) => c.reason === "ExitCode");
    const n = Number(cause?.message);
    return Number.isInteger(n) ? n : 1;
  }
  const kwok = /: exit status (\d+)$/.exec(status.message ?? "");
  return kwok ? Number(kwok[1]) : undefined;
}

export async function execInPod(kc: KubeConfig, args: PodExecArgs): Promise<PodExecResult> {
  const where = `pods/exec ${args.namespace}/${args.pod} container ${args.container}`;
  if (args.signal?.aborted) throw new PodExecError("Aborted", `${where}: aborted before it started`);
  const fence = args.fence;
  if (fence !== undefined) {
    try {
      fence();
    } catch (err) {
      throw new PodExecError("LeaseLost", `${where}: not started: ${String(err)}`, undefined, err, true);
    }
  }
  const stdout = new TailSink(OUTPUT_LIMIT);
  const stderr = new TailSink(OUTPUT_LIMIT);
  const stdin = args.stdin === undefined ? null : Readable.from([Buffer.from(args.stdin)]);
  const handler = webSocketsOf(kc, fence);
  let socket: WebSocket | undefined;
  let settled = false;
  return new Promise<PodExecResult>((resolve, reject) => {
    const cleanups: (() => void)[] = [];
    const finish = (outcome: { ok: PodExecResult } | { err: PodExecError }) => {
      if (settled) return;
      settled = true;
      for (const c of cleanups) c();
      if ("ok" in outcome) resolve(outcome.ok);
      else {
        socket?.terminate();
        reject(outcome.err);
      }
    };
    if (args.timeoutMs !== undefined) {
      const t = setTimeout(
        () => finish({ err: new PodExecError("Timeout", `${where}: timed out after ${args.timeoutMs}ms`) }),
        args.timeoutMs,
      );
      cleanups.push(() => clearTimeout(t));
    }
    if (args.signal) {
      const onAbort = () =>
        finish({ err: new PodExecError("Aborted", `${where}: aborted`, undefined, args.signal?.reason) });
      args.signal.addEventListener("abort", onAbort, { once: true });
      cleanups.push(() => args.signal?.removeEventListener("abort", onAbort));
    }
    const onStatus = (raw: V1Status) => {
      const status = StatusSchema.safeParse(raw).data ?? {};
      const exitCode = exitCodeOf(status);
      if (exitCode !== undefined) finish({ ok: { exitCode, stdout: stdout.text(), stderr: stderr.text() } });
      else
        finish({
          err: new PodExecError(
            status.reason ?? "InternalError",
            `${where}: ${status.message ?? "command failed"}`,
            status.code,
          ),
        });
    };
    new Exec(kc, handler)
      .exec(args.namespace, args.pod, args.container, args.command, stdout, stderr, stdin, false, onStatus)
      .then((ws) => {
        socket = ws as WebSocket;
        if (settled) socket.terminate();
        socket.on("close", () =>
          finish({
            err: new PodExecError(
              "InternalError",
              `${where}: connection closed before the command's status arrived`,
              undefined,
              undefined,
              true,
            ),
          }),
        );
      })
      .catch((err: unknown) => finish({ err: connectError(where, err) }));
  });
}

/** A failed connection: the server's refusal as it sent it, or the transport's error. */
function connectError(where: string, err: unknown): PodExecError {
  const inner = err;
  if (inner instanceof PodExecError)
    return new PodExecError(
      inner.reason,
      `${where}: ${inner.message}`,
      inner.code,
      undefined,
      inner.transient,
    );
  const message =
    inner instanceof Error ? inner.message : String((err as { message?: unknown })?.message ?? err);
  const fenced = inner instanceof Error && (inner as { reason?: unknown }).reason === "LeaseLost";
  return new PodExecError(
    fenced ? "LeaseLost" : "InternalError",
    `${where}: ${message}`,
    undefined,
    inner ?? err,
    true,
  );
}

/** client-node's transport interface of Exec (not exported by name). */
type WebSocketInterface = NonNullable<ConstructorParameters<typeof Exec>[1]>;

/** The subprotocols offered, newest first (v5 adds closing stdin alone). */
const PROTOCOLS = ["v5.channel.k8s.io", "v4.channel.k8s.io"];

/**
 * Exec's transport: client-node's own handler minus its two surprises for a library
 * caller: a refused upgrade fails with the server's Status (reason, message) rather than
 * "Unexpected server response: 400", and a server's close-channel message (255) never
 * ends this process's stdout.
 */
function webSocketsOf(kc: KubeConfig, fence: (() => void) | undefined): WebSocketInterface {
  return {
    async connect(path, _text, binary) {
      const server = kc.getCurrentCluster()?.server;
      if (!server) throw new PodExecError("BadRequest", "the kubeconfig has no current cluster");
      const opts: WebSocket.ClientOptions = {};
      await kc.applyToHTTPSOptions(opts);
      if (fence !== undefined) fenceConnections(opts, server.startsWith("https:"), fence);
      const ws = new WebSocket(
        `${server.replace(/^http/, "ws").replace(/\/+$/, "")}${path}`,
        PROTOCOLS,
        opts,
      );
      return new Promise<WebSocket>((resolve, reject) => {
        ws.once("open", () => resolve(ws));
        ws.once("error", reject);
        // A refused upgrade: the server's Status, read before the socket is dropped.
        ws.once("unexpected-response", (req, res) => {
          void refusal(res).then((err) => {
            reject(err);
            req.destroy();
            ws.terminate();
          });
        });
        ws.on("message", (data: Buffer, isBinary: boolean) => {
          if (!isBinary || data.length === 0 || data[0] === 255) return;
          if (binary && !binary(data[0]!, data.subarray(1))) ws.close();
        });
      });
    },
  };
}

/**
 * `fence` before every write to the exec's connection: the agent client-node set (a fresh one
 * per call) makes its connections fenced; without an agent, `createConnection` does.
 */
function fenceConnections(opts: WebSocket.ClientOptions, tls: boolean, fence: () => void): void {
  const agent = opts.agent as { createConnection?: (...args: unknown[]) => unknown } | undefined;
  if (agent !== undefined && typeof agent.createConnection === "function") {
    const create = agent.createConnection.bind(agent);
    agent.createConnection = (...args: unknown[]) => {
      const socket = create(...args);
      if (socket instanceof Socket) fenceSocketWrites(socket, fence);
      return socket;
    };
    return;
  }
  opts.createConnection = ((options: ConnectionOptions & NetConnectOpts) => {
    const host = options.host ?? "";
    const servername = options.servername ?? (isIP(host) === 0 ? host : "");
    const socket = tls ? tlsConnect({ ...options, path: undefined, servername }) : netConnect(options);
    fenceSocketWrites(socket, fence);
    return socket;
  }) as WebSocket.ClientOptions["createConnection"];
}

/** The error an upgrade refusal carries: its Status when the body is one. */
async function refusal(res: IncomingMessage): Promise<PodExecError> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const b of res) {
      if (size < OUTPUT_LIMIT) chunks.push(b as Buffer);
      size += (b as Buffer).length;
    }
  } catch {
    // What arrived is all there is.
  }
  const body = Buffer.concat(chunks).toString("utf8");
  let status: z.infer<typeof StatusSchema> | undefined;
  try {
    status = StatusSchema.safeParse(JSON.parse(body)).data;
  } catch {
    status = undefined;
  }
  const code = res.statusCode ?? 0;
  return new PodExecError(
    status?.reason ?? (code === 404 ? "NotFound" : code === 403 ? "Forbidden" : "BadRequest"),
    status?.message ?? (body.trim() || `HTTP ${code}`),
    code,
    undefined,
    isTransientStatus(code),
  );
}

/** A Writable that keeps the last `limit` bytes written to it. */
class TailSink extends Writable {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly limit: number) {
    super();
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - (this.chunks[0]?.length ?? 0) >= this.limit && this.chunks.length > 1)
      this.size -= this.chunks.shift()!.length;
    done();
  }
  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.limit)).toString("utf8");
  }
}
