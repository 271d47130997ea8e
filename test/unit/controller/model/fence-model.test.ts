/**
 * The model checker over lost nodes (issue 27, planner/node-failure.ts): the schedules of
 * stale-model.test.ts (lagging watches, syncs interleaved step by step, frozen and crashing
 * replicas, lease handovers so leaders overlap, refused requests and lost answers) on a PetSet
 * with spec.nodeFailure Fence and an external fence, with nodes lost and back at random and the
 * fence answered Succeeded, Failed or left hanging past its timeout. After every change
 * (nodes.ts): never a force delete of a pet without a Succeeded fence for that pod uid and node,
 * never two pods of one pet that could both run, never more pets in a fence than
 * maxUnavailable. Once faults stop (every node back, replicas, pause and partition as set up)
 * the pets converge and no old process is left. `make test` runs a fixed-seed slice
 * (MODEL_RUNS / 5).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fenceModel, playFence, syncFresh, withNodes } from "./fence-schedule.js";
import { answerFence, fences, loseNode, nodeBack } from "./nodes.js";
import { RUNS, SEED, settle, setup } from "./schedule.js";
import {
  crash,
  deliver,
  executeNext,
  fixedCode,
  leader,
  type Model,
  startSync,
  tick,
} from "./stale-model.js";

describe("model checker: lost nodes and the fence", () => {
  it("issue 27: under stale views, restarts, overlapping leaders and lost answers, no pet is force-deleted without a Succeeded fence for its pod and node, never two pods of one pet could run, fences keep maxUnavailable", () => {
    fc.assert(
      fc.property(setup, fc.array(withNodes, { minLength: 40, maxLength: 120 }), (s, actions) => {
        expect(playFence(s, actions, fixedCode)).toEqual({ violations: [], done: true, ghosts: [] });
      }),
      { numRuns: Math.max(1, Math.round(RUNS / 5)), seed: SEED },
    );
  }, 900_000);
});

/** web-0's node n0 is lost, its fence started and answered Succeeded; nothing moved yet. */
function fencedNotMoved(): Model {
  const m = fenceModel(
    { policy: "Parallel", maxUnavailable: 1, podUpdatePolicy: "Recreate", replicas: 3, readyTicks: 1 },
    fixedCode,
  );
  expect(settle(m, 100)).toBe(true);
  loseNode(m, "n0");
  for (let i = 0; i < 4 && !fences(m).some((h) => h.phase === "Running"); i++) syncFresh(m);
  answerFence(m, 0, "ok");
  return m;
}

describe("model checker: a node back and lost again before anyone saw it Ready", () => {
  it("issue 27: a fence answered in an earlier loss moves nothing after a restart (fresh view): a new fence runs", () => {
    const m = fencedNotMoved();
    nodeBack(m, "n0"); // powered on again: the kubelet runs web-0 (still in the API)
    tick(m);
    loseNode(m, "n0"); // lost again; no controller saw it Ready
    crash(m, leader(m)!);
    for (let i = 0; i < 10; i++) syncFresh(m);
    expect(m.violations).toEqual([]);
    expect(fences(m).map((h) => h.phase)).toEqual(["Running"]);
  });

  it("issue 27: a plan on a view from before the node came back and was lost again moves nothing (the executor's uncached read)", () => {
    const m = fencedNotMoved();
    const l = leader(m)!;
    // The leader's watch delivers the fence's answer, not the node's flap.
    for (const key of ["version/web-v1", "version/web-v1", "petset", "petset"]) deliver(m, l, key);
    nodeBack(m, "n0");
    tick(m);
    loseNode(m, "n0");
    startSync(m, l);
    expect(l.inflight?.steps.map((s) => s.kind)).toContain("forceDeleteLostPod");
    for (let i = 0; i < 20 && l.inflight !== undefined; i++) executeNext(m, l);
    expect(m.violations).toEqual([]);
    expect(m.world.pods.get("web-0")?.view.nodeName).toBe("n0");
  });
});
