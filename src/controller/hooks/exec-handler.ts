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
 * still run in the container if the runtime did not end it when its stream closed, so the
 * command runs under a lock held in the container (exec-lock.ts): a run that finds an earlier
 * execution of its id still running waits for it (backoff, within the timeout) instead of
 * running beside it. An exec hook is still at-least-once: it must be safe to run again after
 * an execution whose end was not seen (PETSET_HOOK_ID); docs/hooks.md, "Failure table".
 */
import { hookEnv } from "../../api/index.js";
import { sleep } from "../../util/sleep.js";
import { EXEC_NO_LOCK_EXIT, execLockName, isExecBusy, lockedExecCommand } from "./exec-lock.js";
import type { HookHandler } from "./hook-run.js";
import { fenceCheck, tail } from "./hook-run.js";
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
  const command = lockedExecCommand(
    hookEnv(run.context),
    execLockName(run.context.namespace, pod.metadata?.uid ?? "", run.record.id),
    spec.command,
  );
  const fence = fenceCheck(deps);
  for (let n = 0; ; n++) {
    let result: Awaited<ReturnType<typeof execInPod>>;
    try {
      result = await execInPod(deps.kubeConfig, {
        namespace: run.context.namespace,
        pod: pod.metadata?.name ?? "",
        container,
        command,
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
    if (isExecBusy(result)) {
      deps.logger.info(
        { hook: run.record.id, retry: n, stderr: tail(result.stderr) },
        "exec hook: an earlier execution still runs in the container; waiting for it",
      );
      await sleep(backoffMs(n), signal);
      continue;
    }
    const output = tail(result.stderr || result.stdout);
    if (
      result.exitCode === EXEC_NO_LOCK_EXIT &&
      result.stderr.includes("petset-hook: cannot create the lock")
    )
      return { ok: false, message: output };
    if (result.exitCode === 0)
      return { ok: true, message: output === "" ? "exit code 0" : `exit code 0: ${output}` };
    return { ok: false, message: `exit code ${result.exitCode}${output === "" ? "" : `: ${output}`}` };
  }
};
