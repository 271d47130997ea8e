/**
 * The pure helpers of the history comparison with kube-controller-manager (issue 29, "versions
 * side by side with kube-controller-manager"): /proc stat parsing, kube-controller-manager's
 * flags, when a set counts as caught up, and the CPU-per-change arithmetic. Table-style.
 */
import { describe, expect, it } from "vitest";
import { coresBetween, median, perUnit, quiet, ratio } from "../../../bench/support/cpu-per-change.js";
import { caughtUp, historyOwner, type SetObject, settled } from "../../../bench/support/history-status.js";
import { boolFlag, flagValue, kcmSettings, splitCmdline } from "../../../bench/support/kcm-flags.js";
import { parseProcStat } from "../../../bench/support/proc.js";

// A /proc/<pid>/stat line: pid (comm) state ppid ... utime(14) stime(15) ...
const stat = (comm: string, state: string, utime: number, stime: number) =>
  `4242 (${comm}) ${state} 1 4242 4242 0 -1 4194560 100 0 0 0 ${utime} ${stime} 0 0 20 0 12 0 5000 1000000 2000`;

describe("issue 29 kcm comparison: parseProcStat", () => {
  it.each([
    ["a plain name", stat("kube-controller", "S", 250, 50), "S", 3],
    ["stopped (SIGSTOP)", stat("node", "T", 100, 0), "T", 1],
    ["spaces and a ) in the name", stat("a b) c", "R", 7, 3), "R", 0.1],
  ])("%s", (_, line, state, cpuSeconds) => {
    expect(parseProcStat(line)).toEqual({ state, cpuSeconds });
  });

  it("refuses a line that is not a stat line", () => {
    expect(() => parseProcStat("garbage")).toThrow(/not a \/proc/);
    expect(() => parseProcStat("1 (x) S 1")).toThrow(/utime/);
  });
});

describe("issue 29 kcm comparison: kube-controller-manager's flags", () => {
  const cmdline = (...args: string[]) => `${["kube-controller-manager", ...args].join("\0")}\0`;
  it.each([
    [
      "as test/cluster/up.sh starts it",
      cmdline(
        "--controllers=statefulset,namespace",
        "--kube-api-qps=100",
        "--kube-api-burst=200",
        "--use-service-account-credentials=true",
      ),
      {
        kubeApiQps: 100,
        kubeApiBurst: 200,
        controllers: ["statefulset", "namespace"],
        serviceAccountCredentials: true,
      },
    ],
    [
      "defaults when left out",
      cmdline("--v=1"),
      { kubeApiQps: 20, kubeApiBurst: 30, controllers: ["*"], serviceAccountCredentials: false },
    ],
    [
      "space-separated values, the last one wins",
      cmdline(
        "--kube-api-qps",
        "50",
        "--kube-api-qps=75",
        "--controllers",
        "*,-ttl",
        "--use-service-account-credentials",
      ),
      { kubeApiQps: 75, kubeApiBurst: 30, controllers: ["*", "-ttl"], serviceAccountCredentials: true },
    ],
  ])("%s", (_, text, want) => {
    expect(kcmSettings(splitCmdline(text))).toEqual(want);
  });

  it("a number flag that is not a number is an error, not a default", () => {
    expect(() => kcmSettings(["--kube-api-qps=fast"])).toThrow(/not a number/);
  });

  it.each([
    [["--a=1"], "a", "1"],
    [["--ab=1"], "a", undefined],
    [["--a", "--b"], "a", undefined],
  ])("flagValue(%j, %s) = %s", (args, name, want) => {
    expect(flagValue(args, name)).toBe(want);
  });

  it.each([
    [["--x"], true],
    [["--x=false"], false],
    [["--x", "--x=false"], false],
    [[], false],
  ])("boolFlag(%j)", (args, want) => {
    expect(boolFlag(args, "x")).toBe(want);
  });
});

