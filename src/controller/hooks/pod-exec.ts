/** Placeholder until pods/exec support lands (branch exec): replaced by the real client. */
import type { KubeConfig } from "@kubernetes/client-node";

export async function execInPod(
  _kc: KubeConfig,
  _args: {
    namespace: string;
    pod: string;
    container: string;
    command: string[];
    stdin?: string;
    signal?: AbortSignal;
    timeoutMs?: number;
  },
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  throw new Error("pods/exec is not supported yet");
}
