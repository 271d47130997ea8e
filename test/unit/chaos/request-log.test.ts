/**
 * The fencing judge's evidence, planted (issue 24, "Harnesses that can fail"): a write by a
 * fenced replica after it was resumed must be found in the embedded server's request log and
 * in kube-apiserver's audit log; its reads, its writes before the freeze and other replicas'
 * writes must not be.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readAuditLog, requestLogWrites } from "../../support/request-log.js";

const FENCED = "petset-controller/0.1.0 (replica-a)";
const OTHER = "petset-controller/0.1.0 (replica-b)";
const resumedAt = new Date(10_000);

describe("writesBy: the embedded server's request log", () => {
  const line = (method: string, url: string, userAgent: string, time: number) =>
    JSON.stringify({ level: 20, time, msg: "request", method, url, status: 200, ms: 1, userAgent });
  const log = [
    line("PATCH", "/apis/petset.dev/v1alpha1/namespaces/c/petsets/web/status", FENCED, 9_000),
    line("GET", "/api/v1/namespaces/c/pods", FENCED, 10_500),
    line("POST", "/api/v1/namespaces/c/pods", OTHER, 10_600),
    line("POST", "/api/v1/namespaces/c/events", FENCED, 10_700),
    '{"level":20,"time":10800,"msg":"requ', // cut short by the kill
  ].join("\n");

  it("reports the fenced replica's write after it was resumed, and nothing else", () => {
    expect(requestLogWrites(log, "(replica-a)", resumedAt).map((w) => `${w.verb} ${w.uri}`)).toEqual([
      "POST /api/v1/namespaces/c/events",
    ]);
  });
});

describe("writesBy: kube-apiserver's audit log", () => {
  const dir = mkdtempSync(join(tmpdir(), "petset-audit-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const entry = (verb: string, requestURI: string, userAgent: string, at: number) =>
    JSON.stringify({
      kind: "Event",
      stage: "ResponseComplete",
      verb,
      requestURI,
      userAgent,
      requestReceivedTimestamp: new Date(at).toISOString(),
    });

  it("reports the fenced replica's write after it was resumed, and nothing else", async () => {
    writeFileSync(
      join(dir, "audit.log"),
      [
        entry("update", "/apis/coordination.k8s.io/v1/namespaces/c/leases/petset", FENCED, 9_000),
        entry("watch", "/api/v1/pods?watch=true", FENCED, 10_100),
        entry("delete", "/api/v1/namespaces/c/pods/web-1", OTHER, 10_200),
        entry("patch", "/api/v1/namespaces/c/pods/web-0", FENCED, 10_300),
        '{"kind":"Event","verb":"crea',
      ].join("\n"),
    );
    const writes = await readAuditLog(dir, "(replica-a)", resumedAt);
    expect(writes.map((w) => `${w.verb} ${w.uri}`)).toEqual(["patch /api/v1/namespaces/c/pods/web-0"]);
  });
});
