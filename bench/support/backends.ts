/**
 * The two backends a benchmark runs against: `embedded` (a `petset dev --no-controller`
 * child process: the embedded API server plus the simulated kubelet) and `real` (the
 * control plane of test/cluster, started or reused with up.sh).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import type { KubeConfig } from "@kubernetes/client-node";
import { loadKubeConfig } from "../../src/util/kubeconfig.js";
import { KubeHttp } from "./kube-http.js";
import { type Child, PETSET_BIN, REPO_ROOT, spawnNode } from "./processes.js";
import { waitFor } from "./stats.js";

const execFileAsync = promisify(execFile);

export type BackendName = "embedded" | "real";

export interface Backend {
  name: BackendName;
  /** Admin kubeconfig (the benchmark's own requests). */
  kubeconfigPath: string;
  /** What the controller runs with (on real: the RBAC of deploy/). */
  controllerKubeconfigPath: string;
  kubeConfig: KubeConfig;
  http: KubeHttp;
  /** The API server process (embedded: the whole `petset dev` child). */
  apiServerPid: number;
  /** Storage behind the API server, when it is a separate process (real: etcd). */
  storagePid?: number;
  /** Real only: the test/cluster state dir (pids, kubeconfigs). */
  clusterDir?: string;
  /** A scratch directory for logs, removed by stop() unless `keepLogs`. */
  workDir: string;
  describe: Record<string, unknown>;
  /** Creates a namespace; on real waits for its default ServiceAccount. */
  namespace(prefix: string): Promise<string>;
  /** Deletes the namespace without waiting (real: the namespace controller cleans up). */
  deleteNamespace(name: string): Promise<void>;
  stop(): Promise<void>;
}

export interface BackendOptions {
  /** Simulated kubelet: ms from Running to Ready (embedded only). */
  readyDelayMs?: number;
  /**
   * Real only: PETSET_CLUSTER_PROFILE for up.sh. `statefulset-bench`: kube-controller-manager
   * runs only what a StatefulSet needs, with the MaxUnavailableStatefulSet gate (only for a
   * private state dir: a changed profile restarts that cluster).
   */
  profile?: "statefulset-bench";
  /** Embedded only: node flags for the `petset dev` child (e.g. --cpu-prof). */
  serverNodeArgs?: string[];
}

const SHARED_CLUSTER_DIR = join(homedir(), ".cache", "petset", "cluster");

export function realClusterDir(): string {
  return process.env.PETSET_CLUSTER_DIR ?? SHARED_CLUSTER_DIR;
}

/** The shared test cluster's state dir (other engineers' test runs use it: never pause it). */
export function isSharedClusterDir(dir: string): boolean {
  return resolve(dir) === resolve(SHARED_CLUSTER_DIR);
}

/**
 * Runs test/cluster/up.sh (idempotent) for the state dir `clusterDir` and returns the admin
 * kubeconfig path it prints. up.sh always runs kube-controller-manager with the statefulset
 * controller (it reads no switch for it), so there is nothing to ask for here.
 */
export async function clusterUp(
  profile: BackendOptions["profile"],
  clusterDir = realClusterDir(),
): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, PETSET_CLUSTER_DIR: clusterDir };
  if (profile) env.PETSET_CLUSTER_PROFILE = profile;
  else delete env.PETSET_CLUSTER_PROFILE;
  const { stdout } = await execFileAsync("bash", [join(REPO_ROOT, "test", "cluster", "up.sh")], {
    cwd: REPO_ROOT,
    env,
    maxBuffer: 16 * 1024 * 1024,
    timeout: 15 * 60_000,
  });
  const line = stdout
    .split("\n")
    .reverse()
    .find((l) => l.startsWith("kubeconfig: "));
  if (!line) throw new Error(`test/cluster/up.sh printed no kubeconfig line:\n${stdout.slice(-2000)}`);
  return line.slice("kubeconfig: ".length).trim();
}

export function readPid(name: string, clusterDir = realClusterDir()): number {
  const file = join(clusterDir, "pids", `${name}.pid`);
  const pid = Number(readFileSync(file, "utf8").trim());
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`${file}: no pid`);
  return pid;
}

/** True when the running kube-controller-manager runs the statefulset controller. */
export function statefulSetControllerRunning(clusterDir = realClusterDir()): boolean {
  try {
    const cmdline = readFileSync(`/proc/${readPid("kube-controller-manager", clusterDir)}/cmdline`, "utf8");
    return /--controllers=[^\0]*\bstatefulset\b/.test(cmdline);
  } catch {
    return false;
  }
}

