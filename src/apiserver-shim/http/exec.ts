/**
 * `pods/exec` as kube-apiserver serves it to kubectl and client-node: an HTTP upgrade to
 * WebSocket with the channel subprotocols `v5.channel.k8s.io` and `v4.channel.k8s.io`
 * (every message starts with its channel: 0 stdin, 1 stdout, 2 stderr, 3 error = a
 * metav1.Status, 4 resize; v5 adds 255 = close a channel). The command runs through the
 * simulated kubelet's ContainerExecutor. Requests are checked as kube does before anything
 * is upgraded (pod, container, running), so every refusal is a Status with kube's words;
 * SPDY upgrades get the same checks and then the refusal of an unsupported upgrade, so
 * kubectl's fallback from WebSocket to SPDY reports the server's first error.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "pino";
import { WebSocket, WebSocketServer } from "ws";
import { type ApiError, badRequest } from "../errors.js";
import {
  type ExecContainer,
  type ExecPod,
  ExecPodSchema,
  resolveContainerEnv,
} from "../kubelet/container-env.js";
import type { ContainerExecutor, ExecOutcome } from "../kubelet/local-exec.js";
import type { GenericStore } from "../registry/generic-store.js";
import type { ResourceRegistry } from "../registry/resource-registry.js";

export const EXEC_PROTOCOLS = ["v5.channel.k8s.io", "v4.channel.k8s.io"] as const;

const Channel = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 } as const;

export interface ExecDeps {
  store: GenericStore;
  registry: ResourceRegistry;
  executor: ContainerExecutor;
  logger: Logger;
  onClose: (fn: () => void) => () => void;
}

export interface ExecOptions {
  container: string;
  command: string[];
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

const truthy = (v: string | null) => v === "true" || v === "1";

/** The PodExecOptions of the query string, checked as kube-apiserver and the kubelet do. */
export function parseExecOptions(q: URLSearchParams): ExecOptions {
  const o: ExecOptions = {
    container: q.get("container") ?? "",
    command: q.getAll("command"),
    stdin: truthy(q.get("stdin")),
    stdout: truthy(q.get("stdout")),
    stderr: truthy(q.get("stderr")),
    tty: truthy(q.get("tty")),
  };
  if (o.command.length === 0) throw badRequest("you must specify at least one command for the container");
  if (!o.stdin && !o.stdout && !o.stderr)
    throw badRequest("you must specify at least 1 of stdin, stdout, stderr");
  return o;
}

/** The pod and container an exec runs in; ApiErrors as kube-apiserver and the kubelet give them. */
export function resolveExecTarget(
  deps: Pick<ExecDeps, "store" | "registry">,
  namespace: string,
  name: string,
  opts: ExecOptions,
): { pod: ExecPod; container: ExecContainer } {
  const def = deps.registry.get("", "v1", "pods")!;
  const parsed = ExecPodSchema.safeParse(deps.store.get(def, namespace, name));
  if (!parsed.success) throw badRequest(`pod ${name} cannot be read for exec: ${parsed.error.message}`);
  const pod = parsed.data;
  const containers = pod.spec.containers;
  let containerName = opts.container;
  if (!containerName) {
    if (containers.length === 1) containerName = containers[0]!.name;
    else {
      const all = [...containers, ...(pod.spec.initContainers ?? [])].map((c) => c.name);
      throw badRequest(
        `a container name must be specified for pod ${name}, choose one of: [${all.join(" ")}]`,
      );
    }
  }
  const container = [...containers, ...(pod.spec.initContainers ?? [])].find((c) => c.name === containerName);
  if (!container) throw badRequest(`container ${containerName} is not valid for pod ${name}`);
  if (!pod.spec.nodeName) throw badRequest(`pod ${name} does not have a host assigned`);
  const state = pod.status?.containerStatuses?.find((s) => s.name === containerName)?.state;
  if (pod.status?.phase !== "Running" || !state?.running)
    throw badRequest(`container not found ("${containerName}")`);
  return { pod, container };
}

/** The Status on the error channel: Success, NonZeroExitCode, or an internal error. */
export function execStatus(outcome: ExecOutcome, command: string[]): Record<string, unknown> {
  if (outcome.kind === "failed")
    return {
      metadata: {},
      status: "Failure",
      message: `Internal error occurred: error executing command in container: ${outcome.message}`,
      reason: "InternalError",
      details: { causes: [{ message: `error executing command in container: ${outcome.message}` }] },
      code: 500,
    };
  if (outcome.exitCode === 0) return { metadata: {}, status: "Success" };
  return {
    metadata: {},
    status: "Failure",
    message: `command terminated with non-zero exit code: error executing command [${command.join(" ")}], exit code ${outcome.exitCode}`,
    reason: "NonZeroExitCode",
    details: { causes: [{ reason: "ExitCode", message: String(outcome.exitCode) }] },
  };
}

