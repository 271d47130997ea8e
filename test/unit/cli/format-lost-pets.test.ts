/** `kubectl petset status` lines for pets on lost nodes, from the planner's own condition. */
import { describe, expect, it } from "vitest";
import { lostPetLines } from "../../../src/cli/plugin/format-lost-pets.js";
import { planRollout } from "../../../src/controller/planner/index.js";
import { makePetSet, makePod, makeVersion } from "../controller/planner/fixtures.js";

const NOW = 1_000_000;
const v1 = makeVersion(1, "app:1");

function statusWith(nodeFailure?: Record<string, unknown>) {
  const pods = [0, 1].map((o) => ({ ...makePod(o, v1, { targetVersion: 1 }), nodeName: `n${o}` }));
  return planRollout({
    petSet: makePetSet({ replicas: 2, ...(nodeFailure !== undefined ? { nodeFailure } : {}) }),
    versions: [v1],
    pods,
    claims: [],
    now: NOW,
    nodes: [
      { name: "n0", ready: "True", readySince: 0 },
      { name: "n1", ready: "Unknown", readySince: NOW - 90_000 },
    ],
  }).status;
}

describe("lostPetLines", () => {
  it("issue 27: Manual names the pet and its node and prints the exact commands to fence it by hand", () => {
    expect(lostPetLines(statusWith(), "prod")).toEqual([
      "pets on lost nodes (ManualFenceRequired): web-1 on node n1 (NodeStatusUnknown for 90s, manual)",
      "  to fence web-1 by hand: make sure node n1 is off, then: kubectl taint node n1 node.kubernetes.io/out-of-service=nodeshutdown:NoExecute; kubectl delete pod web-1 -n prod --grace-period=0 --force",
    ]);
  });

  it("Fence: the pet and the fence's state, no manual commands; nothing when every node is Ready", () => {
    const fencing = statusWith({
      policy: "Fence",
      afterSeconds: 30,
      fence: { external: {}, timeoutSeconds: 60 },
    });
    expect(lostPetLines(fencing, "prod")).toEqual([
      "pets on lost nodes (Fencing): web-1 on node n1 (NodeStatusUnknown for 90s, fencing)",
    ]);
    expect(lostPetLines({ ...fencing, conditions: [] }, "prod")).toEqual([]);
  });
});
