#!/usr/bin/env node
// Runs one vitest project and ends with a plain closing line "<project>: N passed, N failed"
// (plus ", N skipped"), so CI logs say what ran. Exit code is vitest's.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const project = process.argv[2];
if (!project) {
  console.error("usage: run-suite.mjs <unit|integration> [vitest args]");
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), "petset-vitest-"));
const out = join(dir, "results.json");
const backend = process.env.PETSET_TEST_BACKEND;
const label = backend && project !== "unit" ? `${project}[${backend}]` : project;
const res = spawnSync(
  "npx",
  [
    "vitest",
    "run",
    "--project",
    project,
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${out}`,
    ...process.argv.slice(3),
  ],
  { stdio: "inherit" },
);
let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const r = JSON.parse(readFileSync(out, "utf8"));
  passed = r.numPassedTests;
  failed = r.numFailedTests;
  skipped = r.numPendingTests + r.numTodoTests;
} catch {
  failed = res.status === 0 ? 0 : 1;
}
rmSync(dir, { recursive: true, force: true });
console.log(`${label}: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(res.status ?? 1);
