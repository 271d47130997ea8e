/**
 * A signal that aborts when any of `signals` does or `ms` have passed: what
 * `AbortSignal.any([...signals, AbortSignal.timeout(ms)])` promises. On Node 20 that
 * combination loses its deadline: the combined signal holds the timeout signal only weakly,
 * so after a garbage collection the timeout never fires, and a request meant to give up
 * after `ms` waits for ever (a write to a server that never answers hung a sync worker for
 * good: test/integration/network-faults.test.ts, blackhole). Here the timer itself holds the
 * controller it aborts. Listeners on `signals` are removed once it aborts, so they live at
 * most `ms`.
 */
export function abortAfter(signals: readonly AbortSignal[], ms: number): AbortSignal {
  const controller = new AbortController();
  const listeners: Array<[AbortSignal, () => void]> = [];
  const abort = (reason: unknown) => {
    if (controller.signal.aborted) return;
    clearTimeout(timer);
    for (const [s, l] of listeners) s.removeEventListener("abort", l);
    controller.abort(reason);
  };
  const timer = setTimeout(
    () => abort(new DOMException(`The operation was aborted due to timeout (${ms} ms)`, "TimeoutError")),
    Math.max(1, ms),
  );
  // The deadline must not keep a process alive that has nothing else to do.
  timer.unref();
  for (const s of signals) {
    if (s.aborted) {
      abort(s.reason);
      break;
    }
    const l = () => abort(s.reason);
    s.addEventListener("abort", l, { once: true });
    listeners.push([s, l]);
  }
  return controller.signal;
}
