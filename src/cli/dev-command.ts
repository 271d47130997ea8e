/**
 * `petset dev`: the embedded default. The Kubernetes-compatible API server on loopback (a
 * random bearer token in the kubeconfig, mode 0600; TLS when `--listen` is not loopback), the
 * simulated kubelet, the CRDs and the controller, in one process; prints `kubeconfig: <path>`
 * once everything is ready, puts the kubectl plugin's launchers in a `bin` folder next to
 * the kubeconfig and prints the `export` lines that make `kubectl petset` work.
 */
import { existsSync, readFileSync } from "node:fs";
import { connect as tcpConnect } from "node:net";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { startApiServer } from "../apiserver-shim/index.js";
import { startSimulatedKubelet } from "../apiserver-shim/kubelet/kubelet.js";
import { nodeLeaseDurationFor } from "../apiserver-shim/kubelet/node-lease.js";
import { type DevConfig, FlagError } from "../config.js";
import { PetSetController } from "../controller/controller.js";
import { systemClock } from "../util/clock.js";
import { loadKubeConfig } from "../util/kubeconfig.js";
import { createLogger } from "../util/logger.js";
import { writePluginLaunchers } from "./launchers.js";
import { createManifests, installCrds, type Manifest, readManifests } from "./manifests.js";

/** The field manager of what `--apply` creates: what CHANGED-BY shows for those versions. */
export const DEV_FIELD_MANAGER = "petset-dev";

export interface DevEnvironment {
  kubeconfigPath: string;
  url: string;
  stop(): Promise<void>;
}

export async function startDev(config: DevConfig): Promise<DevEnvironment> {
  const logger = createLogger(config.logLevel, "petset-dev");
  // Read before anything starts: a wrong --apply path fails at once, naming the flag.
  const manifests = config.apply.map((path) => readApplyPath(path));
  // Without --token-file the server makes a random token; either way the owner's token (the
  // first) is the one in the kubeconfig, and it is never printed or logged.
  const tokens = config.tokenFile ? readTokenFile(config.tokenFile) : undefined;
  const server = await startApiServer({
    host: config.listen,
    port: config.port,
    logger: logger.child({ component: "apiserver" }),
    ...(config.dataDir ? { dataDir: resolve(config.dataDir) } : {}),
    ...(tokens ? { tokens } : {}),
    eventTtlMs: config.eventTtl * 1000,
    nodeMonitorGracePeriodMs: config.nodeMonitorGracePeriod * 1000,
  });
  const kubeconfigPath = resolve(config.kubeconfig);
  await server.writeKubeconfig(kubeconfigPath);
  const kubeConfig = loadKubeConfig({ kubeconfig: kubeconfigPath });
  await installCrds(kubeConfig);
  const kubelet = await startSimulatedKubelet({
    kubeConfig,
    logger: logger.child({ component: "kubelet" }),
    readyDelayMs: config.readyDelayMs,
    nodeLeaseDurationSeconds: nodeLeaseDurationFor(config.nodeMonitorGracePeriod),
    // Nodes users add with kwok's annotation are played too, as kwok would.
    adoptFakeNodes: true,
    // Only the kubeconfig's token may create what runs here (docs/apiserver-shim.md, "Security
    // model"): Job pods run their commands here, as this user (docs/operations.md, docs/jobs.md).
    runProcesses: true,
  });
  const controller = config.controller
    ? new PetSetController({
        kubeConfig,
        clock: systemClock,
        logger: logger.child({ component: "controller" }),
        workers: 8,
      })
    : undefined;
  await controller?.start();
  for (const objects of manifests) {
    const { created, existing } = await createManifests(kubeConfig, objects, DEV_FIELD_MANAGER);
    for (const id of created) process.stdout.write(`${id} created\n`);
    for (const id of existing) process.stdout.write(`${id} unchanged (exists)\n`);
  }
  return {
    kubeconfigPath,
    url: server.url,
    async stop() {
      await controller?.stop();
      await kubelet.stop();
      await server.close();
    },
  };
}

