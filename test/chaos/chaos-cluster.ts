/**
 * The cluster a chaos run works on, with the API server as something the harness can kill:
 * - embedded: `petset dev --no-controller --data-dir DIR` as a child process (debug log with
 *   every request's User-Agent, to count a replica's writes); a restart is a SIGKILL and a new
 *   process on the same port, data dir and token (its WAL brings the objects back);
 * - real: the control plane of test/cluster (PETSET_CLUSTER_DIR); a restart SIGKILLs
 *   kube-apiserver (or etcd) and starts it again with the very arguments it ran with, updating
 *   its pid file so test/cluster/down.sh still stops it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import { loadKubeConfig } from "../../src/util/kubeconfig.js";
import {
  eventually,
  NODE_MONITOR_GRACE_SECONDS_REAL,
  REPO_ROOT,
  realClusterDir,
  startTestCluster,
} from "../support/cluster.js";
import { type ReceivedWrite, requestLogWrites } from "../support/request-log.js";

export type ChaosBackend = "embedded" | "real";

export interface ChaosCluster {
  backend: ChaosBackend;
  kubeConfig: KubeConfig;
  controllerKubeConfig: KubeConfig;
  namespace(prefix: string): Promise<string>;
  /** Writes received at or after `since` from a User-Agent containing `userAgent`. */
  writesBy(userAgent: string, since: Date): Promise<ReceivedWrite[]>;
  /** SIGKILL the API server and start it again; resolves once it answers. */
  restartApiServer(): Promise<void>;
  /** Real backend: SIGKILL etcd and start it again. */
  restartEtcd(): Promise<void>;
  stop(): Promise<void>;
  /** For `kubectl petset` run by the harness (the node faults' fencer). */
  kubeconfigPath: string;
  /** Seconds before a lost node is marked Ready=Unknown (node faults; undefined: none run). */
  nodeGraceSeconds?: number;
}

/** The embedded campaign's node monitor grace (petset dev --node-monitor-grace-period). */
export const EMBEDDED_NODE_GRACE_SECONDS = 4;

const CLI = join(REPO_ROOT, "dist", "src", "cli", "petset.js");
// petset dev took up to 90 s to start under a load average of 20 on 2 cores.
const READY_MS = 240_000;

/**
 * `restartable`: the API server may be killed (`make chaos`). Otherwise the cluster is the
 * test fixture's (test/support/cluster.ts: the in-process embedded server, or the shared real
 * cluster), which no fault restarts: what the slice in `make test` uses.
 */
export async function startChaosCluster(backend: ChaosBackend, restartable: boolean): Promise<ChaosCluster> {
  if (!restartable) return fixtureCluster(backend);
  return backend === "embedded" ? startEmbeddedProcess() : startRealCluster();
}

async function fixtureCluster(backend: ChaosBackend): Promise<ChaosCluster> {
  const cluster = await startTestCluster();
  const refuse = async () => {
    throw new Error("this chaos cluster is shared: its API server is not restarted");
  };
  return {
    backend,
    kubeConfig: cluster.kubeConfig,
    kubeconfigPath: cluster.kubeconfigPath,
    controllerKubeConfig: cluster.controllerKubeConfig,
    namespace: (prefix) => cluster.namespace(prefix),
    writesBy: (ua, since) => cluster.writesBy(ua, since),
    restartApiServer: refuse,
    restartEtcd: refuse,
    stop: () => cluster.stop(),
  };
}

/** Polls a cheap read until the API server answers. */
async function waitServing(kc: KubeConfig): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  await eventually(
    "the API server answers",
    async () => ((await core.listNamespace({ limit: 1 })) ? true : undefined),
    READY_MS,
    200,
  );
}

function namespaceMaker(kc: KubeConfig, waitServiceAccount: boolean) {
  const core = kc.makeApiClient(CoreV1Api);
  const made: string[] = [];
  return {
    made,
    async namespace(prefix: string): Promise<string> {
      const name = `${prefix}-${randomBytes(3).toString("hex")}`;
      await core.createNamespace({ body: { metadata: { name, labels: { "petset.dev/test": "true" } } } });
      made.push(name);
      if (waitServiceAccount)
        await eventually(`serviceaccount default in ${name}`, async () =>
          (await core.readNamespacedServiceAccount({ name: "default", namespace: name })) ? true : undefined,
        );
      return name;
    },
  };
}

