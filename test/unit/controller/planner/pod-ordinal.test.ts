/**
 * A pet's ordinal comes from its pod's name (`<set>-<ordinal>`), which the API server keeps
 * unique; the petset.dev/pod-index label is what petset tells the pet, not what it reads back.
 * Issue 24 item 14c.
 */
import { describe, expect, it } from "vitest";
import { Labels } from "../../../../src/api/index.js";
import { podViewFromV1Pod } from "../../../../src/controller/planner/index.js";
import { at, moves, plan, policies, v1, withPolicy } from "./plan-helpers.js";

describe("issue 24 item 14c: a pod-index label that disagrees with the pod name", () => {
  it("issue 24 item 14c: the name is authoritative when reading a pod", () => {
    const view = podViewFromV1Pod({
      metadata: { name: "web-2", labels: { [Labels.podIndex]: "5" } },
      spec: { containers: [{ name: "app", image: "x" }] },
    });
    expect(view.ordinal).toBe(2);
  });

  it("a name without an ordinal suffix falls back to the label", () => {
    const view = podViewFromV1Pod({
      metadata: { name: "web-x", labels: { [Labels.podIndex]: "1" } },
      spec: { containers: [{ name: "app", image: "x" }] },
    });
    expect(view.ordinal).toBe(1);
  });

  it.each(policies)(
    "issue 24 item 14c: a pet whose label was edited is neither dropped nor created again (%s)",
    (policy) => {
      const pods = at(v1, [0, 1, 2]);
      const edited = podViewFromV1Pod({
        metadata: {
          name: "web-1",
          uid: pods[1]?.uid ?? "",
          labels: { ...pods[1]?.labels, [Labels.podIndex]: "7" },
          creationTimestamp: new Date(0),
        },
        spec: { containers: [{ name: "app", image: "app:1" }] },
        status: {
          phase: "Running",
          conditions: [{ type: "Ready", status: "True", lastTransitionTime: new Date(0) }],
        },
      });
      const p = plan(withPolicy(policy)({ pods: [pods[0], edited, pods[2]].filter((x) => x !== undefined) }));
      expect(moves(p)).toEqual([]);
      expect(p.status.replicas).toBe(3);
    },
  );
});
