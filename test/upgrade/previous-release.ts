/**
 * The previous release of the controller, built once per commit into ~/.cache/petset/releases
 * by build-previous-release.sh (the commit: previous-release.env). For the controller-upgrade
 * test (test/integration/controller-upgrade.test.ts).
 *
 * Cannot be built here (exit 3: a shallow clone, an offline machine with another lock): the
 * test is skipped with the reason, except under CI=true, where that fails it.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../support/cluster.js";

const SCRIPT = join(REPO_ROOT, "test", "upgrade", "build-previous-release.sh");

export type PreviousRelease = { sha: string; cli: string } | { skip: string };

export function previousReleaseSha(): string {
  const text = readFileSync(join(REPO_ROOT, "test", "upgrade", "previous-release.env"), "utf8");
  const sha = /^PREVIOUS_RELEASE=([0-9a-f]{40})$/m.exec(text)?.[1];
  if (sha === undefined)
    throw new Error("test/upgrade/previous-release.env names no PREVIOUS_RELEASE=<40 hex digits>");
  return sha;
}

/** Builds (or finds in the cache) the previous release; a cold build takes about a minute. */
export function buildPreviousRelease(): Promise<PreviousRelease> {
  const sha = previousReleaseSha();
  return new Promise((resolve, reject) => {
    execFile("bash", [SCRIPT], { timeout: 10 * 60_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      if (!err) {
        resolve({ sha, cli: stdout.trim().split("\n").at(-1) ?? "" });
        return;
      }
      const why = `previous release ${sha.slice(0, 7)} not built: ${stderr.trim() || String(err)}`;
      if ((err as { code?: unknown }).code === 3 && process.env.CI !== "true") resolve({ skip: why });
      else reject(new Error(why));
    });
  });
}
