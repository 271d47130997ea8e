/**
 * The one fixture every integration and e2e test takes its cluster from. The backend is
 * chosen by PETSET_TEST_BACKEND:
 * - `embedded` (default): the embedded API server and simulated kubelet, in this process;
 * - `real`: the control plane of test/cluster (etcd, kube-apiserver, controller-manager,
 *   scheduler, kwok built from Go modules); `make test-real` starts it;
 * - `kubeconfig`: whatever $KUBECONFIG points at (CRDs are installed if missing).
 * The same test code runs on each. Each test file gets its own namespace.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import { nodeLeaseDurationFor } from "../../src/apiserver-shim/kubelet/node-lease.js";
import { pooledKubeConfig } from "../../src/util/keep-alive.js";
import { loadKubeConfig } from "../../src/util/kubeconfig.js";
import { createLogger } from "../../src/util/logger.js";
import { READ_METHODS, type ReceivedWrite, readAuditLog } from "./request-log.js";

const run = promisify(execFile);
export const REPO_ROOT = resolve(import.meta.dirname, "..", "..");
/** One serving certificate for every embedded test server (RSA keys take a second each). */
export const TEST_CERT_DIR = join(REPO_ROOT, ".cache", "test-serving-cert");

export type Backend = "embedded" | "real" | "kubeconfig";
export type { ReceivedWrite } from "./request-log.js";

export interface TestCluster {
  backend: Backend;
  /** Admin kubeconfig file (for kubectl and the tests). */
  kubeconfigPath: string;
  kubeConfig: KubeConfig;
  /** Kubeconfig the controller runs with: on the real backend, limited to deploy/ RBAC. */
  controllerKubeConfig: KubeConfig;
  /** Creates a fresh namespace, deleted by stop(). */
  namespace(prefix: string): Promise<string>;
  kubectl(args: string[], opts?: { input?: string; allowFail?: boolean }): Promise<KubectlResult>;
  /**
   * Write requests (every verb but get/list/watch) the API server received at or after
   * `since` whose User-Agent contains `userAgent`: from the embedded server's request log, or
   * from kube-apiserver's audit log on the real backend (test/cluster/up.sh enables it).
   * Throws on the kubeconfig backend, which has no log this fixture can read.
   */
  writesBy(userAgent: string, since: Date): Promise<ReceivedWrite[]>;
  stop(): Promise<void>;
}

export interface KubectlResult {
  stdout: string;
  stderr: string;
  code: number;
}

export function backendFromEnv(): Backend {
  const b = process.env.PETSET_TEST_BACKEND ?? "embedded";
  if (b === "embedded" || b === "real" || b === "kubeconfig") return b;
  throw new Error(`PETSET_TEST_BACKEND=${b}: expected embedded, real or kubeconfig`);
}

export function realClusterDir(): string {
  return process.env.PETSET_CLUSTER_DIR ?? join(homedir(), ".cache", "petset", "cluster");
}

