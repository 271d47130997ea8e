/**
 * The executor's forceDeleteLostPod step (executor.ts, node-fencing.ts): the node is re-read
 * uncached right before the force delete and a node Ready again keeps its pet; otherwise the
 * optional taint, the force delete (intent recorded first), then the attachments.
 */

import type { V1Node } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { executeSteps, StepError } from "../../../src/controller/executor.js";
import type { Expectation } from "../../../src/controller/expectations.js";
import { type NodeFencing, readyChangedSince } from "../../../src/controller/node-fencing.js";
import type { ForceDeleteLostPodStep } from "../../../src/controller/planner/index.js";
import { makePetSet } from "./planner/fixtures.js";

const step: ForceDeleteLostPodStep = {
  kind: "forceDeleteLostPod",
  podName: "web-1",
  ordinal: 1,
  uid: "uid-1",
  resourceVersion: "5",
  node: "n1",
  taintOutOfService: true,
  fenceId: "fence.web.1.uid1.n1",
  claimNames: ["data-web-1"],
};

function fencing(node: "ready" | "lost", calls: string[]): NodeFencing {
  return {
    async checkNode(name, taint) {
      calls.push(`check ${name} taint=${taint}`);
      return node;
    },
    async forceDeletePod(ns, name, uid) {
      calls.push(`force-delete ${ns}/${name} uid=${uid}`);
      return true;
    },
    async deleteAttachments(ns, name, claims) {
      calls.push(`attachments ${ns} ${name} ${claims.join(",")}`);
      return ["csi-abc"];
    },
  };
}

const unused = {} as never;

describe("forceDeleteLostPod", () => {
  it("issue 27: a node Ready again when re-read uncached keeps its pet: nothing is deleted", async () => {
    const calls: string[] = [];
    const expected: Expectation[] = [];
    const run = executeSteps(
      {
        pods: unused,
        claims: unused,
        petSets: unused,
        versions: unused,
        nodeFencing: fencing("ready", calls),
        expect: (e) => {
          expected.push(e);
          return () => {};
        },
      },
      makePetSet(),
      [],
      [step],
    );
    await expect(run).rejects.toBeInstanceOf(StepError);
    expect(calls).toEqual(["check n1 taint=true"]);
    expect(expected).toEqual([]);
  });

  it("issue 27: a node still lost: the pod is force-deleted (its gone expectation first), then its attachments", async () => {
    const calls: string[] = [];
    const expected: Expectation[] = [];
    await executeSteps(
      {
        pods: unused,
        claims: unused,
        petSets: unused,
        versions: unused,
        nodeFencing: fencing("lost", calls),
        expect: (e) => {
          expected.push(e);
          calls.push(`expect ${e.kind} ${e.name}`);
          return () => {};
        },
      },
      makePetSet(),
      [],
      [step],
    );
    expect(calls).toEqual([
      "check n1 taint=true",
      "expect gone web-1",
      "force-delete default/web-1 uid=uid-1",
      "attachments default n1 data-web-1",
    ]);
  });
});

describe("forceDeleteLostPod: a node that came back and was lost again", () => {
  it("issue 27: the node's Ready condition changed after the loss the plan saw: nothing is deleted", async () => {
    const calls: string[] = [];
    const seen: (number | undefined)[] = [];
    const changed: NodeFencing = {
      ...fencing("lost", calls),
      async checkNode(name, taint, lostSince) {
        calls.push(`check ${name} taint=${taint}`);
        seen.push(lostSince);
        return "changed";
      },
    };
    const run = executeSteps(
      {
        pods: unused,
        claims: unused,
        petSets: unused,
        versions: unused,
        nodeFencing: changed,
        expect: () => () => {},
      },
      makePetSet(),
      [],
      [{ ...step, lostSince: 1_000 }],
    );
    await expect(run).rejects.toBeInstanceOf(StepError);
    expect(calls).toEqual(["check n1 taint=true"]);
    expect(seen).toEqual([1_000]);
  });

  it("issue 27: readyChangedSince: a Ready transition after the plan's loss time is a change; the same or older is not", () => {
    const node = (at: string): V1Node => ({
      status: { conditions: [{ type: "Ready", status: "Unknown", lastTransitionTime: new Date(at) }] },
    });
    const lostSince = Date.parse("2026-12-05T10:00:00Z");
    expect(readyChangedSince(node("2026-12-05T10:00:00Z"), lostSince)).toBe(false);
    expect(readyChangedSince(node("2026-12-05T09:59:00Z"), lostSince)).toBe(false);
    expect(readyChangedSince(node("2026-12-05T10:00:30Z"), lostSince)).toBe(true);
    expect(readyChangedSince(node("2026-12-05T10:00:30Z"), undefined)).toBe(false);
    expect(readyChangedSince(undefined, lostSince)).toBe(false);
  });
});
