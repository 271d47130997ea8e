#!/usr/bin/env node
// Runs one vitest project and ends with a plain closing line "<project>: N passed, N failed"
// (plus ", N skipped"), so CI logs say what ran. Exit code is vitest's.
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";

const project = process.argv[2];
if (!project) {
  console.error("usage: run-suite.mjs <unit|integration> [vitest args]");
  process.exit(2);
}
const backend = process.env.PETSET_TEST_BACKEND;
const label = backend && project !== "unit" ? `${project}[${backend}]` : project;
// Kept after the run (every file's and test's duration, for the time budget of `make test`).
mkdirSync(".cache", { recursive: true });
const out = join(".cache", `vitest-${project}${backend && project !== "unit" ? `-${backend}` : ""}.json`);
rmSync(out, { force: true });
const vitestArgs = [
  "vitest",
  "run",
  "--project",
  project,
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${out}`,
  ...process.argv.slice(3),
];
// PETSET_SUITE_PREFIX: two suites run at once (make test), so every line says whose it is.
const prefix = process.env.PETSET_SUITE_PREFIX;
const res = prefix ? await prefixed(prefix, vitestArgs) : spawnSync("npx", vitestArgs, { stdio: "inherit" });
let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];
let slowest = [];
try {
  const r = JSON.parse(readFileSync(out, "utf8"));
  slowest = (r.testResults ?? [])
    .map((f) => ({
      file: f.name.replace(`${process.cwd()}/`, ""),
      s: ((f.endTime ?? 0) - (f.startTime ?? 0)) / 1000,
    }))
    .sort((a, b) => b.s - a.s)
    .slice(0, 8);
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
const closing = `${label}: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`;
// The slowest files, so the time budget of `make test` (15 min warm) can be kept by looking.
const slow = `${label} slowest files: ${slowest.map((f) => `${f.file} ${f.s.toFixed(0)}s`).join(", ")}`;
console.log(prefix ? `[${prefix}] ${slow}` : slow);
console.log(prefix ? `[${prefix}] ${closing}` : closing);
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

/** Runs npx with its output piped, each line prefixed; resolves like spawnSync's result. */
function prefixed(tag, args) {
  return new Promise((resolve) => {
    const child = spawn("npx", args, { stdio: ["ignore", "pipe", "pipe"] });
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on("line", (line) => console.log(`[${tag}] ${line}`));
    }
    child.on("close", (code) => resolve({ status: code ?? 1 }));
  });
}
