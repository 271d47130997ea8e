import { describe, expect, it } from "vitest";
import { printerColumnsTable } from "../../../src/apiserver-shim/crd/printer-columns.js";
import { podStatusCells } from "../../../src/apiserver-shim/tables/pod-table.js";
import { humanDuration } from "../../../src/apiserver-shim/tables/table.js";
import type { KubeObject } from "../../../src/apiserver-shim/types.js";

const now = new Date("2025-01-01T01:00:00Z");
const pod = (
  status: Record<string, unknown>,
  spec: Record<string, unknown> = {},
  meta: Record<string, unknown> = {},
): KubeObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", creationTimestamp: "2025-01-01T00:00:00Z", ...meta },
  spec: { containers: [{ name: "a" }], ...spec },
  status,
});

describe("pod printer", () => {
  it.each([
    ["pending", pod({ phase: "Pending" }), ["0/1", "Pending", "0"]],
    [
      "running and ready",
      pod({
        phase: "Running",
        containerStatuses: [{ name: "a", ready: true, restartCount: 0, state: { running: {} } }],
      }),
      ["1/1", "Running", "0"],
    ],
    [
      "crash looping",
      pod({
        phase: "Running",
        containerStatuses: [
          {
            name: "a",
            ready: false,
            restartCount: 3,
            state: { waiting: { reason: "CrashLoopBackOff" } },
            lastState: { terminated: { finishedAt: "2025-01-01T00:58:00Z", exitCode: 1 } },
          },
        ],
      }),
      ["0/1", "CrashLoopBackOff", "3 (2m ago)"],
    ],
    [
      "init container running",
      pod(
        { phase: "Pending", initContainerStatuses: [{ name: "i", state: { running: {} } }] },
        { initContainers: [{ name: "i" }] },
      ),
      ["0/1", "Init:0/1", "0"],
    ],
    [
      "terminating",
      pod({ phase: "Running" }, {}, { deletionTimestamp: "2025-01-01T00:59:00Z" }),
      ["0/1", "Terminating", "0"],
    ],
    [
      "completed",
      pod({
        phase: "Succeeded",
        containerStatuses: [{ name: "a", state: { terminated: { reason: "Completed", exitCode: 0 } } }],
      }),
      ["0/1", "Completed", "0"],
    ],
  ])("%s", (_name, p, want) => {
    expect(podStatusCells(p, now)).toEqual(want);
  });
});

describe("ages and CRD printer columns", () => {
  it.each([
    [5_000, "5s"],
    [150_000, "2m30s"],
    [3_600_000 * 2 + 60_000 * 5, "125m"],
    [3_600_000 * 5, "5h"],
    [86_400_000 * 3 + 3_600_000 * 4, "3d4h"],
  ])("%i ms → %s", (ms, want) => {
    expect(humanDuration(ms)).toBe(want);
  });

  it("evaluates JSONPath columns with types", () => {
    const t = printerColumnsTable([
      { name: "Replicas", type: "integer", jsonPath: ".spec.replicas" },
      { name: "Ready", type: "string", jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: "Missing", type: "string", jsonPath: ".status.nothing" },
      { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
    ]);
    expect(t.columns.map((c) => c.name)).toEqual(["Name", "Replicas", "Ready", "Missing", "Age"]);
    const obj: KubeObject = {
      apiVersion: "x/v1",
      kind: "X",
      metadata: { name: "x", creationTimestamp: "2025-01-01T00:00:00Z" },
      spec: { replicas: 3 },
      status: {
        conditions: [
          { type: "Other", status: "False" },
          { type: "Ready", status: "True" },
        ],
      },
    };
    expect(t.cells(obj, now)).toEqual(["x", 3, "True", null, "60m"]);
  });
});
