import { describe, expect, it } from "vitest";
import { parseDuration } from "../../../src/cli/plugin/duration.js";
import { progressLine, statusLine } from "../../../src/cli/plugin/format-status.js";
import { rolloutState } from "../../../src/cli/plugin/rollout-state.js";
import { petSet } from "./fixtures.js";

const progressing = (reason: string, status = "True", message = "") => ({
  type: "Progressing",
  status,
  reason,
  ...(message ? { message } : {}),
});

const base = {
  observedGeneration: 5,
  replicas: 3,
  readyReplicas: 3,
  updatedReplicas: 1,
  currentVersion: 2,
  updateVersion: 3,
};

describe("rolloutState and its status line", () => {
  it.each([
    [
      "observing a new generation",
      { status: { ...base, observedGeneration: 4 } },
      "observing",
      'petset "web": waiting for the controller to observe generation 5 (observed 4)',
    ],
    [
      "rolling out",
      { status: { ...base, conditions: [progressing("RollingOut", "True", "updating web-1")] } },
      "progressing",
      'petset "web": rolling out version 2 -> 3: 1 of 3 pods updated, 3 of 3 ready (RollingOut: updating web-1)',
    ],
    [
      "complete",
      {
        status: {
          ...base,
          updatedReplicas: 3,
          currentVersion: 3,
          conditions: [progressing("RolloutComplete")],
        },
      },
      "complete",
      'petset "web": rollout complete: 3 of 3 pods at version 3, 3 ready',
    ],
    [
      "RolloutComplete but pets still to update (stale condition)",
      { status: { ...base, conditions: [progressing("RolloutComplete")] } },
      "progressing",
      'petset "web": rolling out version 2 -> 3: 1 of 3 pods updated, 3 of 3 ready (RolloutComplete)',
    ],
    [
      "complete up to the partition",
      { partition: 2, status: { ...base, conditions: [progressing("RolloutComplete")] } },
      "complete",
      'petset "web": rollout complete: 1 of 3 pods at version 3, 3 ready',
    ],
    [
      "deadline exceeded",
      {
        status: {
          ...base,
          conditions: [progressing("ProgressDeadlineExceeded", "False", "web-2 not Ready for 600s")],
        },
      },
      "failed",
      'petset "web": rollout failed: ProgressDeadlineExceeded: web-2 not Ready for 600s',
    ],
    [
      "paused",
      { paused: true, status: { ...base, conditions: [progressing("Paused", "Unknown")] } },
      "paused",
      'petset "web": paused at 1 of 3 pods updated, 3 of 3 ready; kubectl petset resume web continues the rollout',
    ],
    [
      "paused with a partition",
      { paused: true, partition: 1, status: base },
      "paused",
      'petset "web": paused at 1 of 2 pods updated (1 held by the partition), 3 of 3 ready; kubectl petset resume web continues the rollout',
    ],
  ])("%s", (_, input, phase, line) => {
    const state = rolloutState(petSet(input));
    expect(state.phase).toBe(phase);
    expect(statusLine(state)).toBe(line);
  });

  it("draws a progress line that never exceeds the terminal width", () => {
    const state = rolloutState(
      petSet({ status: { ...base, updatedReplicas: 2, conditions: [progressing("RollingOut")] } }),
    );
    expect(progressLine(state, 200)).toBe(
      "web  [█████████████░░░░░░░]  2/3 updated  3/3 ready  v2 -> v3  RollingOut",
    );
    expect([...progressLine(state, 30)]).toHaveLength(30);
  });
});

describe("parseDuration", () => {
  it.each([
    ["30s", 30_000],
    ["5m", 300_000],
    ["1h30m", 5_400_000],
    ["1.5s", 1500],
    ["250ms", 250],
    ["45", 45_000],
  ])("%s -> %i ms", (text, ms) => {
    expect(parseDuration(text, "--timeout")).toBe(ms);
  });

  it.each(["", "soon", "5x", "s", "1m-"])("rejects %j naming the flag", (text) => {
    expect(() => parseDuration(text, "--timeout")).toThrow(/^--timeout: ".*" is not a duration/);
  });
});

describe("issue 28: rolloutState with reserveOrdinals", () => {
  it("a partition counts the pets' ordinals, which skip the reserved ones", () => {
    const ps = petSet({
      partition: 2,
      status: { ...base, updatedReplicas: 2, conditions: [progressing("RolloutComplete")] },
    });
    // Pets web-0, web-2, web-3: two of them at or above the partition.
    const reserved = { ...ps, spec: { ...ps.spec, reserveOrdinals: [1] } };
    expect(rolloutState(reserved).toUpdate).toBe(2);
    expect(rolloutState(ps).toUpdate).toBe(1);
  });
});
