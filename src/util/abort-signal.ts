/**
 * A signal that aborts when any of `signals` does or `ms` have passed: what
 * `AbortSignal.any([...signals, AbortSignal.timeout(ms)])` promises. On Node 20 that
 * combination loses its deadline: the combined signal holds the timeout signal only weakly,
 * so after a garbage collection the timeout never fires, and a request meant to give up
 * after `ms` waits for ever (a write to a server that never answers hung a sync worker for
 * good: test/integration/network-faults.test.ts, blackhole). Here the timer itself holds the
 * controller it aborts.
 *
 * A source signal is shared by every request (the Lease fence's), and a request's listener
 * lives until its deadline, so a busy controller holds thousands at once. Node's
 * `addEventListener` walks every listener already added (it looks for duplicates): adding
 * one per request was 9 % of the controller's CPU in the versions benchmark. So each source
 * signal gets a single listener that fans out to a Set of callbacks, added and removed in
 * O(1); a callback is removed when its signal aborts (deadline or source).
 */
const fanOuts = new WeakMap<AbortSignal, Set<(reason: unknown) => void>>();

function onAbort(source: AbortSignal, callback: (reason: unknown) => void): () => void {
  let callbacks = fanOuts.get(source);
  if (callbacks === undefined) {
    const all = new Set<(reason: unknown) => void>();
    callbacks = all;
    fanOuts.set(source, all);
    source.addEventListener(
      "abort",
      () => {
        fanOuts.delete(source);
        for (const f of [...all]) f(source.reason);
        all.clear();
      },
      { once: true },
    );
  }
  const set = callbacks;
  set.add(callback);
  return () => set.delete(callback);
}

export function abortAfter(signals: readonly AbortSignal[], ms: number): AbortSignal {
  const controller = new AbortController();
  const removers: Array<() => void> = [];
  const abort = (reason: unknown) => {
    if (controller.signal.aborted) return;
    clearTimeout(timer);
    for (const remove of removers) remove();
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
    removers.push(onAbort(s, abort));
  }
  return controller.signal;
}
