/**
 * The documented known list of the hostile-PetSet campaign (docs/reliability.md, "Fuzzed
 * input", "Listed, not fixed") and the verdict that judges a run against it: every finding
 * (a 5xx, a client error, an accepted case never surfaced, a rejection naming no field) and
 * every case whose outcome differs between the backends must be on the list, else it is
 * reported. An entry matches by what was seen (backend, category, message), never by case
 * id, so it holds for every seed. Pure, unit-tested (test/unit/fuzz/classifier.test.ts).
 */
import type { CampaignSummary, CaseResult } from "./summary.js";

export interface KnownFinding {
  /** Why it is known and not fixed (shown when it matches). */
  why: string;
  backend: "embedded" | "real";
  category: string;
  key: string;
  message: RegExp;
}

/** A case whose outcome differs between the backends for a documented reason. */
export interface KnownMismatch {
  why: string;
  /** The finding on one backend that explains the difference. */
  finding: KnownFinding;
  /** What the other backend answers instead. */
  otherKey: string;
}

const ETCD_TOO_LARGE: KnownFinding = {
  why:
    "objects over etcd's 1.5 MiB request limit: kube-apiserver answers `etcdserver: request is too large` " +
    "(a server error without a reason); the embedded server has only kube's 3 MiB body limit and stores them",
  backend: "real",
  category: "size-limit",
  key: "500 Unknown",
  message: /^etcdserver: request is too large$/,
};

export const KNOWN_FINDINGS: readonly KnownFinding[] = [ETCD_TOO_LARGE];

export const KNOWN_MISMATCHES: readonly KnownMismatch[] = [
  { why: ETCD_TOO_LARGE.why, finding: ETCD_TOO_LARGE, otherKey: "accepted" },
];

function matches(k: KnownFinding, backend: string, r: CaseResult): boolean {
  return k.backend === backend && k.category === r.category && k.key === r.key && k.message.test(r.message);
}

export function isKnownFinding(backend: string, r: CaseResult): boolean {
  return KNOWN_FINDINGS.some((k) => matches(k, backend, r));
}

type Run = Pick<
  CampaignSummary,
  | "backend"
  | "findings"
  | "acceptedUnsurfaced"
  | "rejectedWithoutField"
  | "clientErrors"
  | "5xx"
  | "crashes"
  | "invariantViolations"
>;

/**
 * What a run found that the known list does not explain: findings (each case), counts that
 * disagree with the findings kept (a finding dropped on the way), crashes, invariant
 * violations, and mismatches with the other backend's run of the same seed (`other`, with its
 * own findings, so a mismatch is explained by the finding seen on whichever side).
 */
export function unexplained(
  run: Run,
  mismatches: { id: string; [backend: string]: string }[] = [],
  other?: Pick<CampaignSummary, "backend" | "findings">,
): string[] {
  const out: string[] = [];
  const unknown = run.findings.filter((f) => !isKnownFinding(run.backend, f));
  for (const f of unknown) out.push(`finding ${f.id} (${f.category}) ${f.outcome} ${f.key}: ${f.message}`);
  const count = (pred: (f: CaseResult) => boolean) => run.findings.filter(pred).length;
  const expect = (what: string, counted: number, kept: number) => {
    if (counted !== kept) out.push(`${what}: ${counted} counted but ${kept} kept as findings`);
  };
  expect(
    "unsurfaced",
    run.acceptedUnsurfaced,
    count((f) => f.outcome === "unsurfaced"),
  );
  expect(
    "rejectedWithoutField",
    run.rejectedWithoutField,
    count((f) => f.outcome === "rejected" && !f.namesField),
  );
  expect(
    "client errors",
    run.clientErrors,
    count((f) => f.outcome === "client-error"),
  );
  expect(
    "5xx",
    run["5xx"],
    count((f) => f.outcome === "rejected" && f.key.startsWith("5")),
  );
  if (run.crashes > 0) out.push(`${run.crashes} crash(es)`);
  for (const v of run.invariantViolations) out.push(`invariant violation: ${v}`);
  const sides = [run, ...(other ? [other] : [])];
  for (const m of mismatches) {
    const explained = KNOWN_MISMATCHES.some((k) =>
      sides.some((side) => {
        const f = side.findings.find((x) => x.id === m.id);
        const otherBackend = Object.keys(m).find((b) => b !== "id" && b !== side.backend);
        return (
          f !== undefined &&
          matches(k.finding, side.backend, f) &&
          m[side.backend] === f.key &&
          otherBackend !== undefined &&
          m[otherBackend] === k.otherKey
        );
      }),
    );
    if (!explained)
      out.push(
        `mismatch ${m.id}: ${Object.entries(m)
          .filter(([b]) => b !== "id")
          .map(([b, k]) => `${b} ${k}`)
          .join(", ")}`,
      );
  }
  return out;
}