/** Writes a plain HTTP response on a socket that asked for an upgrade, then closes it. */
export function rejectUpgrade(
  socket: Duplex,
  code: number,
  body: string,
  headers: Record<string, string | string[]> = {},
): void {
  const reason =
    { 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found" }[code] ?? "Error";
  const lines = [
    `HTTP/1.1 ${code} ${reason}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
  ];
  for (const [k, v] of Object.entries(headers)) for (const one of [v].flat()) lines.push(`${k}: ${one}`);
  socket.end(`${lines.join("\r\n")}\r\n\r\n${body}`);
}

export function rejectWithStatus(socket: Duplex, err: ApiError): void {
  rejectUpgrade(socket, err.code, JSON.stringify(err.status), {
    "Content-Type": "application/json",
    "Cache-Control": "no-cache, private",
  });
}

/** The `pods/exec` endpoint of one server. */
export class ExecEndpoint {
  private readonly wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    handleProtocols: (offered) => EXEC_PROTOCOLS.find((p) => offered.has(p)) ?? false,
  });

  constructor(private readonly deps: ExecDeps) {}

  /**
   * Serves one `pods/exec` upgrade request. Throws an ApiError for what kube refuses
   * before the upgrade (the caller writes it as a Status).
   */
  upgrade(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    target: { namespace: string; name: string; query: URLSearchParams },
  ): void {
    serveExecUpgrade(this.wss, req, socket, head, target, this.deps);
  }
}

function serveExecUpgrade(
  wss: WebSocketServer,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  target: { namespace: string; name: string; query: URLSearchParams },
  deps: ExecDeps,
): void {
  const opts = parseExecOptions(target.query);
  const { pod, container } = resolveExecTarget(deps, target.namespace, target.name, opts);
  const upgrade = (req.headers.upgrade ?? "").toLowerCase();
  if (upgrade !== "websocket") {
    // httpstream.Handshake's words for a protocol the server does not speak.
    const offered = String(req.headers["x-stream-protocol-version"] ?? req.headers.upgrade ?? "");
    rejectUpgrade(
      socket,
      403,
      `unable to upgrade: unable to negotiate protocol: client supports [${offered}] over ${req.headers.upgrade}, server accepts [${EXEC_PROTOCOLS.join(" ")}] over websocket\n`,
      {
        "Content-Type": "text/plain; charset=utf-8",
        "X-Accepted-Stream-Protocol-Versions": [...EXEC_PROTOCOLS],
      },
    );
    return;
  }
  const offered = String(req.headers["sec-websocket-protocol"] ?? "")
    .split(",")
    .map((p) => p.trim());
  if (!EXEC_PROTOCOLS.some((p) => offered.includes(p))) {
    rejectUpgrade(
      socket,
      403,
      `requested protocol(s) are not supported: [${offered.join(" ")}]; supports [${EXEC_PROTOCOLS.join(" ")}]\n`,
      { "Content-Type": "text/plain; charset=utf-8" },
    );
    return;
  }
  const { env, skipped } = resolveContainerEnv(pod, container, envSources(deps, target.namespace));
  if (skipped.length) deps.logger.info({ skipped }, "exec: variables the simulated kubelet cannot resolve");
  wss.handleUpgrade(req, socket, head, (ws) => {
    const run = deps.executor.start({
      pod: {
        namespace: pod.metadata.namespace,
        name: pod.metadata.name,
        uid: pod.metadata.uid,
        hostname: pod.spec.hostname ?? pod.metadata.name,
      },
      container: container.name,
      command: opts.command,
      env,
      stdin: opts.stdin,
    });
    const send = (channel: number, data: Buffer) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(Buffer.concat([Buffer.of(channel), data]));
    };
    // A TTY merges stderr into stdout; the simulated kubelet has no terminal (resize is ignored).
    if (opts.stdout || opts.tty) run.onStdout((b) => send(Channel.stdout, b));
    if (opts.stderr || opts.tty) run.onStderr((b) => send(opts.tty ? Channel.stdout : Channel.stderr, b));
    const v5 = ws.protocol === EXEC_PROTOCOLS[0];
    ws.on("message", (data: Buffer, isBinary: boolean) => {
      if (!isBinary || data.length === 0) return;
      const channel = data[0];
      if (v5 && channel === Channel.close) {
        if (data[1] === Channel.stdin) run.endStdin();
        return;
      }
      if (channel === Channel.stdin && opts.stdin) run.writeStdin(data.subarray(1));
    });
    let finished = false;
    const unregister = deps.onClose(() => {
      run.kill();
      ws.terminate();
    });
    ws.on("close", () => {
      unregister();
      if (!finished) run.kill();
    });
    void run.done.then((outcome) => {
      finished = true;
      unregister();
      send(Channel.error, Buffer.from(JSON.stringify(execStatus(outcome, opts.command))));
      ws.close(1000);
    });
  });
}

function envSources(deps: Pick<ExecDeps, "store" | "registry">, namespace: string) {
  const read = (resource: string, name: string) => {
    const def = deps.registry.get("", "v1", resource);
    const obj = def ? deps.store.peek(def, namespace, name) : undefined;
    return obj as { data?: Record<string, string> } | undefined;
  };
  return {
    configMap: (name: string) => {
      const cm = read("configmaps", name);
      return cm ? (cm.data ?? {}) : undefined;
    },
    secret: (name: string) => {
      const s = read("secrets", name);
      if (!s) return undefined;
      return Object.fromEntries(
        Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")]),
      );
    },
  };
}
