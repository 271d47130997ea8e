/**
 * Issue 26: the simulated resizer's state machine (nextResizeStep), table-style: each claim
 * state and hook annotation and the write that follows, in kube 1.33's order.
 */
import { describe, expect, it } from "vitest";
import { nextResizeStep, type ResizeStep } from "../../../../src/apiserver-shim/kubelet/claim-resize.js";

type Obj = Record<string, unknown>;
const NOW = new Date("2026-01-01T00:00:00Z");

function claim(o: {
  request?: string;
  capacity?: string;
  allocated?: string;
  state?: string;
  phase?: string;
  annotations?: Record<string, string>;
  conditions?: Obj[];
}): Obj {
  return {
    metadata: { name: "data-web-0", namespace: "ns", resourceVersion: "7", annotations: o.annotations ?? {} },
    spec: { volumeName: "pvc-1", resources: { requests: { storage: o.request ?? "1Gi" } } },
    status: {
      phase: o.phase ?? "Bound",
      capacity: { storage: o.capacity ?? "1Gi" },
      ...(o.allocated ? { allocatedResources: { storage: o.allocated } } : {}),
      ...(o.state ? { allocatedResourceStatuses: { storage: o.state } } : {}),
      ...(o.conditions ? { conditions: o.conditions } : {}),
    },
  };
}

const statusOf = (s: ResizeStep | undefined) => s?.status.allocatedResourceStatuses;
const conditionTypes = (s: ResizeStep | undefined) =>
  ((s?.status.conditions ?? []) as Obj[]).map((c) => c.type);

/** Applies steps until none is left (each as the API server would merge it). */
function run(c: Obj): { kinds: string[]; claim: Obj } {
  const kinds: string[] = [];
  for (let i = 0; i < 10; i++) {
    const step = nextResizeStep(c, NOW);
    if (!step) break;
    kinds.push(step.kind);
    const status = { ...(c.status as Obj), ...step.status };
    for (const [k, v] of Object.entries(status)) if (v === null) delete status[k];
    c = { ...c, status };
  }
  return { kinds, claim: c };
}

describe("issue 26: simulated resizer state machine", () => {
  it("nothing to do: request at capacity, claim not Bound, or being deleted", () => {
    expect(nextResizeStep(claim({}), NOW)).toBeUndefined();
    expect(nextResizeStep(claim({ request: "2Gi", phase: "Pending" }), NOW)).toBeUndefined();
    const deleting = claim({ request: "2Gi" });
    (deleting.metadata as Obj).deletionTimestamp = NOW.toISOString();
    expect(nextResizeStep(deleting, NOW)).toBeUndefined();
  });

  it.each([
    // state, annotations, expected kind, expected resize status, expected condition types
    [undefined, {}, "controller-start", { storage: "ControllerResizeInProgress" }, ["Resizing"]],
    [
      "ControllerResizeInProgress",
      {},
      "controller-finish",
      { storage: "NodeResizePending" },
      ["FileSystemResizePending"],
    ],
    [
      "ControllerResizeInProgress",
      { "resize.petset.dev/fail": "controller" },
      "controller-fail",
      { storage: "ControllerResizeInfeasible" },
      ["ControllerResizeError"],
    ],
    ["ControllerResizeInProgress", { "resize.petset.dev/hang": "controller" }, undefined, undefined, []],
    ["NodeResizePending", {}, "node-finish", null, []],
    [
      "NodeResizePending",
      { "resize.petset.dev/fail": "node" },
      "node-fail",
      { storage: "NodeResizeInfeasible" },
      ["NodeResizeError"],
    ],
    ["NodeResizePending", { "resize.petset.dev/hang": "node" }, undefined, undefined, []],
    ["ControllerResizeInfeasible", { "resize.petset.dev/fail": "controller" }, undefined, undefined, []],
    [
      "ControllerResizeInfeasible",
      {},
      "controller-start",
      { storage: "ControllerResizeInProgress" },
      ["Resizing"],
    ],
    ["NodeResizeInfeasible", { "resize.petset.dev/fail": "node" }, undefined, undefined, []],
    ["NodeResizeInfeasible", {}, "node-retry", { storage: "NodeResizePending" }, ["FileSystemResizePending"]],
  ] as const)("state %s with %j: %s", (state, annotations, kind, resizeStatus, conditions) => {
    const step = nextResizeStep(
      claim({ request: "2Gi", allocated: state ? "2Gi" : undefined, state, annotations: { ...annotations } }),
      NOW,
    );
    expect(step?.kind).toBe(kind);
    expect(statusOf(step)).toEqual(resizeStatus);
    expect(conditionTypes(step)).toEqual(conditions);
  });

  it("a grown claim goes through every state in order and ends with status.capacity at the request", () => {
    const { kinds, claim: done } = run(
      claim({ request: "2Gi", conditions: [{ type: "Other", status: "True" }] }),
    );
    expect(kinds).toEqual(["controller-start", "controller-finish", "node-finish"]);
    expect(done.status).toEqual({
      phase: "Bound",
      capacity: { storage: "2Gi" },
      allocatedResources: { storage: "2Gi" },
      conditions: [{ type: "Other", status: "True" }],
    });
  });

  it("controller expansion writes the PV's capacity before the claim's NodeResizePending", () => {
    const step = nextResizeStep(
      claim({ request: "2Gi", allocated: "2Gi", state: "ControllerResizeInProgress" }),
      NOW,
    );
    expect(step?.volume).toEqual({ name: "pvc-1", capacity: "2Gi" });
  });

  it("a failed resize is tried again when the request changes (kube's recovery)", () => {
    const failed = claim({
      request: "3Gi",
      allocated: "4Gi",
      state: "ControllerResizeInfeasible",
      annotations: { "resize.petset.dev/fail": "controller" },
    });
    const step = nextResizeStep(failed, NOW);
    expect(step?.kind).toBe("controller-start");
    expect(step?.status.allocatedResources).toEqual({ storage: "3Gi" });
  });

  it("the error condition names the volume and the hook", () => {
    const step = nextResizeStep(
      claim({
        request: "2Gi",
        allocated: "2Gi",
        state: "ControllerResizeInProgress",
        annotations: { "resize.petset.dev/fail": "controller" },
      }),
      NOW,
    );
    expect(((step?.status.conditions ?? []) as Obj[])[0]).toEqual({
      type: "ControllerResizeError",
      status: "True",
      lastProbeTime: null,
      lastTransitionTime: "2026-01-01T00:00:00.000Z",
      message:
        'resize volume "pvc-1" by resizer "petset.dev/simulated-resizer" failed: simulated failure (annotation resize.petset.dev/fail=controller)',
    });
  });
});
