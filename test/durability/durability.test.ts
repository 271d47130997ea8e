/**
 * `make durability`: DURABILITY_KILLS (default 50) SIGKILLs of `petset dev --data-dir` during
 * write bursts, seeded by DURABILITY_SEED (random when unset; printed, and in the result file).
 * The result goes to test/durability/results/durability-<seed>.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCampaign } from "./campaign.js";

const kills = Number(process.env.DURABILITY_KILLS ?? 50);
const seed = Number(process.env.DURABILITY_SEED ?? Math.floor(Math.random() * 2 ** 31));

describe("durability of petset dev --data-dir", () => {
  it(`keeps every acknowledged write through ${kills} SIGKILLs (DURABILITY_SEED=${seed})`, async () => {
    process.stdout.write(`durability: DURABILITY_SEED=${seed} DURABILITY_KILLS=${kills}\n`);
    const result = await runCampaign({
      kills,
      seed,
      damageEvery: 5,
      progress: (line) => process.stdout.write(`${line}\n`),
    });
    const dir = join(import.meta.dirname, "results");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `durability-${seed}.json`);
    writeFileSync(file, `${JSON.stringify({ ...result, at: new Date().toISOString() }, null, 2)}\n`);
    process.stdout.write(`durability: result in ${file}\n`);
    expect(result.findings, `reproduce with DURABILITY_SEED=${seed}`).toEqual([]);
    expect(result.kills).toBe(kills);
    expect(result.tailWarnings).toBe(result.tailsDamaged);
  });
});
