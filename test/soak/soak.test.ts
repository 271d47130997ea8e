/**
 * `make soak`: SOAK_MINUTES (60) of random changes across SOAK_PETSETS (100) PetSets; the
 * result (samples, slopes per hour after a 20% warm-up, violations) goes to
 * test/soak/results/soak-<minutes>min-<petsets>ps-<date>.json. It passes on soakVerdict.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSoak } from "./soak-run.js";
import { soakVerdict } from "./soak-verdict.js";

const minutes = Number(process.env.SOAK_MINUTES ?? 60);
const petSets = Number(process.env.SOAK_PETSETS ?? 100);
const seed = Number(process.env.SOAK_SEED ?? Math.floor(Math.random() * 2 ** 31));

describe("soak", () => {
  it(`${minutes} min across ${petSets} PetSets (SOAK_SEED=${seed})`, async () => {
    const result = await runSoak({
      minutes,
      petSets,
      seed,
      monitored: Number(process.env.SOAK_MONITORED ?? Math.min(20, petSets)),
      sampleSeconds: Number(process.env.SOAK_SAMPLE_SECONDS ?? 15),
      changeEveryMs: Number(process.env.SOAK_CHANGE_EVERY_MS ?? 500),
      eventTtlSeconds: Number(process.env.SOAK_EVENT_TTL ?? 600),
      progress: (line) => process.stdout.write(`${line}\n`),
    });
    const dir = join(import.meta.dirname, "results");
    mkdirSync(dir, { recursive: true });
    const day = new Date().toISOString().slice(0, 10);
    const file = join(dir, `soak-${minutes}min-${petSets}ps-${day}.json`);
    writeFileSync(file, `${JSON.stringify({ seed, at: new Date().toISOString(), ...result }, null, 2)}\n`);
    process.stdout.write(`soak: summary ${JSON.stringify(result.summary)}\nsoak: result in ${file}\n`);
    // Crashes, violations, failed changes, convergence and the second half's slopes
    // (soak-verdict.ts: SOAK_LIMITS).
    const verdict = soakVerdict(result);
    for (const note of verdict.notes) process.stdout.write(`soak: ${note}\n`);
    expect(verdict.problems).toEqual([]);
  });
});
