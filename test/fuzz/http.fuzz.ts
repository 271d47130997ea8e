/**
 * `make fuzz` (HTTP): FUZZ_RUNS malformed requests (default 1000) from FUZZ_SEED against the
 * embedded server, FUZZ_WATCHES concurrent watches (default 2000); summary in
 * test/fuzz/results/http-embedded.json. Only the embedded server: it is what this project ships.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { REPO_ROOT } from "../support/cluster.js";
import { runHttpFuzz } from "./http-fuzz.js";

const seed = Number(process.env.FUZZ_SEED ?? 20261201);
const runs = Number(process.env.FUZZ_RUNS ?? 1000);
const watches = Number(process.env.FUZZ_WATCHES ?? 2000);

it(`HTTP fuzz of the embedded server: ${runs} requests, ${watches} watches (seed ${seed})`, async () => {
  const summary = await runHttpFuzz({ seed, runs, watches });
  const dir = join(REPO_ROOT, "test", "fuzz", "results");
  mkdirSync(dir, { recursive: true });
  const stored = { seed, runs, command: `make fuzz FUZZ_SEED=${seed} FUZZ_RUNS=${runs}`, ...summary };
  writeFileSync(join(dir, "http-embedded.json"), `${JSON.stringify(stored, null, 2)}\n`);
  console.log(JSON.stringify(stored, null, 2));
  expect(summary["5xx"]).toBe(0);
  expect(summary.changedObjects).toEqual([]);
  expect(summary.oversized413).toBe(3);
  expect(summary.serverAnsweredAfter).toBe(true);
});
