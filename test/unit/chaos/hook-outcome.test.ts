/**
 * The hook judge fed planted logs (issue 24, "Side effects measured in the chaos campaign"):
 * two executions of one id open at once, a start for a superseded version, a record that
 * Succeeded with no run behind it; each must be reported, and the healthy log must pass.
 */
import { describe, expect, it } from "vitest";
import {
  hookOverlaps,
  hooksForSkippedVersions,
  hooksSucceededWithoutRun,
  parseHookLog,
  versionOfHookId,
} from "../../chaos/hook-outcome.js";

const MIGRATE = "preRollout.db.v2.1a2b3c4d";
const EXEC = "preUpdate.db.v2.0.5e6f7a8b";

// Attempt 1 fails and ends, attempt 2 runs after it; the exec hook runs once.
const healthy = [
  `1000 start ${MIGRATE} 1`,
  `1400 end ${MIGRATE} 1`,
  `2000 start ${MIGRATE} 2`,
  `2600 end ${MIGRATE} 2`,
  `3000 start ${EXEC} 1`,
  `3100 end ${EXEC} 1`,
].join("\n");

describe("hookOverlaps", () => {
  it("passes attempts that follow one another, and ignores a line cut short", () => {
    expect(hookOverlaps(`${healthy}\n4000 sta`)).toEqual([]);
  });

  it("reports attempt 2 started while attempt 1 still ran (two migrations at once)", () => {
    const log = [`start ${MIGRATE} 1`, `start ${MIGRATE} 2`, `end ${MIGRATE} 1`, `end ${MIGRATE} 2`].join(
      "\n",
    );
    expect(hookOverlaps(log)).toEqual([`${MIGRATE}: attempt 2 started while attempt 1 was still running`]);
  });

  it("reports one attempt run twice at once (two controllers) and a start after one never seen to end", () => {
    const twice = [`start ${EXEC} 1`, `start ${EXEC} 1`, `end ${EXEC} 1`, `end ${EXEC} 1`].join("\n");
    expect(hookOverlaps(twice)).toHaveLength(1);
    const lost = [`start ${MIGRATE} 1`, `start ${MIGRATE} 2`, `end ${MIGRATE} 2`].join("\n");
    expect(hookOverlaps(lost)).toEqual([
      `${MIGRATE}: attempt 2 started while attempt 1 was never seen to end`,
    ]);
  });

  it("judges executions with times (Job pods on the real backend)", () => {
    const jobs = [
      { id: MIGRATE, attempt: 1, start: 1000, end: 1500 },
      { id: MIGRATE, attempt: 2, start: 1500, end: 2000 },
    ];
    expect(hookOverlaps(jobs)).toEqual([]);
    expect(hookOverlaps([...jobs, { id: MIGRATE, attempt: 3, start: 1900 }])).toHaveLength(1);
  });
});

describe("hooksForSkippedVersions", () => {
  const versions = [
    { petSet: "db", version: 1, createdAt: 0 },
    { petSet: "db", version: 2, createdAt: 500 },
    { petSet: "db", version: 3, createdAt: 3500 },
  ];

  it("reads the PetSet and version from a hook id", () => {
    expect(versionOfHookId(MIGRATE)).toEqual({ petSet: "db", version: 2 });
    expect(versionOfHookId("preUpdate.my.set.v12.3.abcd")).toEqual({ petSet: "my.set", version: 12 });
    expect(versionOfHookId("preScaleDown.db.3.abcd")).toBeUndefined();
  });

  it("passes starts made while their version was the target", () => {
    expect(hooksForSkippedVersions(parseHookLog(healthy), versions, 100)).toEqual([]);
  });

  it("reports a start for v2 after v3 superseded it (beyond the grace)", () => {
    const log = parseHookLog(`${healthy}\n3700 start ${MIGRATE} 3`);
    expect(hooksForSkippedVersions(log, versions, 100)).toEqual([
      `${MIGRATE}: attempt 3 started 200 ms after v3 superseded v2`,
    ]);
    expect(hooksForSkippedVersions(log, versions, 300)).toEqual([]);
  });

  it("reports a start without a time rather than passing it", () => {
    expect(hooksForSkippedVersions(parseHookLog(`start ${MIGRATE} 1`), versions, 100)).toHaveLength(1);
  });
});

describe("hooksSucceededWithoutRun", () => {
  const record = (id: string, phase: string, handler = "job") => ({ id, handler, phase, attempts: 1 });

  it("passes Succeeded records whose id ran to its end, and external handshakes", () => {
    const records = [
      record(MIGRATE, "Succeeded"),
      record(EXEC, "Succeeded", "exec"),
      record("x.db.v2.1", "Succeeded", "external"),
    ];
    expect(hooksSucceededWithoutRun(records, parseHookLog(healthy))).toEqual([]);
  });

  it("reports a Succeeded record with no run, and one whose only run never ended", () => {
    const log = parseHookLog(`start ${EXEC} 1`);
    expect(
      hooksSucceededWithoutRun([record(MIGRATE, "Succeeded"), record(EXEC, "Succeeded", "exec")], log),
    ).toEqual([
      `${MIGRATE}: job hook Succeeded (attempt 1) but no execution of it ran to its end`,
      `${EXEC}: exec hook Succeeded (attempt 1) but no execution of it ran to its end`,
    ]);
    expect(hooksSucceededWithoutRun([record(MIGRATE, "Failed")], [])).toEqual([]);
  });
});
