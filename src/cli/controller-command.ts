/** `petset controller`: the controller against a cluster (kubeconfig or in-cluster). */
import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { type ControllerConfig, FlagError } from "../config.js";
import { PetSetController } from "../controller/controller.js";
import { type WriteDispatched, writeDispatched } from "../controller/fenced-connection.js";
import { startProbeServer } from "../controller/http-server.js";
import { collectProcessMetrics } from "../controller/process-metrics.js";
import { systemClock } from "../util/clock.js";
import { loadKubeConfig } from "../util/kubeconfig.js";
import { createLogger } from "../util/logger.js";
import { packageVersion } from "./package-version.js";

/** How long a stopping controller waits for its syncs in flight before it exits anyway. */
const STOP_GRACE_MS = 5_000;
export async function runController(config: ControllerConfig): Promise<void> {
  const logger = createLogger(config.logLevel, "petset-controller");
  // At debug level, every write that passed its last fence check as it leaves (fenced-connection.ts):
  // when a write reaches the server late, this says whether it was checked before a freeze.
  if (logger.isLevelEnabled("debug"))
    writeDispatched.subscribe((message) => {
      const { checkedAt, request } = message as WriteDispatched;
      if (request !== undefined) logger.debug({ request, checkedAt }, "write dispatched");
    });
  if (config.kubeconfig !== undefined && !existsSync(config.kubeconfig))
    throw new FlagError(
      `--kubeconfig ${config.kubeconfig}: no such file (expected a kubeconfig; without the flag: $KUBECONFIG, ~/.kube/config, or the in-cluster config)`,
    );
  const kubeConfig = loadKubeConfig({ kubeconfig: config.kubeconfig, context: config.context });
  const identity = `${hostname()}-${process.pid}`;
  const controller = new PetSetController({
    userAgent: `petset-controller/${packageVersion()} (${identity})`,
    kubeConfig,
    clock: systemClock,
    logger,
    namespace: config.namespace,
    workers: config.workers,
    leaderElection: config.leaderElect
      ? {
          namespace: config.leaseNamespace,
          name: config.leaseName,
          identity,
          leaseDurationMs: config.leaseDuration * 1000,
          renewDeadlineMs: config.renewDeadline * 1000,
          retryPeriodMs: config.retryPeriod * 1000,
        }
      : undefined,
  });
  collectProcessMetrics(controller.metrics.registry);
  const probes = await startProbeServer({
    addr: config.metricsAddr,
    registry: controller.metrics.registry,
    ready: () => controller.ready,
  });
  logger.info(
    { metricsPort: probes.port, namespace: config.namespace ?? "(all)" },
    "petset controller starting",
  );
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    // A clean stop waits for the syncs in flight; one stuck on a slow API call must not keep a
    // replica that lost its Lease alive (its writes are fenced, but it should be gone): exit
    // anyway after STOP_GRACE_MS (chaos seed 7010: a resumed leader still ran 20 s later).
    setTimeout(() => {
      logger.warn({ graceMs: STOP_GRACE_MS }, "stopping took too long: exiting now");
      process.exit(code);
    }, STOP_GRACE_MS).unref();
    await controller.stop();
    probes.server.close();
    process.exit(code);
  };
  // A replica that lost its lease exits: a restart re-reads everything from the API.
  controller.onLostLeadership = () => void stop(1);
  process.once("SIGINT", () => void stop(0));
  process.once("SIGTERM", () => void stop(0));
  await controller.start();
}