/** The manifests of one `--apply` path; a missing or unreadable path is a FlagError naming `--apply`. */
export function readApplyPath(path: string): Manifest[] {
  if (!existsSync(path))
    throw new FlagError(
      `--apply ${path}: no such file or folder (expected a manifest file or a folder of them)`,
    );
  try {
    return readManifests(resolve(path));
  } catch (err) {
    throw new FlagError(`--apply ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Bearer tokens of `--token-file`: one a line, `#` comments and blank lines skipped. */
export function readTokenFile(path: string): string[] {
  if (!existsSync(path))
    throw new FlagError(`--token-file ${path}: no such file (expected a file of bearer tokens, one a line)`);
  const tokens = readFileSync(path, "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  if (tokens.length === 0)
    throw new FlagError(`--token-file ${path}: holds no token (expected bearer tokens, one a line)`);
  return tokens;
}

export async function runDev(config: DevConfig): Promise<void> {
  const running = await liveServerOf(resolve(config.kubeconfig));
  if (running !== undefined)
    throw new Error(
      `another petset dev (make run) is serving ${running} with ${config.kubeconfig}: use that one, stop it first, or pass --kubeconfig OTHER_PATH`,
    );
  const env = await startDev(config).catch((err: unknown) => {
    throw explainStartError(err, config);
  });
  const binDir = join(dirname(env.kubeconfigPath), "bin");
  writePluginLaunchers(binDir);
  process.stdout.write(`apiserver: ${env.url}\n`);
  process.stdout.write(`kubeconfig: ${env.kubeconfigPath}\n`);
  process.stdout.write(readyInstructions({ cwd: process.cwd(), binDir, kubeconfig: env.kubeconfigPath }));
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await env.stop();
    process.exit(0);
  };
  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());
}

/**
 * What to type in another shell to use the cluster: the exact `export` lines (paths under
 * the working directory as "$PWD/...", so they hold no machine path), then first commands
 * (for examples/web.yaml, which `make run` applies). The README's quick start shows these
 * lines as printed (test/e2e/quick-start.test.ts compares them).
 */
export function readyInstructions(o: { cwd: string; binDir: string; kubeconfig: string }): string {
  const shellPath = (path: string): string => {
    const rel = relative(o.cwd, path);
    return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? `$PWD/${rel}` : path;
  };
  return [
    "ready. In another shell, from this directory:",
    `  export PATH="${shellPath(o.binDir)}:$PATH"`,
    `  export KUBECONFIG="${shellPath(o.kubeconfig)}"`,
    "  kubectl get petsets,petsetversions,pods",
    "  kubectl petset history web",
    '  kubectl petset set image web nginx=nginx:1.28 --cause "nginx 1.28"',
    "  kubectl petset status web --watch",
    "Ctrl-C stops it (and everything in it, unless --data-dir keeps it).",
    "",
  ].join("\n");
}

/** Start-up failures a newcomer can hit, as one line that says what to do. */
export function explainStartError(err: unknown, config: Pick<DevConfig, "listen" | "port">): Error {
  const code = (err as { code?: unknown }).code;
  const where = `${config.listen}:${config.port}`;
  if (code === "EADDRINUSE")
    return new Error(
      `${where} is already in use (another petset dev or make run?): stop it, or pass --port 0 to pick a free port`,
      { cause: err },
    );
  if (code === "EACCES")
    return new Error(
      `not allowed to listen on ${where}: use a port above 1024, or --port 0 to pick a free one`,
      {
        cause: err,
      },
    );
  if (code === "EADDRNOTAVAIL")
    return new Error(
      `--listen ${config.listen}: not an address of this machine: expected one of its addresses (127.0.0.1, or 0.0.0.0 for every interface)`,
      { cause: err },
    );
  if (code === "ENOTFOUND" || code === "EAI_AGAIN")
    return new Error(
      `--listen ${config.listen}: no such host: expected an address or host name of this machine (127.0.0.1, or 0.0.0.0 for every interface)`,
      { cause: err },
    );
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * The server of an existing kubeconfig at `path` when something still accepts connections
 * there: a second `make run` would otherwise overwrite the kubeconfig the first one's users
 * rely on. A kubeconfig left by a stopped server is simply replaced.
 */
async function liveServerOf(path: string): Promise<string | undefined> {
  if (!existsSync(path)) return undefined;
  const match = /^\s*server:\s*(\S+)\s*$/m.exec(readFileSync(path, "utf8"));
  if (match?.[1] === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(match[1]);
  } catch {
    return undefined;
  }
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const accepts = await new Promise<boolean>((done) => {
    const socket = tcpConnect({ host, port, timeout: 1000 });
    const finish = (ok: boolean) => {
      socket.destroy();
      done(ok);
    };
    socket.once("connect", () => finish(true));
    socket.once("error", () => finish(false));
    socket.once("timeout", () => finish(false));
  });
  return accepts ? url.origin : undefined;
}
