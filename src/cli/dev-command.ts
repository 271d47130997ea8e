/**
 * `petset dev`: the embedded default. The Kubernetes-compatible API server on loopback, the
 * simulated kubelet, the CRDs and the controller, in one process; prints `kubeconfig: <path>`
 * once everything is ready.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { startApiServer } from "../apiserver-shim/index.js";
import { startSimulatedKubelet } from "../apiserver-shim/kubelet/kubelet.js";
import type { DevConfig } from "../config.js";
import { PetSetController } from "../controller/controller.js";
import { systemClock } from "../util/clock.js";
import { loadKubeConfig } from "../util/kubeconfig.js";
import { createLogger } from "../util/logger.js";
import { createManifests, installCrds, readManifests } from "./manifests.js";

export interface DevEnvironment {
  kubeconfigPath: string;
  url: string;
  stop(): Promise<void>;
}

export async function startDev(config: DevConfig): Promise<DevEnvironment> {
  const logger = createLogger(config.logLevel, "petset-dev");
  const tokens = config.tokenFile
    ? readFileSync(config.tokenFile, "utf8")
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith("#"))
    : undefined;
  const server = await startApiServer({
    host: config.listen,
    port: config.port,
    logger: logger.child({ component: "apiserver" }),
    ...(config.dataDir ? { dataDir: resolve(config.dataDir) } : {}),
    ...(tokens ? { tokens } : {}),
  });
  const kubeconfigPath = resolve(config.kubeconfig);
  await server.writeKubeconfig(kubeconfigPath);
  const kubeConfig = loadKubeConfig({ kubeconfig: kubeconfigPath });
  await installCrds(kubeConfig);
  const kubelet = await startSimulatedKubelet({
    kubeConfig,
    logger: logger.child({ component: "kubelet" }),
    readyDelayMs: config.readyDelayMs,
  });
  const controller = config.controller
    ? new PetSetController({
        kubeConfig,
        clock: systemClock,
        logger: logger.child({ component: "controller" }),
        workers: 4,
      })
    : undefined;
  await controller?.start();
  for (const path of config.apply) {
    const { created, existing } = await createManifests(kubeConfig, readManifests(resolve(path)));
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

export async function runDev(config: DevConfig): Promise<void> {
  const env = await startDev(config);
  process.stdout.write(`apiserver: ${env.url}\n`);
  process.stdout.write(`kubeconfig: ${env.kubeconfigPath}\n`);
  process.stdout.write(`try: KUBECONFIG=${config.kubeconfig} kubectl get petsets,petsetversions,pods\n`);
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
