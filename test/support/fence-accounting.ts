/**
 * Which writes a resumed replica sent that no fence check before its freeze accounts for
 * (test/integration/fencing.test.ts). A write that passed its last check before the freeze and
 * was stopped on its way to the kernel leaves on resume (docs/operations.md, "What is not"); the
 * replica's debug log says when each write was checked ("write dispatched", with its request
 * line). Every other write after the resume is a fencing failure.
 *
 * Servers name a write differently: the embedded server logs the HTTP method (`POST`),
 * kube-apiserver's audit log the Kubernetes verb (`create`). Both are compared as HTTP methods:
 * with the verb compared as it came, no write on the real backend was ever accounted for (CI: an
 * Event checked in the millisecond of the freeze, sent on resume, reported as a failure).
 */
import type { ReceivedWrite } from "./request-log.js";

export interface DispatchedWrite {
  /** The request line, e.g. `POST /api/v1/namespaces/x/events HTTP/1.1`. */
  request: string;
  /** Wall-clock milliseconds taken just before its last fence check. */
  checkedAt: number;
}

/** The replica's "write dispatched" debug lines: each write that passed its last fence check. */
export function dispatchedWrites(log: string): DispatchedWrite[] {
  const out: DispatchedWrite[] = [];
  for (const line of log.split("\n")) {
    if (!line.includes('"write dispatched"')) continue;
    const entry = JSON.parse(line) as { request?: string; checkedAt?: number };
    if (entry.request !== undefined && entry.checkedAt !== undefined)
      out.push({ request: entry.request, checkedAt: entry.checkedAt });
  }
  return out;
}

/** Kubernetes audit verbs of writes, as the HTTP methods that carry them. */
const METHOD_OF_VERB: Record<string, string> = {
  create: "POST",
  update: "PUT",
  patch: "PATCH",
  delete: "DELETE",
  deletecollection: "DELETE",
};

/** The HTTP method of a write as a server logged it (a method already, or an audit verb). */
export function httpMethod(verb: string): string {
  return METHOD_OF_VERB[verb] ?? verb.toUpperCase();
}

/** The request line a write was sent with. */
export function requestLineOf(w: ReceivedWrite): string {
  return `${httpMethod(w.verb)} ${w.uri} HTTP/1.1`;
}

/**
 * The writes of `late` that no dispatch checked before `frozenAt` accounts for. Each dispatch
 * accounts for one write with its request line, and those the server already received before
 * the resume (`earlier`) are used up: a request checked and delivered before the freeze cannot
 * excuse a later one to the same path.
 */
export function notCheckedBefore(
  late: ReceivedWrite[],
  earlier: ReceivedWrite[],
  dispatched: DispatchedWrite[],
  frozenAt: Date,
): ReceivedWrite[] {
  const unspent = new Map<string, number>();
  // `frozenAt` is read after kill(SIGSTOP) returned, both clocks in whole milliseconds: a check
  // in that same millisecond ran before the stop (a stopped process checks nothing). With `<`
  // one did count as a fencing failure (an Event checked at 11:26:58.631, frozenAt .631).
  for (const d of dispatched)
    if (d.checkedAt <= frozenAt.getTime()) unspent.set(d.request, (unspent.get(d.request) ?? 0) + 1);
  for (const w of earlier) unspent.set(requestLineOf(w), (unspent.get(requestLineOf(w)) ?? 0) - 1);
  return late.filter((w) => {
    const left = unspent.get(requestLineOf(w)) ?? 0;
    unspent.set(requestLineOf(w), left - 1);
    return left <= 0;
  });
}
