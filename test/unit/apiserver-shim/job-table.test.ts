/** `kubectl get jobs` cells, as kube's printJob computes them. */
import { describe, expect, it } from "vitest";
import { jobTable } from "../../../src/apiserver-shim/tables/job-table.js";
import type { KubeObject } from "../../../src/apiserver-shim/types.js";

const now = new Date("2025-01-01T00:10:00Z");
const job = (
  spec: Record<string, unknown>,
  status: Record<string, unknown>,
  meta: Record<string, unknown> = {},
) =>
  ({
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "migrate", creationTimestamp: "2025-01-01T00:00:00Z", ...meta },
    spec: {
      selector: { matchLabels: { "batch.kubernetes.io/controller-uid": "u1" } },
      template: {
        spec: {
          containers: [
            { name: "a", image: "x:1" },
            { name: "b", image: "y:2" },
          ],
        },
      },
      ...spec,
    },
    status,
  }) as KubeObject;
const cond = (type: string, status = "True") => ({ type, status });

describe("job printer", () => {
  it.each([
    [
      "running",
      job({ completions: 1 }, { startTime: "2025-01-01T00:09:30Z", active: 1 }),
      ["Running", "0/1", "30s"],
    ],
    [
      "complete",
      job(
        { completions: 3 },
        {
          succeeded: 3,
          startTime: "2025-01-01T00:00:00Z",
          completionTime: "2025-01-01T00:02:05Z",
          conditions: [cond("SuccessCriteriaMet"), cond("Complete")],
        },
      ),
      ["Complete", "3/3", "2m5s"],
    ],
    [
      "failed",
      job({ completions: 1 }, { conditions: [cond("FailureTarget"), cond("Failed")] }),
      ["Failed", "0/1", ""],
    ],
    [
      "failure target only",
      job({ completions: 1 }, { conditions: [cond("FailureTarget")] }),
      ["FailureTarget", "0/1", ""],
    ],
    [
      "a False condition does not count",
      job({ completions: 1 }, { conditions: [cond("Complete", "False")] }),
      ["Running", "0/1", ""],
    ],
    [
      "terminating",
      job({ completions: 1 }, {}, { deletionTimestamp: "2025-01-01T00:09:00Z" }),
      ["Terminating", "0/1", ""],
    ],
    ["work queue (no completions)", job({ parallelism: 3 }, { succeeded: 1 }), ["Running", "1/1 of 3", ""]],
  ])("%s", (_name, obj, [status, completions, duration]) => {
    const cells = jobTable.cells(obj, now);
    expect(cells.slice(0, 5)).toEqual(["migrate", status, completions, duration, "10m"]);
    expect(cells.slice(5)).toEqual(["a,b", "x:1,y:2", "batch.kubernetes.io/controller-uid=u1"]);
  });

  it("has kube's columns, the wide ones at priority 1", () => {
    expect(jobTable.columns.map((c) => `${c.name}:${c.priority}`)).toEqual([
      "Name:0",
      "Status:0",
      "Completions:0",
      "Duration:0",
      "Age:0",
      "Containers:1",
      "Images:1",
      "Selector:1",
    ]);
  });
});
