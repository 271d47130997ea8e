/**
 * The invariant monitor's rules fed planted pod events (issue 24, "Harnesses that can fail"):
 * one bad step per rule must be reported and the good step beside it must not; and pods
 * created or deleted while the watch was down are judged when the monitor relists (a relist
 * used to reset the monitor's state and judge nothing).
 */
import type { V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { Labels, type PetSetSpecInput } from "../../../src/api/index.js";
import { createInvariantJudge, type InvariantJudge } from "../../support/invariant-rules.js";
import { makePetSet, SET } from "../controller/planner/fixtures.js";

let clock = 1_000_000;
let uids = 0;

function pod(
  ordinal: number,
  hash: string,
  opts: { ready?: boolean; uid?: string; rv?: string } = {},
): V1Pod {
  const ready = opts.ready ?? true;
  return {
    metadata: {
      name: `${SET}-${ordinal}`,
      uid: opts.uid ?? `uid-${++uids}`,
      resourceVersion: opts.rv ?? "1",
      labels: {
        app: SET,
        [Labels.petSet]: SET,
        [Labels.version]: hash.replace("h", ""),
        [Labels.hash]: hash,
        [Labels.podIndex]: String(ordinal),
      },
    },
    spec: { containers: [{ name: "app", image: `app:${hash}` }] },
    status: {
      phase: ready ? "Running" : "Pending",
      conditions: [{ type: "Ready", status: ready ? "True" : "False", lastTransitionTime: new Date(0) }],
    },
  };
}

/** A judge whose PetSet has `spec`, and pods `initial` (the baseline list). */
function judgeWith(spec: Partial<PetSetSpecInput>, initial: V1Pod[]): InvariantJudge {
  const j = createInvariantJudge({ petSet: SET, windowMs: 1_000, now: () => clock });
  j.onSpec(makePetSet(spec), false);
  j.onPodList(initial);
  return j;
}

const step = () => {
  clock += 10_000; // beyond the window: each step is judged against the spec alone
};
const rules = (j: InvariantJudge) => j.judge().map((v) => v.rule);
const deleting = (p: V1Pod): V1Pod => ({
  ...p,
  metadata: { ...p.metadata, deletionTimestamp: new Date(clock), resourceVersion: "2" },
});
const rolling = (maxUnavailable: number, partition = 0) => ({
  updateStrategy: { type: "RollingUpdate" as const, rollingUpdate: { maxUnavailable, partition } },
});

describe("invariant rules: one bad step each", () => {
  it("versions: a third content live", () => {
    const [a, b] = [pod(0, "h1"), pod(1, "h2")];
    const j = judgeWith({ replicas: 3 }, [a, b]);
    step();
    j.onPod("ADDED", pod(2, "h2"));
    expect(rules(j)).toEqual([]);
    j.onPod("ADDED", pod(3, "h3"));
    expect(rules(j)).toEqual(["versions"]);
  });

  it("one-pod-per-pet: a second pod for one ordinal", () => {
    const j = judgeWith({ replicas: 2 }, [pod(0, "h1"), pod(1, "h1")]);
    step();
    j.onPod("ADDED", pod(1, "h1"));
    expect(rules(j)).toEqual(["one-pod-per-pet"]);
  });

  it("maxUnavailable: a second pet deleted while the first is still down", () => {
    const [a, b, c] = [pod(0, "h1"), pod(1, "h1"), pod(2, "h1")];
    const j = judgeWith({ replicas: 3, ...rolling(1) }, [a, b, c]);
    step();
    j.onPod("MODIFIED", deleting(c));
    expect(rules(j)).toEqual([]);
    step();
    j.onPod("MODIFIED", deleting(b));
    expect(rules(j)).toEqual(["maxUnavailable"]);
  });

  it("ordered-ready: a pet created above one that is not available", () => {
    const j = judgeWith({ replicas: 3, podManagementPolicy: "OrderedReady" }, [
      pod(0, "h1"),
      pod(1, "h1", { ready: false }),
    ]);
    step();
    j.onPod("ADDED", pod(2, "h1"));
    expect(rules(j)).toEqual(["ordered-ready"]);
  });

  it("frozen: a Ready pet patched in place to another content while paused, or below the partition", () => {
    const a = pod(0, "h1", { uid: "a" });
    const paused = judgeWith({ replicas: 1, paused: true }, [a]);
    step();
    paused.onPod("MODIFIED", pod(0, "h2", { uid: "a", rv: "2" }));
    expect(rules(paused)).toEqual(["frozen"]);
    const [b0, b1] = [pod(0, "h1", { uid: "b0" }), pod(1, "h1", { uid: "b1" })];
    const partitioned = judgeWith({ replicas: 2, ...rolling(2, 1) }, [b0, b1]);
    step();
    partitioned.onPod("MODIFIED", pod(1, "h2", { uid: "b1", rv: "2" }));
    expect(rules(partitioned)).toEqual([]);
    partitioned.onPod("MODIFIED", pod(0, "h2", { uid: "b0", rv: "2" }));
    expect(rules(partitioned)).toEqual(["frozen"]);
  });
});

describe("invariant rules: pods created or deleted while the watch was down", () => {
  it("a healthy gap (one pet replaced, Ready again) is no violation", () => {
    const [a, b] = [pod(0, "h1"), pod(1, "h1")];
    const j = judgeWith({ replicas: 2, ...rolling(1) }, [a, b]);
    step();
    j.onPodList([a, pod(1, "h2")]);
    expect(rules(j)).toEqual([]);
    expect(j.stats().relists).toBe(1);
    expect(j.moves().map((m) => `${m.kind} ${m.pod}`)).toEqual([`delete ${SET}-1`, `create ${SET}-1`]);
  });

  it("a third content created in the gap", () => {
    const [a, b] = [pod(0, "h1"), pod(1, "h2")];
    const j = judgeWith({ replicas: 3 }, [a, b]);
    step();
    j.onPodList([a, b, pod(2, "h3")]);
    expect(rules(j)).toEqual(["versions"]);
  });

  it("two pets taken down in the gap with maxUnavailable 1", () => {
    const [a, b, c] = [pod(0, "h1"), pod(1, "h1"), pod(2, "h1")];
    const j = judgeWith({ replicas: 3, ...rolling(1) }, [a, b, c]);
    step();
    j.onPodList([a, pod(1, "h2", { ready: false }), pod(2, "h2", { ready: false })]);
    expect(rules(j)).toContain("maxUnavailable");
  });

  it("a pet created in the gap above one that is not available (OrderedReady)", () => {
    const a = pod(0, "h1");
    const j = judgeWith({ replicas: 3, podManagementPolicy: "OrderedReady" }, [a]);
    step();
    j.onPodList([a, pod(1, "h1", { ready: false }), pod(2, "h1")]);
    expect(rules(j)).toEqual(["ordered-ready"]);
  });

  it("a move in the gap is judged against every spec seen since the gap began, not only the last", () => {
    const a = pod(0, "h1", { uid: "a" });
    const j = judgeWith({ replicas: 1 }, [a]);
    step();
    // During the gap the pet is patched in place (allowed then), and later the set is paused.
    j.onSpec(makePetSet({ replicas: 1, paused: true }), false);
    step();
    j.onPodList([pod(0, "h2", { uid: "a", rv: "2" })]);
    expect(rules(j)).toEqual([]);
    // Patched in place while the set was paused for the whole gap: a violation.
    step();
    j.onPodList([pod(0, "h3", { uid: "a", rv: "3" })]);
    expect(rules(j)).toEqual(["frozen"]);
  });
});