describe("issue 29 kcm comparison: a set caught up with its template change", () => {
  const sts = (generation: number, observed: number, current: string, update: string): SetObject => ({
    metadata: { name: "s", generation },
    status: { observedGeneration: observed, currentRevision: current, updateRevision: update },
  });
  // A PetSet of 0 pets: currentVersion stays at 1, lastCompleteVersion follows the update version.
  const ps = (generation: number, observed: number, complete: number, update: number): SetObject => ({
    metadata: { name: "p", generation },
    status: {
      observedGeneration: observed,
      currentVersion: 1,
      lastCompleteVersion: complete,
      updateVersion: update,
    },
  });
  it.each([
    [
      "StatefulSet: new revision, current = update, generation observed",
      sts(2, 2, "s-b", "s-b"),
      2,
      "s-a",
      true,
    ],
    ["StatefulSet: generation not observed yet", sts(2, 1, "s-a", "s-a"), 2, "s-a", false],
    ["StatefulSet: update revision still the old one", sts(2, 2, "s-a", "s-a"), 2, "s-a", false],
    ["StatefulSet: current behind update", sts(2, 2, "s-a", "s-b"), 2, "s-a", false],
    ["PetSet: v2 update and complete (currentVersion stays 1 without pets)", ps(2, 2, 2, 2), 2, "v1", true],
    ["PetSet: v2 update, rollout not complete", ps(2, 2, 1, 2), 2, "v1", false],
    ["PetSet: still v1", ps(2, 2, 1, 1), 2, "v1", false],
    ["PetSet: observed a later generation already", ps(3, 3, 3, 3), 2, "v1", true],
    ["no status at all", { metadata: { name: "x", generation: 2 } }, 2, undefined, false],
  ])("%s", (_, o, generation, previous, want) => {
    expect(caughtUp(o, generation, previous)).toBe(want);
  });

  it.each([
    ["settled StatefulSet", sts(1, 1, "s-a", "s-a"), true],
    ["StatefulSet with a generation not observed", sts(2, 1, "s-a", "s-a"), false],
    [
      "PetSet without versions yet",
      { metadata: { name: "p", generation: 1 }, status: { observedGeneration: 1 } },
      false,
    ],
    ["settled PetSet", ps(1, 1, 1, 1), true],
  ])("settled: %s", (_, o, want) => {
    expect(settled(o)).toBe(want);
  });

  it.each([
    [
      { metadata: { name: "s-abc", ownerReferences: [{ kind: "StatefulSet", name: "s" }] }, revision: 1 },
      "s",
    ],
    [{ metadata: { name: "p-v2", ownerReferences: [{ kind: "PetSet", name: "p" }] } }, "p"],
    [{ metadata: { name: "p-v3" }, spec: { petSet: "p" } }, "p"],
    [{ metadata: { name: "orphan" } }, undefined],
  ])("historyOwner(%j) = %s", (h, want) => {
    expect(historyOwner(h)).toBe(want);
  });
});

describe("issue 29 kcm comparison: CPU per change and quiet", () => {
  it.each([
    ["1 s of CPU for 200 changes over 10 s, idle 0", 1, 10, 200, 0, { cpuMs: 5, cpuMsAboveIdle: 5 }],
    ["idle 0.02 cores over 10 s is 0.2 s less", 1, 10, 200, 0.02, { cpuMs: 5, cpuMsAboveIdle: 4 }],
    ["never below zero", 0.1, 10, 100, 0.05, { cpuMs: 1, cpuMsAboveIdle: 0 }],
  ])("perUnit: %s", (_, cpu, seconds, units, idle, want) => {
    const got = perUnit(cpu, seconds, units, idle);
    expect(got.cpuMs).toBeCloseTo(want.cpuMs, 9);
    expect(got.cpuMsAboveIdle).toBeCloseTo(want.cpuMsAboveIdle, 9);
  });

  it("perUnit of nothing done is NaN, not infinity", () => {
    expect(perUnit(1, 1, 0, 0).cpuMs).toBeNaN();
  });

  const s = (atMs: number, cpuSeconds: number) => ({ atMs, cpuSeconds });
  it.each([
    ["one sample", [s(0, 0)], 0],
    ["half a core", [s(0, 1), s(2_000, 2)], 0.5],
    ["clock did not move", [s(5, 1), s(5, 2)], 0],
  ])("coresBetween: %s", (_, samples, want) => {
    expect(coresBetween(samples)).toBeCloseTo(want, 9);
  });

  it.each([
    ["window not covered yet", [s(0, 0), s(1_000, 0)], false],
    ["busy over the last 2 s", [s(0, 0), s(1_000, 0.9), s(2_000, 1.8)], false],
    ["busy before, quiet over the last 2 s", [s(0, 0), s(1_000, 5), s(3_000, 5.01)], true],
    ["exactly at the limit is quiet", [s(0, 0), s(2_000, 0.2)], true],
  ])("quiet (2 s, 0.1 cores): %s", (_, samples, want) => {
    expect(quiet(samples, 2_000, 0.1)).toBe(want);
  });

  it.each([
    [15.7, 18.3, 15.7 / 18.3],
    [1, 0, Number.NaN],
    [Number.NaN, 1, Number.NaN],
  ])("ratio(%d, %d)", (a, b, want) => {
    if (Number.isNaN(want)) expect(ratio(a, b)).toBeNaN();
    else expect(ratio(a, b)).toBeCloseTo(want, 9);
  });

  it.each([
    [[], Number.NaN],
    [[3, 1, 2], 2],
    [[4, 1, 3, 2], 2.5],
  ])("median(%j)", (xs, want) => {
    if (Number.isNaN(want)) expect(median(xs)).toBeNaN();
    else expect(median(xs)).toBe(want);
  });
});
