/**
 * One execution of an `exec` hook at a time, enforced in the container (SPEC rule 10: never
 * two executions of one hook id at once). Kubernetes cannot end a command whose exec stream
 * was lost, nor tell whether it still runs; so the command runs under a small POSIX `sh`
 * wrapper that holds a lock file for it:
 *
 * - The lock is `${TMPDIR:-/tmp}/<name>` in the hook's container, `<name>` from the
 *   namespace, the pod's uid and the hook id (`execLockName`: one lock per hook id and pod
 *   incarnation; a replaced pod starts with none). It holds the pid of the execution.
 * - The wrapper creates it exclusively (`set -C`), writes its pid and `exec`s the hook's
 *   command: the lock's pid is the command's own, alive exactly as long as the command.
 * - Found held by a live pid (or an empty file: a holder between create and write), the
 *   wrapper prints `petset-hook: busy …` to stderr and exits 75 without running anything;
 *   the handler retries after a backoff, within the run's timeout, like a transient error.
 *   Found held by a dead pid (a finished or killed execution), it is removed and taken.
 * - A container whose `${TMPDIR:-/tmp}` is not writable cannot hold the lock: the wrapper
 *   exits 74 naming the path, and the attempt fails with that message (running unlocked
 *   would give up the rule silently).
 *
 * What it needs from the image: `env` and a POSIX `sh` (with `kill`, `read`, `rm` as in any
 * busybox or coreutils image). Limits: a pid reused by an unrelated process makes the lock
 * look held until that process ends (the attempt then times out and its failure policy
 * applies); two wrappers that both find one stale lock at the same instant can both take it
 * (each removes, then creates exclusively; only a controller whose stream was lost races
 * another, and both must have seen the same dead pid). docs/hooks.md, "exec: one at a time".
 */

/** Exit code and stderr marker of a wrapper that found the lock held by a live execution. */
export const EXEC_BUSY_EXIT = 75;
export const EXEC_BUSY_MARKER = "petset-hook: busy";
/** Exit code of a wrapper that could not create its lock. */
export const EXEC_NO_LOCK_EXIT = 74;

/**
 * The wrapper: `sh -c EXEC_LOCK_SCRIPT petset-hook <lock name> <command…>`. No `$(…)`: a
 * command argument is passed as is, but keep it plain for readers.
 */
export const EXEC_LOCK_SCRIPT = [
  't="$TMPDIR"; [ -n "$t" ] || t=/tmp; l="$t/$1"; shift',
  'busy() { echo "petset-hook: busy: an earlier execution of $PETSET_HOOK_ID is still running in this container (pid $1)" >&2; exit 75; }',
  "set -C",
  'if ! { echo "$$" > "$l"; } 2>/dev/null; then',
  '  [ -e "$l" ] || { echo "petset-hook: cannot create the lock $l: the container needs a writable \\$TMPDIR or /tmp" >&2; exit 74; }',
  '  p=""; read -r p < "$l" 2>/dev/null',
  '  if [ -z "$p" ]; then busy starting; fi',
  '  if kill -0 "$p" 2>/dev/null; then busy "$p"; fi',
  '  rm -f "$l"',
  '  { echo "$$" > "$l"; } 2>/dev/null || busy starting',
  "fi",
  "set +C",
  'exec "$@"',
].join("\n");

/** The lock's file name: namespace, pod uid and hook id, reduced to [A-Za-z0-9._-]. */
export function execLockName(namespace: string, podUid: string, hookId: string): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, "_");
  return `petset-hook.${safe(namespace)}.${safe(podUid)}.${safe(hookId)}.lock`;
}

/** The command pods/exec runs: the hook's context as env, then the wrapper, then the command. */
export function lockedExecCommand(
  env: Record<string, string>,
  lockName: string,
  command: readonly string[],
): string[] {
  const assignments = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  return ["env", ...assignments, "sh", "-c", EXEC_LOCK_SCRIPT, "petset-hook", lockName, ...command];
}

/** Whether an exec's result is the wrapper's "an earlier execution still runs". */
export function isExecBusy(result: { exitCode: number; stderr: string }): boolean {
  return result.exitCode === EXEC_BUSY_EXIT && result.stderr.includes(EXEC_BUSY_MARKER);
}