async function kubectlWith(
  kubeconfigPath: string,
  args: string[],
  opts: { input?: string; allowFail?: boolean } = {},
) {
  return new Promise<KubectlResult>((resolvePromise, reject) => {
    const child = execFile(
      "kubectl",
      ["--kubeconfig", kubeconfigPath, ...args],
      { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024, timeout: 120_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        if (code !== 0 && !opts.allowFail) {
          reject(new Error(`kubectl ${args.join(" ")} failed (${code}): ${stderr || stdout}`));
          return;
        }
        resolvePromise({ stdout, stderr, code });
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

/** Both PetSet CRDs are served (a marker alone outlives a wiped cluster). */
async function crdsPresent(kubeconfigPath: string): Promise<boolean> {
  const r = await kubectlWith(
    kubeconfigPath,
    ["get", "crd", "petsets.petset.dev", "petsetversions.petset.dev", "-o", "name"],
    { allowFail: true },
  );
  return r.code === 0;
}

/** Digest of crds/ (names and contents). */
function crdDigest(): string {
  const h = createHash("sha256");
  const dir = join(REPO_ROOT, "crds");
  for (const f of readdirSync(dir).sort()) h.update(f).update(readFileSync(join(dir, f)));
  return h.digest("hex").slice(0, 16);
}

async function installCrds(kubeconfigPath: string): Promise<void> {
  await kubectlWith(kubeconfigPath, ["apply", "--server-side", "--force-conflicts", "-f", "crds/"]);
  await kubectlWith(kubeconfigPath, [
    "wait",
    "--for=condition=Established",
    "--timeout=60s",
    "crd/petsets.petset.dev",
    "crd/petsetversions.petset.dev",
  ]);
}

interface Started {
  kubeconfigPath: string;
  controllerKubeconfigPath: string;
  writesBy: (userAgent: string, since: Date) => Promise<ReceivedWrite[]>;
  stop: () => Promise<void>;
}

/** Cluster-wide settings a test file may ask of its own embedded server. */
export interface ClusterOptions {
  /**
   * The node lifecycle controller's grace period (kube-controller-manager's
   * --node-monitor-grace-period). Embedded only (default 50 s, as kube); the real cluster runs
   * with NODE_MONITOR_GRACE_SECONDS_REAL for everyone (test/cluster/up.sh).
   */
  nodeMonitorGraceSeconds?: number;
}

/** --node-monitor-grace-period of test/cluster/up.sh's kube-controller-manager. */
export const NODE_MONITOR_GRACE_SECONDS_REAL = 20;

async function startEmbedded(opts: ClusterOptions = {}): Promise<Started> {
  const { startApiServer } = await import("../../src/apiserver-shim/index.js");
  const { startSimulatedKubelet } = await import("../../src/apiserver-shim/kubelet/kubelet.js");
  const logger = createLogger("warn", "test-apiserver");
  const dir = mkdtempSync(join(tmpdir(), "petset-test-"));
  const writes: ReceivedWrite[] = [];
  const server = await startApiServer({
    certDir: TEST_CERT_DIR,
    host: "127.0.0.1",
    port: 0,
    logger,
    ...(opts.nodeMonitorGraceSeconds
      ? { nodeMonitorGracePeriodMs: opts.nodeMonitorGraceSeconds * 1000 }
      : {}),
    onRequest: (r) => {
      if (!READ_METHODS.has(r.method))
        writes.push({ verb: r.method, uri: r.url, userAgent: r.userAgent, at: r.at });
    },
  });
  const kubeconfigPath = join(dir, "kubeconfig");
  await server.writeKubeconfig(kubeconfigPath);
  const kc = loadKubeConfig({ kubeconfig: kubeconfigPath });
  // `:slow` images take 1.5 s here (5 s by default): slow enough to observe, cheap for the suite.
  const kubelet = await startSimulatedKubelet({
    kubeConfig: kc,
    logger,
    readyDelayMs: 50,
    params: { slowDelayMs: 1500 },
    runProcesses: true,
    // A test's own Node with kwok's annotation is played here as kwok plays it on the real backend.
    adoptFakeNodes: true,
    ...(opts.nodeMonitorGraceSeconds
      ? { nodeLeaseDurationSeconds: nodeLeaseDurationFor(opts.nodeMonitorGraceSeconds) }
      : {}),
  });
  return {
    kubeconfigPath,
    controllerKubeconfigPath: kubeconfigPath,
    writesBy: async (userAgent, since) =>
      writes.filter((w) => w.userAgent.includes(userAgent) && w.at.getTime() >= since.getTime()),
    stop: async () => {
      await kubelet.stop();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The real control plane of test/cluster. up.sh is idempotent (0.1 s when the cluster runs,
 * seconds to start it, minutes to build it the first time), so the fixture always calls it:
 * the kubeconfig of a stopped cluster never passes for a running one.
 */
async function startReal(): Promise<Started> {
  const dir = realClusterDir();
  await new Promise<void>((resolveUp, reject) => {
    execFile(
      "bash",
      [join(REPO_ROOT, "test", "cluster", "up.sh")],
      { timeout: 40 * 60_000, maxBuffer: 64 * 1024 * 1024 },
      (err, _out, stderr) =>
        err ? reject(new Error(`test/cluster/up.sh failed: ${stderr.slice(-2000)}`)) : resolveUp(),
    );
  });
  const kubeconfigPath = join(dir, "kubeconfig");
  if (!existsSync(kubeconfigPath)) throw new Error(`test/cluster/up.sh wrote no ${kubeconfigPath}`);
  const controllerKubeconfigPath = join(dir, "kubeconfig-controller");
  return {
    kubeconfigPath,
    controllerKubeconfigPath: existsSync(controllerKubeconfigPath)
      ? controllerKubeconfigPath
      : kubeconfigPath,
    writesBy: (userAgent, since) => readAuditLog(join(dir, "audit"), userAgent, since),
    stop: async () => {},
  };
}

function startFromKubeconfig(): Started {
  const path = process.env.KUBECONFIG;
  if (!path) throw new Error("PETSET_TEST_BACKEND=kubeconfig needs KUBECONFIG");
  return {
    kubeconfigPath: path,
    controllerKubeconfigPath: path,
    writesBy: async () => {
      throw new Error("PETSET_TEST_BACKEND=kubeconfig: no request or audit log to read writes from");
    },
    stop: async () => {},
  };
}

/** The cluster of `backend` (default: PETSET_TEST_BACKEND); the fuzz runner starts both. */
export async function startTestCluster(
  backend: Backend = backendFromEnv(),
  opts: ClusterOptions = {},
): Promise<TestCluster> {
  const started =
    backend === "embedded"
      ? await startEmbedded(opts)
      : backend === "real"
        ? await startReal()
        : startFromKubeconfig();
  // A fresh embedded server needs the CRDs; a running cluster needs them once per content (the
  // server-side apply of 1 MiB of schema is seconds of kube-apiserver CPU per test file).
  const crdMark = backend === "real" ? join(realClusterDir(), `crds-${crdDigest()}`) : undefined;
  if (!crdMark || !existsSync(crdMark) || !(await crdsPresent(started.kubeconfigPath))) {
    await installCrds(started.kubeconfigPath);
    if (crdMark) writeFileSync(crdMark, "");
  }
  // The tests' own clients share keep-alive connections (they poll a lot: a TLS handshake per
  // request was a good part of the suite's CPU on both ends).
  const kubeConfig = pooledKubeConfig(loadKubeConfig({ kubeconfig: started.kubeconfigPath }));
  const controllerKubeConfig = loadKubeConfig({ kubeconfig: started.controllerKubeconfigPath });
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const namespaces: string[] = [];
  return {
    backend,
    kubeconfigPath: started.kubeconfigPath,
    kubeConfig,
    controllerKubeConfig,
    async namespace(prefix) {
      const name = `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
      await core.createNamespace({ body: { metadata: { name, labels: { "petset.dev/test": "true" } } } });
      namespaces.push(name);
      if (backend !== "embedded") {
        // As on any real cluster, pods are refused until the namespace's default
        // ServiceAccount exists (the ServiceAccount admission plugin).
        await eventually(`serviceaccount default in ${name}`, async () =>
          (await core.readNamespacedServiceAccount({ name: "default", namespace: name })) ? true : undefined,
        );
      }
      return name;
    },
    kubectl: (args, opts) => kubectlWith(started.kubeconfigPath, args, opts),
    writesBy: started.writesBy,
    async stop() {
      for (const ns of namespaces) {
        await core.deleteNamespace({ name: ns }).catch(() => {});
      }
      kubeConfig.closeConnections();
      await started.stop();
    },
  };
}

/** Polls `check` until it returns a value (not undefined) or the deadline passes. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs}ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ""}`,
      );
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export { run as execFileAsync };