async function commonNamespace(http: KubeHttp, prefix: string, waitForServiceAccount: boolean) {
  const name = `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
  await http.json("POST", "/api/v1/namespaces", {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, labels: { "petset.dev/bench": "true" } },
  });
  if (waitForServiceAccount) {
    await waitFor(
      `serviceaccount default in ${name}`,
      async () => {
        const res = await http.request("GET", `/api/v1/namespaces/${name}/serviceaccounts/default`);
        return res.status === 200 ? true : undefined;
      },
      60_000,
    );
  }
  return name;
}

async function startEmbedded(o: BackendOptions): Promise<Backend> {
  const workDir = mkdtempSync(join(tmpdir(), "petset-bench-"));
  const kubeconfigPath = join(workDir, "kubeconfig");
  const args = [
    ...(o.serverNodeArgs ?? []),
    PETSET_BIN,
    "dev",
    "--no-controller",
    "--kubeconfig",
    kubeconfigPath,
    "--log-level",
    "warn",
    "--ready-delay-ms",
    String(o.readyDelayMs ?? 200),
  ];
  const { child } = await spawnNode(args, join(workDir, "dev.log"), (l) =>
    l.startsWith("kubeconfig: ") ? true : undefined,
  );
  const kubeConfig = loadKubeConfig({ kubeconfig: kubeconfigPath });
  const http = await KubeHttp.create(kubeConfig);
  return {
    name: "embedded",
    kubeconfigPath,
    controllerKubeconfigPath: kubeconfigPath,
    kubeConfig,
    http,
    apiServerPid: child.pid,
    workDir,
    describe: {
      kind: "embedded API server (petset dev --no-controller, child process; includes the idle simulated kubelet)",
      version: await serverVersion(http),
      readyDelayMs: o.readyDelayMs ?? 200,
    },
    namespace: (prefix) => commonNamespace(http, prefix, false),
    deleteNamespace: async () => {},
    stop: async () => stopEmbedded(child, http, workDir),
  };
}

async function stopEmbedded(child: Child, http: KubeHttp, workDir: string): Promise<void> {
  http.destroy();
  await child.stop();
  if (!process.env.PETSET_BENCH_KEEP_LOGS) rmSync(workDir, { recursive: true, force: true });
}

async function serverVersion(http: KubeHttp): Promise<string> {
  const v = await http.json<{ gitVersion?: string }>("GET", "/version");
  return v.gitVersion ?? "unknown";
}

async function startReal(o: BackendOptions, clusterDir = realClusterDir()): Promise<Backend> {
  const kubeconfigPath = await clusterUp(o.profile, clusterDir);
  const controllerKubeconfigPath = join(clusterDir, "kubeconfig-controller");
  const kubeConfig = loadKubeConfig({ kubeconfig: kubeconfigPath });
  const http = await KubeHttp.create(kubeConfig);
  const workDir = mkdtempSync(join(tmpdir(), "petset-bench-"));
  return {
    name: "real",
    kubeconfigPath,
    controllerKubeconfigPath: existsSync(controllerKubeconfigPath)
      ? controllerKubeconfigPath
      : kubeconfigPath,
    kubeConfig,
    http,
    apiServerPid: readPid("kube-apiserver", clusterDir),
    storagePid: readPid("etcd", clusterDir),
    clusterDir,
    workDir,
    describe: {
      kind: "real control plane of test/cluster (kube-apiserver + etcd --unsafe-no-fsync, kcm, scheduler, kwok)",
      version: await serverVersion(http),
      statefulSetController: statefulSetControllerRunning(clusterDir),
    },
    namespace: (prefix) => commonNamespace(http, prefix, true),
    deleteNamespace: async (name) => {
      await http.request("DELETE", `/api/v1/namespaces/${name}`).catch(() => undefined);
    },
    stop: async () => {
      http.destroy();
      if (!process.env.PETSET_BENCH_KEEP_LOGS) rmSync(workDir, { recursive: true, force: true });
    },
  };
}

/** Every process test/cluster/lib.sh starts (`components`), stopped in reverse order of start. */
export const COMPONENTS = [
  "petset-resizer",
  "kwok",
  "kube-scheduler",
  "kube-controller-manager",
  "kube-apiserver",
  "etcd",
] as const;

/**
 * A second, private control plane (its own state dir, ports, etcd) with the built-in
 * StatefulSet controller on. The shared cluster is left alone: other engineers' test runs
 * call up.sh with the normal configuration, which would restart it under a comparison.
 * stop() signals only the processes recorded in that state dir whose command line names
 * it, then removes the dir.
 */
export async function startPrivateStatefulSetCluster(): Promise<Backend> {
  // PETSET_BENCH_CLUSTER_DIR: a state dir of one's own, reused across runs and left running.
  const kept = process.env.PETSET_BENCH_CLUSTER_DIR;
  const clusterDir = kept ?? mkdtempSync(join(tmpdir(), "petset-bench-cluster-"));
  const backend = await startReal({ profile: "statefulset-bench" }, clusterDir);
  const stopBackend = backend.stop;
  if (kept)
    return {
      ...backend,
      describe: { ...backend.describe, kind: "private control plane for the comparison" },
    };
  return {
    ...backend,
    describe: { ...backend.describe, kind: "private control plane for the comparison" },
    async stop() {
      await stopBackend();
      for (const name of COMPONENTS) await stopOwnProcess(clusterDir, name);
      rmSync(clusterDir, { recursive: true, force: true });
    },
  };
}

async function stopOwnProcess(clusterDir: string, name: string): Promise<void> {
  let pid: number;
  try {
    pid = readPid(name, clusterDir);
    if (!readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(clusterDir)) return;
  } catch {
    return;
  }
  process.kill(pid, "SIGTERM");
  for (let i = 0; i < 100 && existsSync(`/proc/${pid}`); i++) await new Promise((r) => setTimeout(r, 100));
  if (existsSync(`/proc/${pid}`)) process.kill(pid, "SIGKILL");
}

export function startBackend(name: BackendName, o: BackendOptions = {}): Promise<Backend> {
  return name === "embedded" ? startEmbedded(o) : startReal(o);
}
