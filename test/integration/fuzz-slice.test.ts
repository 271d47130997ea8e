/**
 * A fixed-seed slice of `make fuzz` (test/fuzz/): hostile PetSets through the real kubectl,
 * the controller running, a healthy PetSet rolling beside them under the invariant monitor.
 * Each case is rejected naming its field, or accepted and surfaced (condition + Event naming
 * the field), or valid; never a crash, a 5xx or an invariant violation. The outcome of every
 * case (status code and reason, or accepted) must equal what kube-apiserver answered for the
 * same seed: test/fuzz/results/slice-golden.json, written by a run on the real backend with
 * FUZZ_WRITE_GOLDEN=1. FC_SEED explores another seed (then without the golden comparison).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runCampaign } from "../fuzz/campaign.js";
import { REPO_ROOT, startTestCluster, type TestCluster } from "../support/cluster.js";

const DEFAULT_SEED = 20261201;
const seed = Number(process.env.FC_SEED ?? DEFAULT_SEED);
const RUNS = 40;
const GOLDEN = join(REPO_ROOT, "test", "fuzz", "results", "slice-golden.json");

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster();
});
afterAll(async () => {
  await cluster?.stop();
});

it(`${RUNS} hostile PetSets through kubectl: rejected or surfaced naming the field, as kube-apiserver answers (seed ${seed})`, async () => {
  const s = await runCampaign({ cluster, seed, runs: RUNS, batchSize: RUNS, surfaceTimeoutMs: 30_000 });
  if (process.env.FUZZ_WRITE_GOLDEN === "1" && cluster.backend === "real")
    writeFileSync(GOLDEN, `${JSON.stringify({ seed, runs: RUNS, outcomes: s.outcomes }, null, 2)}\n`);
  expect(s.crashes).toBe(0);
  expect(s["5xx"]).toBe(0);
  expect(s.invariantViolations).toEqual([]);
  expect(s.findings.map((f) => `${f.id} ${f.category} ${f.outcome}: ${f.message}`)).toEqual([]);
  expect(s.rejectedWithoutField + s.acceptedUnsurfaced + s.clientErrors).toBe(0);
  if (seed === DEFAULT_SEED && existsSync(GOLDEN)) {
    const golden = JSON.parse(readFileSync(GOLDEN, "utf8")) as { outcomes: Record<string, string> };
    expect(s.outcomes).toEqual(golden.outcomes);
  }
}, 120_000);
