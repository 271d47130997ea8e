/**
 * The node-fault judge (test/chaos/node-judge.ts) fed planted histories: a pod force-deleted on a
 * lost node without a Succeeded fence while its pet runs elsewhere is two pods of one pet; with
 * the fence it is a move; a pet never Ready again, or Ready after its bound, is unrecovered.
 */
import type { V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import type { HookRecord } from "../../../src/api/index.js";
import { NodeJudge, SLACK_SECONDS } from "../../chaos/node-judge.js";

const pod = (name: string, uid: string, node: string, ready: boolean): V1Pod => ({
  metadata: { name, uid },
  spec: { nodeName: node, containers: [] },
  status: { conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
});
const fence = (uid: string, node: string, phase: HookRecord["phase"]): HookRecord => ({
  id: `fence.fenced.1.${uid}.${node}`,
  hook: "fence",
  handler: "external",
  phase,
  podUID: uid,
  attempts: 1,
  failures: 0,
  startedAt: "2026-12-05T10:00:00Z",
});

/** web-1 (uid a) on n1; n1 lost at t=0; the pod is gone and b is on n2 at t=10 s. */
function moveWith(records: HookRecord[]) {
  const j = new NodeJudge(4);
  j.lost({ node: "n1", pet: "fenced-1", uid: "a", lostAt: 0 });
  j.answered("a", "ack");
  j.sample(1_000, [pod("fenced-1", "a", "n1", false)], [], records);
  j.sample(10_000, [pod("fenced-1", "b", "n2", true)], [], records);
  return j.findings(new Map([["x#1", "ack"]]), []);
}

describe("node judge", () => {
  it("a move after a Succeeded fence is a move, not two pods", () => {
    const f = moveWith([fence("a", "n1", "Succeeded")]);
    expect(f).toMatchObject({ twoPodsOneIdentity: [], unrecovered: [], moved: 1, nodeLosses: 1 });
  });

  it("planted: a pod gone from a lost node without a Succeeded fence while its pet runs elsewhere is two pods of one pet", () => {
    const f = moveWith([fence("a", "n1", "Running")]);
    expect(f.twoPodsOneIdentity).toEqual(["fenced-1: uid a on lost node n1 (not fenced) and uid b on n2"]);
  });

  it("planted: a pet never Ready again, or Ready after its bound, is unrecovered", () => {
    const never = new NodeJudge(4);
    never.lost({ node: "n1", pet: "fenced-1", uid: "a", lostAt: 0, backAt: 30_000 });
    never.sample(1_000, [pod("fenced-1", "a", "n1", false)], [], []);
    expect(never.findings(new Map(), []).unrecovered).toHaveLength(1);
    const late = new NodeJudge(4);
    const loss = { node: "n1", pet: "fenced-1", uid: "a", lostAt: 0, backAt: 30_000 };
    late.lost(loss);
    late.back("n1", 30_000);
    late.sample(30_000 + SLACK_SECONDS * 1000 + 1_000, [pod("fenced-1", "a", "n1", true)], [], []);
    expect(late.findings(new Map(), []).unrecovered).toHaveLength(1);
    const inTime = new NodeJudge(4);
    inTime.lost({ ...loss });
    inTime.back("n1", 30_000);
    inTime.sample(35_000, [pod("fenced-1", "a", "n1", true)], [], []);
    expect(inTime.findings(new Map(), []).unrecovered).toEqual([]);
  });
});

describe("node judge, controller time", () => {
  /** fenced-1 lost at 0, fence acked; Ready elsewhere at `readyAt`. */
  function judged(readyAt: number, serving: { from: number; to: number }[], fencer?: [number, number]) {
    const j = new NodeJudge(4);
    j.lost({ node: "n1", pet: "fenced-1", uid: "a", lostAt: 0 });
    const [drawn, written] = fencer ?? [0, 0];
    j.answered("a", "ack", drawn);
    j.answerWritten("a", written);
    j.sample(1_000, [pod("fenced-1", "a", "n1", false)], [], [fence("a", "n1", "Succeeded")]);
    j.sample(readyAt, [pod("fenced-1", "b", "n2", true)], [], [fence("a", "n1", "Succeeded")]);
    return j.findings(new Map([["x#1", "ack"]]), [], serving);
  }
  const bound = (4 + 2 + SLACK_SECONDS) * 1000;

  it("issue 27: a pet late only while no controller served (killed, starting, frozen) is recovered", () => {
    // Ready at 100 s; a controller served only from 60 s on: 40 s of controller time.
    expect(judged(100_000, [{ from: 60_000, to: 200_000 }]).unrecovered).toEqual([]);
  });

  it("issue 27: a pet late while a controller served is unrecovered (planted: nothing moved it)", () => {
    const f = judged(bound + 5_000, [{ from: 0, to: 500_000 }]);
    expect(f.unrecovered).toEqual([
      `fenced-1 (node n1, acked): Ready after ${bound + 5_000} ms, ${bound + 5_000} ms of it controller time (bound ${bound} ms)`,
    ]);
  });

  it("issue 27: the time the fencer holds its answer is not the controller's", () => {
    // Served throughout; the fencer took 30 s to write its ack.
    expect(judged(bound + 20_000, [{ from: 0, to: 500_000 }], [10_000, 40_000]).unrecovered).toEqual([]);
    expect(judged(bound + 40_000, [{ from: 0, to: 500_000 }], [10_000, 40_000]).unrecovered).toHaveLength(1);
  });
});
