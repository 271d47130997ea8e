/**
 * The `exec` handler: the hook's command in a container of the pet's pod through pods/exec
 * (preUpdate, preScaleDown: the pod about to go; postUpdate: the new pod). The context goes in
 * as environment variables by running the command under `env` (exec has no env of its own), so
 * the image needs an `env` binary (any image with a shell has one). Exit code 0 is success.
 *
 * Transient failures are retried with backoff until the run's timeout, never the hook's
 * failure (SPEC rule 10): the exec refused with 429 or 5xx, the connection failing before the
 * command's status arrived, the Lease fence refusing to start it (pod-exec.ts `transient`).
 * A stream cut after the command started is run again (same id and attempt): the first may
 * still run in the container if the runtime did not end it when its stream closed, so an exec
 * hook must be safe to run again (PETSET_HOOK_ID); docs/hooks.md, "Failure table".
 */
import { hookEnv } from "../../api/index.js";
import type { HookHandler } from "./hook-run.js";
import { fenceCheck, sleep, tail } from "./hook-run.js";
import { execInPod, PodExecError } from "./pod-exec.js";
import { backoffMs } from "./transient.js";

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
  const fence = fenceCheck(deps);
  for (let n = 0; ; n++) {
    let result: Awaited<ReturnType<typeof execInPod>>;
    try {
      result = await execInPod(deps.kubeConfig, {
        namespace: run.context.namespace,
        pod: pod.metadata?.name ?? "",
        container,
        command: ["env", ...env, ...spec.command],
        signal,
        fence,
      });
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (!(err instanceof PodExecError) || !err.transient) throw err;
      deps.logger.warn(
        { hook: run.record.id, err: err.message, retry: n },
        "exec hook: transient error, retrying",
      );
      await sleep(backoffMs(n), signal);
      continue;
    }
    const output = tail(result.stderr || result.stdout);
    if (result.exitCode === 0)
      return { ok: true, message: output === "" ? "exit code 0" : `exit code 0: ${output}` };
    return { ok: false, message: `exit code ${result.exitCode}${output === "" ? "" : `: ${output}`}` };
  }
};
