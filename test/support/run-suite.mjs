#!/usr/bin/env node
// Runs one vitest project and ends with a plain closing line "<project>: N passed, N failed"
// (plus ", N skipped"), so CI logs say what ran. Exit code is vitest's.
import { spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
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
const failures = [];
try {
  const r = JSON.parse(readFileSync(out, "utf8"));
  passed = r.numPassedTests;
  failed = r.numFailedTests;
  skipped = r.numPendingTests + r.numTodoTests;
  for (const file of r.testResults ?? []) {
    for (const t of file.assertionResults ?? []) {
      if (t.status !== "failed") continue;
      const why = (t.failureMessages ?? [])[0]?.split("\n")[0] ?? "";
      failures.push(`${file.name.replace(`${process.cwd()}/`, "")} > ${t.fullName}: ${why.slice(0, 300)}`);
    }
    if ((file.assertionResults ?? []).length === 0 && file.status === "failed")
      failures.push(`${file.name.replace(`${process.cwd()}/`, "")}: ${(file.message ?? "").split("\n")[0]}`);
  }
} catch {
  failed = res.status === 0 ? 0 : 1;
}
rmSync(dir, { recursive: true, force: true });
const closing = `${label}: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`;
console.log(closing);
// CI shows the end of the log: the Makefile's `test` target prints this file last.
if (failures.length > 0 || res.status !== 0) {
  mkdirSync(".cache", { recursive: true });
  appendFileSync(
    ".cache/test-failures.txt",
    `${closing}\n${failures.map((f) => `  FAILED ${f}`).join("\n")}\n`,
  );
  for (const f of failures) console.log(`  FAILED ${f}`);
}
process.exit(res.status ?? 1);
