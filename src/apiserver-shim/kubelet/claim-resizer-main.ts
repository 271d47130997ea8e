/**
 * The simulated resizer as a process of its own, for the real test cluster: test/cluster/up.sh
 * starts it next to kwok (kwok plays the kubelet, this plays the CSI external-resizer and the
 * kubelet's volume expansion, with the same code as the embedded server's). Usage:
 *   node claim-resizer-main.js --kubeconfig=PATH [--step-delay-ms=200]
 * Stops on SIGTERM/SIGINT.
 */
import { loadKubeConfig } from "../../util/kubeconfig.js";
import { createLogger } from "../../util/logger.js";
import { startClaimResizer } from "./claim-resizer.js";

function arg(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

async function main(): Promise<void> {
  const kubeconfig = arg("kubeconfig");
  if (!kubeconfig) throw new Error("usage: claim-resizer-main --kubeconfig=PATH [--step-delay-ms=N]");
  const delay = arg("step-delay-ms");
  const logger = createLogger("info", "petset-resizer");
  const resizer = await startClaimResizer({
    kubeConfig: loadKubeConfig({ kubeconfig }),
    logger,
    ...(delay !== undefined ? { stepDelayMs: Number(delay) } : {}),
  });
  const stop = () => {
    void resizer.stop().then(() => process.exit(0));
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main().catch((err: unknown) => {
  process.stderr.write(
    `petset-resizer: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
