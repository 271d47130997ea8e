/**
 * What a hostile-PetSet campaign counts: each case's result and the run's summary. Counting is
 * pure (`tallyCase`) so the classifier is unit-tested with planted results
 * (test/unit/fuzz/classifier.test.ts); a finding is kept whole, never only counted.
 */
export type CaseOutcome = "rejected" | "client-error" | "surfaced" | "healthy" | "unsurfaced";

export interface CaseResult {
  id: string;
  category: string;
  outcome: CaseOutcome;
  /** `422 Invalid`, `accepted`, `client-error`: what must be equal on both backends. */
  key: string;
  /** The rejection or the surfaced condition names one of the case's fields. */
  namesField: boolean;
  message: string;
}

export interface CampaignSummary {
  backend: string;
  seed: number;
  generated: number;
  rejected: Record<string, number>;
  rejectedWithoutField: number;
  acceptedAndSurfaced: number;
  acceptedAndHealthy: number;
  acceptedUnsurfaced: number;
  clientErrors: number;
  crashes: number;
  "5xx": number;
  invariantViolations: string[];
  /** The controller lost its Lease under load and was replaced (not a crash: no process died). */
  leaseLosses: number;
  healthyRollouts: number;
  durationMs: number;
  findings: CaseResult[];
  /** id → key, so two backends' runs of one seed can be compared. */
  outcomes: Record<string, string>;
}

/**
 * Counts one case's result into the summary: rejections by key (a 5xx key counts as a 5xx),
 * and every finding (a rejection naming no field, an accepted case never surfaced, a client
 * error, a 5xx) kept whole. Pure, unit-tested with planted results.
 */
export function tallyCase(summary: CampaignSummary, r: CaseResult): void {
  summary.outcomes[r.id] = r.key;
  if (r.outcome === "rejected") {
    summary.rejected[r.key] = (summary.rejected[r.key] ?? 0) + 1;
    if (!r.namesField) summary.rejectedWithoutField++;
    if (r.key.startsWith("5")) summary["5xx"]++;
  } else if (r.outcome === "surfaced") summary.acceptedAndSurfaced++;
  else if (r.outcome === "healthy") summary.acceptedAndHealthy++;
  else if (r.outcome === "unsurfaced") summary.acceptedUnsurfaced++;
  else summary.clientErrors++;
  if (!r.namesField || r.outcome === "unsurfaced" || r.outcome === "client-error" || r.key.startsWith("5"))
    summary.findings.push(r);
}

/** A summary with nothing counted yet. */
export function emptySummary(backend: string, seed: number): CampaignSummary {
  return {
    backend,
    seed,
    generated: 0,
    rejected: {},
    rejectedWithoutField: 0,
    acceptedAndSurfaced: 0,
    acceptedAndHealthy: 0,
    acceptedUnsurfaced: 0,
    clientErrors: 0,
    crashes: 0,
    "5xx": 0,
    invariantViolations: [],
    leaseLosses: 0,
    healthyRollouts: 0,
    durationMs: 0,
    findings: [],
    outcomes: {},
  };
}
