#!/usr/bin/env node
/**
 * `make bench-quick`'s summary: prints `results.headline` of every record in a results
 * directory (`node dist/bench/headline.js [dir]`). A benchmark takes part by putting a
 * `headline` object of measurements into its results (versions does; a rollout comparison
 * adds its petset/StatefulSet ratios the same way and joins BENCH_QUICK_ONLY in the Makefile).
 */
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { REPO_ROOT } from "./support/processes.js";
import { readRecord } from "./support/results.js";
import type { Measurement } from "./support/stats.js";

const dir = resolve(REPO_ROOT, process.argv[2] ?? "bench/results/quick");
let printed = 0;
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .sort()) {
  const record = readRecord(join(dir, file));
  const headline = (record.results as { headline?: Record<string, Measurement | undefined> }).headline;
  if (!headline) continue;
  printed++;
  process.stdout.write(`\n${record.benchmark} on ${record.backend} (${record.command}):\n`);
  for (const [key, v] of Object.entries(headline)) {
    if (v) process.stdout.write(`  ${key.padEnd(28)} ${v.value.toLocaleString("en-US")} ${v.unit}\n`);
  }
}
if (printed === 0) process.stdout.write(`no headline results in ${dir}\n`);
