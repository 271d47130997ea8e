/**
 * A short slice of the durability campaign (test/durability, `make durability`): five SIGKILLs
 * of `petset dev --data-dir` during write bursts, a damaged log tail once, fixed seed. About
 * `petset dev` itself, so embedded only (Makefile EMBEDDED_ONLY).
 */
import { describe, expect, it } from "vitest";
import { runCampaign } from "../durability/campaign.js";
import { backendFromEnv } from "../support/cluster.js";

describe.skipIf(backendFromEnv() !== "embedded")("petset dev --data-dir survives SIGKILL (slice)", () => {
  it("keeps every acknowledged write through 5 kills, one with a torn log tail", async () => {
    const result = await runCampaign({
      kills: 5,
      seed: 20_251_201,
      damageEvery: 3,
      minBurstMs: 150,
      maxBurstMs: 800,
      controller: false,
    });
    expect(result.findings, "reproduce with make durability DURABILITY_SEED=20251201").toEqual([]);
    expect(result.acknowledgedWrites).toBeGreaterThan(0);
    expect(result.tailsDamaged).toBe(1);
    expect(result.tailWarnings).toBe(1);
  }, 120_000);
});
