/**
 * When a chaos run's hook started for a version that was no longer the target
 * (test/chaos/hook-side-effects.ts): a version stays the target until a newer one's rollout
 * starts (a newer version waits for the in-flight one, SPEC rule 2), and a version that never
 * became the target (skipped) never runs. Planted histories, including seed 562234's, whose v6
 * execs ran after v7 was created but before v7 became the target.
 */
import { describe, expect, it } from "vitest";
import { hooksForSkippedVersions, parseHookLog } from "../../chaos/hook-outcome.js";
import { hooksForNeverTargeted, RUN_GRACE_MS, targetTimes } from "../../chaos/hook-side-effects.js";

const at = (ms: number) => new Date(ms).toISOString();
const T = Date.parse("2026-12-05T09:00:00.000Z");

// v6 in flight since T; v7 created at T+1000 (queued), became the target at T+7000; v8 skipped.
const facts = [
  { petSet: "chaos-1", version: 6, rolloutStartedAt: at(T) },
  { petSet: "chaos-1", version: 7, rolloutStartedAt: at(T + 7_000) },
  { petSet: "chaos-1", version: 8 },
  { petSet: "chaos-1", version: 9, rolloutStartedAt: at(T + 20_000) },
];

const judge = (log: string) => {
  const events = parseHookLog(log);
  return [
    ...hooksForSkippedVersions(events, targetTimes(facts), RUN_GRACE_MS),
    ...hooksForNeverTargeted(events, facts),
  ];
};

describe("hooks for versions that are no longer the target", () => {
  it("passes an in-flight version's hooks after a newer version was created (seed 562234)", () => {
    expect(
      judge(
        [
          `${T + 4_200} start preUpdate.chaos-1.v6.1.ede1300f 1`,
          `${T + 5_200} end preUpdate.chaos-1.v6.1.ede1300f 1`,
          `${T + 6_100} start preUpdate.chaos-1.v6.0.2c0e007f 1`,
          `${T + 7_500} start preRollout.chaos-1.v7.84145fa9 1`,
        ].join("\n"),
      ),
    ).toEqual([]);
  });

  it("reports a start after a newer version became the target (beyond the grace)", () => {
    expect(judge(`${T + 7_000 + RUN_GRACE_MS + 1} start preUpdate.chaos-1.v6.2.aa 1`)).toEqual([
      `preUpdate.chaos-1.v6.2.aa: attempt 1 started ${RUN_GRACE_MS + 1} ms after v7 superseded v6`,
    ]);
  });

  it("reports any start for a version that never became the target (skipped)", () => {
    expect(judge(`${T + 8_000} start preRollout.chaos-1.v8.bb 1`)).toEqual([
      "preRollout.chaos-1.v8.bb: attempt 1 started for v8, which never became the target",
    ]);
  });

  it("reads a version's target time from rolloutStartedAt, and none when it never started", () => {
    expect(targetTimes(facts).map((v) => [v.version, v.createdAt - T])).toEqual([
      [6, 0],
      [7, 7_000],
      [9, 20_000],
    ]);
  });
});
