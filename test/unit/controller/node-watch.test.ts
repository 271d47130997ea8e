/** The node cache's trim and the planner's node view (cache-trim.ts trimNode, node-watch.ts). */
import type { V1Node } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { trimNode } from "../../../src/controller/cache-trim.js";
import { nodeView } from "../../../src/controller/node-watch.js";

const fullNode = (): V1Node => ({
  metadata: {
    name: "n1",
    uid: "u1",
    resourceVersion: "7",
    labels: { "kubernetes.io/hostname": "n1" },
    managedFields: [{ manager: "kubelet" }],
  },
  spec: { podCIDR: "10.0.0.0/24", taints: [{ key: "k", effect: "NoSchedule" }] },
  status: {
    conditions: [
      { type: "MemoryPressure", status: "False", lastHeartbeatTime: new Date(5) },
      {
        type: "Ready",
        status: "Unknown",
        reason: "NodeStatusUnknown",
        lastHeartbeatTime: new Date(9_000),
        lastTransitionTime: new Date(1_000),
      },
    ],
    images: [{ names: ["nginx"], sizeBytes: 1 }],
  },
});

describe("trimNode", () => {
  it("issue 27: keeps only the name and the Ready condition, so the view of a full node is unchanged", () => {
    const trimmed = fullNode();
    trimNode(trimmed);
    expect(nodeView(trimmed)).toEqual(nodeView(fullNode()));
    expect(nodeView(trimmed)).toEqual({ name: "n1", ready: "Unknown", readySince: 1_000 });
    expect(trimmed).toEqual({
      metadata: { name: "n1", uid: "u1", resourceVersion: "7" },
      spec: {},
      status: { conditions: [{ type: "Ready", status: "Unknown", lastTransitionTime: new Date(1_000) }] },
    });
  });

  it("a node that never reported has no Ready status (lost)", () => {
    const n: V1Node = { metadata: { name: "n2" }, status: {} };
    trimNode(n);
    expect(nodeView(n)).toEqual({ name: "n2" });
  });
});
