/**
 * Sends many manifests through the real kubectl in one call: each case is a file in one
 * directory and `kubectl create -f DIR` creates them one by one, naming the file in every
 * error, so each outcome maps back to its case without one kubectl process per case.
 *
 * Classification (`kubectlOutcomes`, pure, unit-tested): "Error from server (Reason): …" is a
 * rejection with that reason's code; "Error from server: …" without a reason is the server's
 * answer to an error it did not classify (kube's ErrorToAPIStatus: code 500, reason Unknown),
 * so it is a 5xx (`500 Unknown`), never a client error; an error naming the file without
 * "Error from server" is kubectl's own (a client error).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestCluster } from "../support/cluster.js";
import type { HostileCase } from "./hostile-petsets.js";

/** What kubectl reported for one case. */
export type KubectlOutcome =
  | { kind: "created"; name: string }
  | { kind: "rejected"; reason: string; code: number; message: string }
  | { kind: "client-error"; message: string };

/** kube's status reasons and their HTTP codes (k8s.io/apimachinery/pkg/api/errors). */
const REASON_CODES: Record<string, number> = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  NotAcceptable: 406,
  AlreadyExists: 409,
  Conflict: 409,
  Gone: 410,
  RequestEntityTooLarge: 413,
  UnsupportedMediaType: 415,
  Invalid: 422,
  TooManyRequests: 429,
  InternalError: 500,
  ServiceUnavailable: 503,
  Timeout: 504,
};

export function codeOfReason(reason: string): number {
  return REASON_CODES[reason] ?? 500;
}

const ERROR_HEAD = /(Error from server(?: \((\w+)\))?: )?error when creating "([^"]+)": /g;

/** The reason of a server answer that carried none (kube's StatusReasonUnknown, code 500). */
export const UNKNOWN_REASON = "Unknown";

/**
 * Splits kubectl's stderr into one message per file it names; `reason` is undefined for
 * kubectl's own errors, UNKNOWN_REASON for a server error without a reason.
 */
export function parseKubectlErrors(stderr: string): Map<string, { reason?: string; message: string }> {
  const heads = [...stderr.matchAll(ERROR_HEAD)];
  const out = new Map<string, { reason?: string; message: string }>();
  heads.forEach((h, i) => {
    const start = (h.index ?? 0) + h[0].length;
    const end = heads[i + 1]?.index ?? stderr.length;
    const file = h[3] ?? "";
    const id = file.replace(/^.*\//, "").replace(/\.json$/, "");
    const message = stderr.slice(start, end).trim();
    out.set(id, h[1] === undefined ? { message } : { reason: h[2] ?? UNKNOWN_REASON, message });
  });
  return out;
}

/** What kubectl's output says of each case (by case id). */
export function kubectlOutcomes(
  cases: Pick<HostileCase, "id" | "manifest">[],
  stdout: string,
  stderr: string,
): Map<string, KubectlOutcome> {
  const created = new Set(
    stdout
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l.startsWith("petset.petset.dev/"))
      .map((l) => l.slice("petset.petset.dev/".length)),
  );
  const errors = parseKubectlErrors(stderr);
  const out = new Map<string, KubectlOutcome>();
  for (const c of cases) {
    const name = String((c.manifest.metadata as { name?: unknown } | undefined)?.name ?? "");
    const err = errors.get(c.id);
    if (err?.reason !== undefined) {
      out.set(c.id, {
        kind: "rejected",
        reason: err.reason,
        code: codeOfReason(err.reason),
        message: err.message,
      });
    } else if (err) {
      out.set(c.id, { kind: "client-error", message: err.message });
    } else if (created.has(name)) {
      out.set(c.id, { kind: "created", name });
    } else {
      const line = stderr.split("\n").find((l) => l.includes(c.id)) ?? stderr.slice(0, 300);
      out.set(c.id, { kind: "client-error", message: line });
    }
  }
  return out;
}

/** kubectl create of every case in `namespace`; the outcome of each, by case id. */
export async function createThroughKubectl(
  cluster: TestCluster,
  namespace: string,
  cases: HostileCase[],
): Promise<Map<string, KubectlOutcome>> {
  const dir = mkdtempSync(join(tmpdir(), "petset-fuzz-"));
  try {
    for (const c of cases) writeFileSync(join(dir, `${c.id}.json`), JSON.stringify(c.manifest));
    const res = await cluster.kubectl(["create", "-n", namespace, "-o", "name", "-f", dir], {
      allowFail: true,
    });
    return kubectlOutcomes(cases, res.stdout, res.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