async function startEmbeddedProcess(): Promise<ChaosCluster> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npx tsc -p tsconfig.build.json first`);
  const dir = mkdtempSync(join(tmpdir(), "petset-chaos-"));
  const tokenFile = join(dir, "token");
  writeFileSync(tokenFile, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
  const kubeconfigPath = join(dir, "kubeconfig");
  const logPath = join(dir, "apiserver.log");
  let port = 0;
  let child: ChildProcess | undefined;

  const launch = async (): Promise<void> => {
    const log = openSync(logPath, "a");
    const args = [CLI, "dev", "--no-controller", "--data-dir", join(dir, "data"), "--port", String(port)];
    args.push("--token-file", tokenFile, "--kubeconfig", kubeconfigPath, "--ready-delay-ms", "50");
    args.push("--log-level", "debug");
    args.push("--node-monitor-grace-period", String(EMBEDDED_NODE_GRACE_SECONDS));
    const c = spawn(process.execPath, args, { cwd: dir, stdio: ["ignore", "pipe", log] });
    closeSync(log);
    child = c;
    let out = "";
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`petset dev did not start in ${READY_MS} ms`)),
        READY_MS,
      );
      c.stdout?.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("kubeconfig: ")) {
          clearTimeout(timer);
          resolve();
        }
      });
      c.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`petset dev exited (${code}) before it was ready; log: ${logPath}`));
      });
    });
    c.stdout?.resume();
  };

  await launch();
  const kubeConfig = loadKubeConfig({ kubeconfig: kubeconfigPath });
  port = Number(new URL(kubeConfig.getCurrentCluster()?.server ?? "").port);
  const ns = namespaceMaker(kubeConfig, false);
  const kill = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => c.once("exit", () => resolve()));
    c.kill("SIGKILL");
    await gone;
  };
  return {
    backend: "embedded",
    kubeConfig,
    kubeconfigPath,
    nodeGraceSeconds: EMBEDDED_NODE_GRACE_SECONDS,
    controllerKubeConfig: kubeConfig,
    namespace: ns.namespace,
    writesBy: async (userAgent, since) => requestLogWrites(readFileSync(logPath, "utf8"), userAgent, since),
    async restartApiServer() {
      await kill();
      await launch();
      await waitServing(kubeConfig);
    },
    async restartEtcd() {
      throw new Error("the embedded backend has no etcd");
    },
    async stop() {
      await kill();
      if (process.env.CHAOS_KEEP !== "1") rmSync(dir, { recursive: true, force: true });
      else process.stdout.write(`chaos: petset dev data dir and log kept in ${dir}\n`);
    },
  };
}

async function startRealCluster(): Promise<ChaosCluster> {
  const cluster = await startTestCluster();
  const dir = realClusterDir();
  const restart = async (name: "kube-apiserver" | "etcd") => {
    await restartComponent(dir, name);
    await waitServing(cluster.kubeConfig);
  };
  return {
    backend: "real",
    kubeConfig: cluster.kubeConfig,
    kubeconfigPath: cluster.kubeconfigPath,
    nodeGraceSeconds: NODE_MONITOR_GRACE_SECONDS_REAL,
    controllerKubeConfig: cluster.controllerKubeConfig,
    namespace: (prefix) => cluster.namespace(prefix),
    writesBy: (ua, since) => cluster.writesBy(ua, since),
    restartApiServer: () => restart("kube-apiserver"),
    restartEtcd: () => restart("etcd"),
    stop: () => cluster.stop(),
  };
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

/**
 * SIGKILL test/cluster's NAME and start it again with the same argv, log and pid file. The
 * old process must be gone entirely: a killed Go process's main thread shows as a zombie while
 * its other threads still exit, and until they have, its listening sockets are open (a
 * restarted kube-apiserver failed with "bind: address already in use" once in the campaign).
 * A restart that exits at once is tried again.
 */
async function restartComponent(dir: string, name: string): Promise<void> {
  const pidFile = join(dir, "pids", `${name}.pid`);
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  const [bin, ...args] = argv;
  if (!bin?.endsWith(`/${name}`) || !argv.some((a) => a.includes(dir)))
    throw new Error(`pid ${pid} of ${pidFile} is not this cluster's ${name}`);
  process.kill(pid, "SIGKILL");
  await eventually(`${name} (pid ${pid}) gone`, async () => (alive(pid) ? undefined : true), 30_000, 50);
  // Reaped too (no /proc entry), or at most 10 s more.
  await eventually(
    `${name} (pid ${pid}) reaped`,
    () => (existsSync(`/proc/${pid}`) ? undefined : true),
    10_000,
    50,
  ).catch(() => {});
  for (let attempt = 1; ; attempt++) {
    const log = openSync(join(dir, "logs", `${name}.log`), "a");
    const child = spawn(bin, args, { detached: true, stdio: ["ignore", log, log] });
    closeSync(log);
    writeFileSync(pidFile, `${child.pid}\n`);
    const exited = new Promise<string>((resolve) =>
      child.once("exit", (code, sig) => resolve(`${code ?? sig}`)),
    );
    const early = await Promise.race([
      exited,
      new Promise<undefined>((r) => setTimeout(() => r(undefined), 3_000)),
    ]);
    if (early === undefined) {
      child.unref();
      return;
    }
    if (attempt >= 10)
      throw new Error(`${name} exited (${early}) right after each of 10 restarts: see logs/${name}.log`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
