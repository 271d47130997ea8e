/**
 * The hostile-PetSet campaign's classifier and verdict, fed planted kubectl output and planted
 * results (issue 24, "Harnesses that can fail"): a server error without a reason is a 5xx (the
 * six `etcdserver: request is too large` answers of test/fuzz/results/real.json were counted
 * as client errors, 5xx 0), and a run passes only when every finding and mismatch is known.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { unexplained } from "../../fuzz/known-findings.js";
import { kubectlOutcomes } from "../../fuzz/kubectl-batch.js";
import { type CaseResult, emptySummary, tallyCase } from "../../fuzz/summary.js";

const DIR = "/tmp/petset-fuzz-x";
const head = (id: string, reason?: string) =>
  `Error from server${reason ? ` (${reason})` : ""}: error when creating "${DIR}/${id}.json": `;
const aCase = (id: string) => ({ id, manifest: { metadata: { name: id } } });

function tally(backend: string, results: CaseResult[]) {
  const s = emptySummary(backend, 1);
  for (const r of results) tallyCase(s, r);
  return s;
}

function asResults(outcomes: ReturnType<typeof kubectlOutcomes>, category: string): CaseResult[] {
  return [...outcomes].map(([id, o]) =>
    o.kind === "rejected"
      ? {
          id,
          category,
          outcome: "rejected",
          key: `${o.code} ${o.reason}`,
          namesField: true,
          message: o.message,
        }
      : o.kind === "client-error"
        ? { id, category, outcome: "client-error", key: "client-error", namesField: true, message: o.message }
        : { id, category, outcome: "healthy", key: "accepted", namesField: true, message: "" },
  );
}

describe("kubectl outcomes", () => {
  it("an Error from server without a reason is a 5xx, not a client error", () => {
    const stderr = `${head("case-1")}etcdserver: request is too large\n`;
    expect(kubectlOutcomes([aCase("case-1")], "", stderr).get("case-1")).toEqual({
      kind: "rejected",
      reason: "Unknown",
      code: 500,
      message: "etcdserver: request is too large",
    });
  });

  it("tells a reasoned rejection, kubectl's own error and a created case apart", () => {
    const stderr = [
      `${head("case-1", "Invalid")}PetSet.petset.dev "case-1" is invalid: spec.replicas: Invalid value`,
      `error when creating "${DIR}/case-2.json": the server could not find the requested resource`,
    ].join("\n");
    const out = kubectlOutcomes(
      [aCase("case-1"), aCase("case-2"), aCase("case-3")],
      "petset.petset.dev/case-3\n",
      stderr,
    );
    expect([...out.values()].map((o) => (o.kind === "rejected" ? `${o.code} ${o.reason}` : o.kind))).toEqual([
      "422 Invalid",
      "client-error",
      "created",
    ]);
  });

  it("the six etcd answers recorded in results/real.json count as six 5xx", () => {
    const real = JSON.parse(
      readFileSync(new URL("../../fuzz/results/real.json", import.meta.url), "utf8"),
    ) as {
      findings: CaseResult[];
    };
    const etcd = real.findings.filter((f) => f.message === "etcdserver: request is too large");
    expect(etcd).toHaveLength(6);
    const stderr = etcd.map((f) => `${head(f.id)}${f.message}`).join("\n");
    const results = asResults(
      kubectlOutcomes(
        etcd.map((f) => aCase(f.id)),
        "",
        stderr,
      ),
      "size-limit",
    );
    const s = tally("real", results);
    expect([s["5xx"], s.clientErrors, s.findings.length]).toEqual([6, 0, 6]);
  });
});

describe("the campaign's verdict against the known list", () => {
  const etcd: CaseResult = {
    id: "case-7",
    category: "size-limit",
    outcome: "rejected",
    key: "500 Unknown",
    namesField: true,
    message: "etcdserver: request is too large",
  };

  it("passes the known etcd answer on the real backend and its mismatch with the embedded server", () => {
    const real = tally("real", [etcd]);
    expect(unexplained(real, [{ id: "case-7", real: "500 Unknown", embedded: "accepted" }])).toEqual([]);
    const embedded = tally("embedded", [{ ...etcd, outcome: "healthy", key: "accepted", message: "" }]);
    expect(
      unexplained(embedded, [{ id: "case-7", embedded: "accepted", real: "500 Unknown" }], real),
    ).toEqual([]);
  });

  it("reports an unknown 5xx, an unsurfaced case, a rejection naming no field, a client error", () => {
    const s = tally("embedded", [
      { ...etcd, id: "a", message: "etcdserver: request is too large" },
      {
        id: "b",
        category: "types",
        outcome: "unsurfaced",
        key: "accepted",
        namesField: false,
        message: "{}",
      },
      {
        id: "c",
        category: "types",
        outcome: "rejected",
        key: "422 Invalid",
        namesField: false,
        message: "bad",
      },
      {
        id: "d",
        category: "types",
        outcome: "client-error",
        key: "client-error",
        namesField: true,
        message: "x",
      },
    ]);
    expect(unexplained(s).map((l) => l.split(" ").slice(0, 2).join(" "))).toEqual([
      "finding a",
      "finding b",
      "finding c",
      "finding d",
    ]);
  });

  it("reports an unexplained mismatch, a count with no finding behind it, a crash and a violation", () => {
    const s = {
      ...tally("real", [etcd]),
      acceptedUnsurfaced: 1,
      crashes: 1,
      invariantViolations: ["versions: 3 live"],
    };
    expect(unexplained(s, [{ id: "case-8", real: "422 Invalid", embedded: "accepted" }])).toEqual([
      "unsurfaced: 1 counted but 0 kept as findings",
      "1 crash(es)",
      "invariant violation: versions: 3 live",
      "mismatch case-8: real 422 Invalid, embedded accepted",
    ]);
  });
});
