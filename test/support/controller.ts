/**
 * The real controller for integration tests, two ways:
 * - `startController`: a `PetSetController` in this process, with the test cluster's controller
 *   kubeconfig (on the real backend only the RBAC of deploy/rbac.yaml, so a missing permission
 *   fails the test), scoped to one namespace, electing a leader on a Lease in that namespace;
 * - `startControllerProcess`: `node dist/src/cli/petset.bundle.js controller ...` as a child
 *   process, so a test can SIGKILL it at any point: the bundle the container image runs
 *   (hack/bundle.ts; needs `make build` first).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { CoordinationV1Api, type KubeConfig } from "@kubernetes/client-node";
import { PetSetController } from "../../src/controller/controller.js";
import { systemClock } from "../../src/util/clock.js";
import { createLogger, type LogLevel } from "../../src/util/logger.js";
import { REPO_ROOT, type TestCluster } from "./cluster.js";

export const LEASE_NAME = "petset-controller";
const CLI = join(REPO_ROOT, "dist", "src", "cli", "petset.bundle.js");

export interface ControllerHandle {
  readonly identity: string;
  readonly controller: PetSetController;
  /** Graceful stop: running syncs finish, the lease is released. */
  stop(): Promise<void>;
  /** Stop without releasing the lease (a crash): another replica waits for it to expire. */
  kill(): Promise<void>;
  /** The replica lost its Lease (its workers stopped; it never competes again). */
  lostLeadership(): boolean;
}

export interface ControllerTestOptions {
  identity?: string;
  workers?: number;
  /**
   * 8 s / 6 s / 1 s by default: a takeover after kill() takes seconds, not kube's 15 s, and a
   * renewal stalled for 3 s at load 10-18 in make test no longer stops the controller for the
   * rest of the test (as 4 s / 3 s did: "not sure the Lease is held", then lost leadership).
   */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  logLevel?: LogLevel;
  /** Limit of the caches' lists and watch set-ups (the controller's default otherwise). */
  cacheRequestTimeoutMs?: number;
}

let counter = 0;

export async function startController(
  cluster: TestCluster,
  namespace: string,
  opts: ControllerTestOptions = {},
): Promise<ControllerHandle> {
  const identity = opts.identity ?? `test-controller-${process.pid}-${++counter}`;
  const logger = createLogger(opts.logLevel ?? "warn", identity);
  const controller = new PetSetController({
    kubeConfig: cluster.controllerKubeConfig,
    clock: systemClock,
    logger,
    namespace,
    workers: opts.workers ?? 2,
    userAgent: `petset-controller/test (${identity})`,
    ...(opts.cacheRequestTimeoutMs !== undefined
      ? { cacheRequestTimeoutMs: opts.cacheRequestTimeoutMs }
      : {}),
    leaderElection: {
      namespace,
      name: LEASE_NAME,
      identity,
      leaseDurationMs: opts.leaseDurationMs ?? 8_000,
      renewDeadlineMs: opts.renewDeadlineMs ?? 6_000,
      retryPeriodMs: opts.retryPeriodMs ?? 1_000,
    },
  });
  let lost = false;
  controller.onLostLeadership = () => {
    lost = true;
  };
  await controller.start();
  let stopped = false;
  const halt = async (releaseLease: boolean) => {
    if (stopped) return;
    stopped = true;
    await controller.stop({ releaseLease });
  };
  return {
    identity,
    controller,
    stop: () => halt(true),
    kill: () => halt(false),
    lostLeadership: () => lost,
  };
}

/** The holder of the controller's Lease in `namespace` ("" when none). */
export async function leaseHolder(kubeConfig: KubeConfig, namespace: string): Promise<string> {
  const api = kubeConfig.makeApiClient(CoordinationV1Api);
  try {
    const lease = await api.readNamespacedLease({ name: LEASE_NAME, namespace });
    return lease.spec?.holderIdentity ?? "";
  } catch {
    return "";
  }
}

export interface ControllerProcess {
  readonly child: ChildProcess;
  /** `<hostname>-<pid>`: its Lease holder identity, also in the User-Agent of its requests. */
  readonly identity: string;
  /** Resolves with the exit code (null when a signal ended it) once the process is gone. */
  readonly exited: Promise<number | null>;
  /** stderr so far (JSON log lines). */
  log(): string;
  /** SIGKILL: no cleanup at all, the lease is left to expire. Resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit (lease released). */
  stop(): Promise<void>;
  /** Resolves once the process logged "became leader". */
  leading: Promise<void>;
}

export interface ControllerProcessOptions {
  logLevel?: LogLevel;
  /** Instead of the cluster's controller kubeconfig (e.g. one through test/chaos/fault-proxy.ts). */
  kubeConfig?: KubeConfig;
  /** Node options before the script, e.g. `["--import", "./test/chaos/skew-clock.mjs"]`. */
  nodeArgs?: string[];
  /** Added to this process's environment. */
  env?: Record<string, string>;
  /** Lease timings in seconds (default 4/3/1). */
  lease?: { durationS: number; renewDeadlineS: number; retryPeriodS: number };
  /** Another build's `petset.js` (e.g. the previous release, test/upgrade/); default: this tree's bundle. */
  cli?: string;
}

/**
 * Runs `petset controller --kubeconfig <controller kubeconfig> -n NS --metrics-addr
 * 127.0.0.1:0 --lease-namespace NS` from dist/ (the controller's bundle, as deployed).
 */
export function startControllerProcess(
  cluster: Pick<TestCluster, "controllerKubeConfig">,
  namespace: string,
  opts: ControllerProcessOptions = {},
): ControllerProcess {
  const lease = opts.lease ?? { durationS: 4, renewDeadlineS: 3, retryPeriodS: 1 };
  const cli = opts.cli ?? CLI;
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run make build first`);
  const dir = mkdtempSync(join(tmpdir(), "petset-ctl-"));
  const kubeconfig = join(dir, "kubeconfig");
  writeFileSync(kubeconfig, (opts.kubeConfig ?? cluster.controllerKubeConfig).exportConfig(), {
    mode: 0o600,
  });
  const child = spawn(
    process.execPath,
    [
      ...(opts.nodeArgs ?? []),
      cli,
      "controller",
      "--kubeconfig",
      kubeconfig,
      "-n",
      namespace,
      "--metrics-addr",
      "127.0.0.1:0",
      "--lease-namespace",
      namespace,
      // Short leases, as for the in-process controller: a crashed leader's Lease expires in
      // seconds, not the production 15 s, so crash tests stay quick.
      "--lease-duration",
      String(lease.durationS),
      "--renew-deadline",
      String(lease.renewDeadlineS),
      "--retry-period",
      String(lease.retryPeriodS),
      "--log-level",
      opts.logLevel ?? "info",
    ],
    { cwd: REPO_ROOT, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, ...opts.env } },
  );
  let stderr = "";
  let markLeading: () => void = () => {};
  const leading = new Promise<void>((resolve) => {
    markLeading = resolve;
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    if (stderr.includes("became leader")) markLeading();
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => {
      rmSync(dir, { recursive: true, force: true });
      resolve(code);
    });
  });
  const signal = async (sig: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(sig);
    await exited;
  };
  return {
    child,
    identity: `${hostname()}-${child.pid}`,
    exited,
    log: () => stderr,
    kill: () => signal("SIGKILL"),
    stop: () => signal("SIGTERM"),
    leading,
  };
}
