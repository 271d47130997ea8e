/** What still runs of a hook id's other Jobs (hooks/job-attempts.ts otherAttempts, pure). */
import type { V1Job, V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { otherAttempts } from "../../../../src/controller/hooks/job-attempts.js";

const ID = "preRollout.web.v2.abcd1234";
const job = (name: string, id: string, finished?: "Complete" | "Failed"): V1Job => ({
  metadata: { name, annotations: { "hooks.petset.dev/id": id } },
  status: finished ? { conditions: [{ type: finished, status: "True" }] } : {},
});
const pod = (
  name: string,
  owner: string,
  phase: string,
  annotations: Record<string, string> = {},
): V1Pod => ({
  metadata: {
    name,
    annotations,
    ownerReferences: [{ apiVersion: "batch/v1", kind: "Job", name: owner, uid: "u" }],
  },
  status: { phase },
});
const names = (r: { unfinished: V1Job[]; running: V1Pod[] }) => ({
  unfinished: r.unfinished.map((j) => j.metadata?.name),
  running: r.running.map((p) => p.metadata?.name),
});

describe("otherAttempts", () => {
  it.each([
    [
      "nothing else: nothing to wait for",
      [job("web-a2", ID)],
      [pod("p2", "web-a2", "Running")],
      { unfinished: [], running: [] },
    ],
    [
      "attempt 1's Job still runs: delete it and wait for its pod",
      [job("web-a1", ID), job("web-a2", ID)],
      [pod("p1", "web-a1", "Running")],
      { unfinished: ["web-a1"], running: ["p1"] },
    ],
    [
      "attempt 1's Job failed (deadline) but its pod is still terminating: wait for the pod",
      [job("web-a1", ID, "Failed")],
      [pod("p1", "web-a1", "Running")],
      { unfinished: [], running: ["p1"] },
    ],
    [
      "attempt 1 finished, its pod done: go",
      [job("web-a1", ID, "Failed")],
      [pod("p1", "web-a1", "Failed")],
      { unfinished: [], running: [] },
    ],
    [
      "attempt 1's Job already gone, its pod still running (found by the Job's name)",
      [],
      [pod("p1", "web-a1", "Running")],
      { unfinished: [], running: ["p1"] },
    ],
    [
      "an orphaned pod annotated with the id and another attempt",
      [],
      [pod("p9", "gone", "Pending", { "hooks.petset.dev/id": ID, "hooks.petset.dev/attempt": "1" })],
      { unfinished: [], running: ["p9"] },
    ],
    [
      "another hook id's Job is not ours",
      [job("web-x1", "preRollout.web.v3.ffff0000")],
      [pod("px", "web-x1", "Running")],
      { unfinished: [], running: [] },
    ],
  ])("%s", (_name, jobs, pods, want) => {
    expect(names(otherAttempts(ID, "web-a2", 2, new Set(["web-a1"]), jobs, pods))).toEqual(want);
  });
});
