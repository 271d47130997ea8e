/**
 * The benchmark's private control plane is stopped process by process (bench/support/backends.ts):
 * its list must name every process test/cluster/lib.sh starts, or one outlives the run (the
 * claim resizer did, after issue 26 added it to lib.sh only).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { COMPONENTS } from "../../../bench/support/backends.js";
import { REPO_ROOT } from "../../support/cluster.js";

describe("the benchmark's private cluster", () => {
  it("stops every component test/cluster/lib.sh starts", () => {
    const lib = readFileSync(join(REPO_ROOT, "test/cluster/lib.sh"), "utf8");
    const started = /^components=\(([^)]*)\)/m.exec(lib)?.[1]?.trim().split(/\s+/);
    expect(started?.length).toBeGreaterThan(0);
    expect([...COMPONENTS].sort()).toEqual([...(started ?? [])].sort());
  });
});
