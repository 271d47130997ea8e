/**
 * What the API server saw, for tests that count the requests of one client (fencing: "the
 * frozen replica wrote nothing after it woke"). Clients are told apart by their User-Agent,
 * which names the controller replica (`petset-controller/<version> (<identity>)`).
 * - embedded backend: the server's `onRequest` hook (src/apiserver-shim/server.ts);
 * - real backend: kube-apiserver's audit log, JSON lines, written by test/cluster/up.sh's
 *   policy (write verbs at Metadata level, one ResponseComplete entry per request, blocking
 *   mode: a request's entry is in the file before its response is sent).
 */
import { existsSync } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

/** One write request as the server logged it. */
export interface ReceivedWrite {
  /** HTTP method (embedded) or Kubernetes verb (audit log: create, update, patch, delete). */
  verb: string;
  uri: string;
  userAgent: string;
  /** When the server received it. */
  at: Date;
}

/** Methods that never change anything (watch and list are GETs). */
export const READ_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"]);

const READ_VERBS: ReadonlySet<string> = new Set(["get", "list", "watch"]);

/** The fields of an audit.k8s.io/v1 Event this reader needs. */
const AuditEventSchema = z.object({
  verb: z.string(),
  requestURI: z.string(),
  userAgent: z.string().optional(),
  requestReceivedTimestamp: z.string(),
});

/**
 * Writes in the audit log files of `dir` (audit.log and its rotated audit-<time>.log)
 * received at or after `since` whose userAgent contains `userAgent`.
 */
export async function readAuditLog(dir: string, userAgent: string, since: Date): Promise<ReceivedWrite[]> {
  if (!existsSync(dir)) {
    throw new Error(
      `no audit log in ${dir}: the cluster was started by a test/cluster/up.sh without auditing`,
    );
  }
  const files = (await readdir(dir)).filter((f) => /^audit.*\.log$/.test(f));
  const writes: ReceivedWrite[] = [];
  for (const file of files) {
    const path = join(dir, file);
    // A rotated file last written before `since` holds nothing newer: skip reading it.
    if (file !== "audit.log" && (await stat(path)).mtime < since) continue;
    const text = await readFile(path, "utf8");
    for (const line of text.split("\n")) {
      // Cheap filter first: the log holds every write of every test.
      if (!line.includes(userAgent)) continue;
      const parsed = AuditEventSchema.safeParse(parseJson(line));
      if (!parsed.success) continue;
      const e = parsed.data;
      const at = new Date(e.requestReceivedTimestamp);
      if (READ_VERBS.has(e.verb) || !e.userAgent?.includes(userAgent) || at < since) continue;
      writes.push({ verb: e.verb, uri: e.requestURI, userAgent: e.userAgent, at });
    }
  }
  return writes.sort((a, b) => a.at.getTime() - b.at.getTime());
}

/** A line being written right now may be cut short: it is skipped, not an error. */
function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/**
 * Writes in the embedded server's debug request log (`petset dev` with a debug log: pino JSON
 * lines, `msg: "request"`, `time` in epoch ms) received at or after `since` from a User-Agent
 * containing `userAgent`. The parser the chaos harness's embedded process backend needs
 * (test/chaos/chaos-cluster.ts keeps its own copy today).
 */
export function requestLogWrites(text: string, userAgent: string, since: Date): ReceivedWrite[] {
  const writes: ReceivedWrite[] = [];
  for (const line of text.split("\n")) {
    if (!line.includes('"msg":"request"') || !line.includes(userAgent)) continue;
    const parsed = RequestLineSchema.safeParse(parseJson(line));
    if (!parsed.success) continue;
    const e = parsed.data;
    if (!e.userAgent.includes(userAgent) || READ_METHODS.has(e.method) || e.time < since.getTime()) continue;
    writes.push({ verb: e.method, uri: e.url, userAgent: e.userAgent, at: new Date(e.time) });
  }
  return writes.sort((a, b) => a.at.getTime() - b.at.getTime());
}

const RequestLineSchema = z.object({
  method: z.string(),
  url: z.string(),
  userAgent: z.string(),
  time: z.number(),
});
