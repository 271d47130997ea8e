/**
 * hack/cpu-profile.ts: a CPU profile summed by function, within the benchmark's windows and
 * below one function. A synthetic profile: root -> worker -> plan -> helper, root -> watch.
 */
import { describe, expect, it } from "vitest";
import { parseWindows } from "../../../bench/support/profile-windows.js";
import { type CpuProfile, summarize } from "../../../hack/cpu-profile.js";

const frame = (functionName: string) => ({ functionName, url: "app.js", lineNumber: 0, columnNumber: 0 });
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame("(root)"), children: [2, 5, 6] },
    { id: 2, callFrame: frame("worker"), children: [3] },
    { id: 3, callFrame: frame("plan"), children: [4] },
    { id: 4, callFrame: frame("helper") },
    { id: 5, callFrame: frame("watch") },
    { id: 6, callFrame: frame("(idle)") },
  ],
  startTime: 1_000,
  // at 1010 helper, 1020 plan, 1030 watch, 1040 idle, 1050 helper (10 us each)
  samples: [4, 3, 5, 6, 4],
  timeDeltas: [10, 10, 10, 10, 10],
};
const name = (f: { functionName: string }) => f.functionName;

describe("cpu-profile summary", () => {
  it("sums self and inclusive time by function, idle apart", () => {
    const s = summarize(profile, name);
    expect(s.totalUs).toBe(40);
    expect(s.idleUs).toBe(10);
    expect(Object.fromEntries(s.self)).toEqual({ helper: 20, plan: 10, watch: 10 });
    expect(s.inclusive.get("worker")).toBe(30);
    expect(s.inclusive.get("(root)")).toBe(40);
  });

  it("counts only the samples inside the windows", () => {
    const s = summarize(profile, name, { windows: parseWindows("1005 1025 petset maxUnavailable 1\n") });
    expect(s.totalUs).toBe(20);
    expect(Object.fromEntries(s.self)).toEqual({ helper: 10, plan: 10 });
  });

  it("below a function: only its stacks, counted from it down", () => {
    const s = summarize(profile, name, { under: "plan" });
    expect(s.totalUs).toBe(30);
    expect(s.inclusive.get("plan")).toBe(30);
    expect(s.inclusive.has("worker")).toBe(false);
    expect(s.inclusive.has("watch")).toBe(false);
  });

  it("reads windows.txt, choosing windows by label", () => {
    const text = "10 20 petset maxUnavailable 1\n30 40 petset maxUnavailable 10\n";
    expect(parseWindows(text)).toEqual([
      [10, 20],
      [30, 40],
    ]);
    expect(parseWindows(text, "petset maxUnavailable 10")).toEqual([[30, 40]]);
    expect(parseWindows(text, "petset maxUnavailable 1")).toEqual([[10, 20]]);
    expect(parseWindows(text, "petset")).toHaveLength(2);
  });
});
