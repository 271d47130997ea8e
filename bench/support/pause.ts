/**
 * SIGSTOP and SIGCONT of a controller process for the history comparison: paused while the
 * benchmark writes, resumed with the clock. A paused process is always resumed: by
 * `resume()`, and by an exit handler if the benchmark dies first (a kube-controller-manager
 * left stopped would stall every controller of its cluster).
 */
import { procState } from "./proc.js";
import { waitFor } from "./stats.js";

export interface Paused {
  /** SIGCONT; idempotent. */
  resume(): void;
}

/** Stops `pid` and resolves once /proc says it is stopped (state T). */
export async function pauseProcess(pid: number, what: string): Promise<Paused> {
  let resumed = false;
  const resume = () => {
    if (resumed) return;
    resumed = true;
    process.off("exit", resume);
    try {
      process.kill(pid, "SIGCONT");
    } catch {
      // gone: nothing to resume
    }
  };
  process.on("exit", resume);
  process.kill(pid, "SIGSTOP");
  try {
    await waitFor(
      `${what} (pid ${pid}) stopped`,
      () => (procState(pid) === "T" ? true : undefined),
      10_000,
      20,
    );
  } catch (err) {
    resume();
    throw err;
  }
  return { resume };
}
