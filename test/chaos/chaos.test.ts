/**
 * `make chaos`: CHAOS_RUNS runs (default 10) from CHAOS_SEED (default: random, printed) on the
 * backend of PETSET_TEST_BACKEND (the Makefile loops over CHAOS_BACKEND), results in
 * test/chaos/results/<backend>.json (or CHAOS_RESULTS). Fails when any run found anything; each failure prints its
 * seed and the command that reproduces it.
 */
import { join } from "node:path";
import { expect, it } from "vitest";
import { backendFromEnv, REPO_ROOT } from "../support/cluster.js";
import { runCampaign } from "./campaign.js";

const backend = backendFromEnv();
const runs = Number(process.env.CHAOS_RUNS ?? "10");
const seed = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 1_000_000));

// CHAOS_RUN_TIMEOUT_MS: a run's budget (default 10 min; a loaded machine stretches the fault timeline).
const perRunMs = Number(process.env.CHAOS_RUN_TIMEOUT_MS ?? 600_000);

it(`chaos campaign on ${backend}: ${runs} runs from seed ${seed}`, { timeout: runs * perRunMs }, async () => {
  if (backend === "kubeconfig") throw new Error("make chaos runs on the embedded or the real backend");
  process.stdout.write(`chaos: CHAOS_SEED=${seed} CHAOS_RUNS=${runs} CHAOS_BACKEND=${backend}\n`);
  const { totals } = await runCampaign({
    backend,
    kind: "campaign",
    seed,
    runs,
    convergeMs: backend === "real" ? 240_000 : 120_000,
    resultsFile: process.env.CHAOS_RESULTS ?? join(REPO_ROOT, "test", "chaos", "results", `${backend}.json`),
  });
  expect(totals.failedSeeds, "seeds of failed runs (their reproduce lines are above)").toEqual([]);
});
