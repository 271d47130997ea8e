/**
 * The `exec` handler: the hook's command in a container of the pet's pod through pods/exec
 * (preUpdate, preScaleDown: the pod about to go; postUpdate: the new pod). The context goes in
 * as environment variables by running the command under `env` (exec has no env of its own), so
 * the image needs an `env` binary (any image with a shell has one). Exit code 0 is success.
 */
import { hookEnv } from "../../api/index.js";
import type { HookHandler } from "./hook-run.js";
import { tail } from "./hook-run.js";
import { execInPod } from "./pod-exec.js";

export const runExec: HookHandler = async (run, deps, signal) => {
  const spec = run.spec.exec;
  if (spec === undefined) return { ok: false, message: "no exec handler" };
  const pod = run.pod;
  if (pod === undefined)
    return { ok: false, message: `pod ${run.context.pod ?? "?"} is gone or was replaced` };
  const containers = pod.spec?.containers ?? [];
  const container = spec.container ?? containers[0]?.name;
  if (container === undefined || !containers.some((c) => c.name === container)) {
    return { ok: false, message: `pod ${pod.metadata?.name} has no container ${JSON.stringify(container)}` };
  }
  const env = Object.entries(hookEnv(run.context)).map(([k, v]) => `${k}=${v}`);
  const result = await execInPod(deps.kubeConfig, {
    namespace: run.context.namespace,
    pod: pod.metadata?.name ?? "",
    container,
    command: ["env", ...env, ...spec.command],
    signal,
  });
  const output = tail(result.stderr || result.stdout);
  if (result.exitCode === 0)
    return { ok: true, message: output === "" ? "exit code 0" : `exit code 0: ${output}` };
  return { ok: false, message: `exit code ${result.exitCode}${output === "" ? "" : `: ${output}`}` };
};
