/**
 * The chaos judge fed planted histories (issue 24, "Harnesses that can fail"): each fault the
 * campaign is meant to catch is planted in otherwise healthy data and must be reported; the
 * healthy data itself must pass, so the judge is not merely always failing.
 */
import type { V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { ConditionTypes, Labels, type PetSet } from "../../../src/api/index.js";
import { judgeConvergence, judgeVersions } from "../../chaos/outcome.js";
import { HEALED_IMAGE } from "../../chaos/scenario.js";
import { makePetSet, makeVersion, SET } from "../controller/planner/fixtures.js";

const history = () => [
  makeVersion(1, "nginx:1"),
  makeVersion(2, "nginx:2"),
  makeVersion(3, "nginx:1", { rollbackOf: 1 }),
  makeVersion(4, HEALED_IMAGE),
];

function converged(newest: number, replicas = 2): PetSet {
  return makePetSet(
    { replicas },
    {
      observedGeneration: 1,
      currentVersion: newest,
      updateVersion: newest,
      conditions: [
        {
          type: ConditionTypes.progressing,
          status: "True",
          reason: "RolloutComplete",
          message: "",
          lastTransitionTime: new Date(0).toISOString(),
        },
      ],
    },
  );
}

function pod(ordinal: number, version: number, ready = true): V1Pod {
  return {
    metadata: { name: `${SET}-${ordinal}`, labels: { app: SET, [Labels.version]: String(version) } },
    status: { phase: "Running", conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
  };
}

describe("judgeVersions (planted histories)", () => {
  it("passes a gap-free history whose newest version is the last spec", () => {
    expect(judgeVersions(SET, history())).toEqual({ lost: [], duplicated: [] });
  });

  it("reports a version number missing from 1..N (a lost version)", () => {
    const h = history().filter((v) => v.spec.version !== 2);
    expect(judgeVersions(SET, h).lost).toEqual([`${SET}: version 2 missing (have 1,3,4)`]);
  });

  it("reports a lost last change: the newest version is not the healing spec", () => {
    const h = history().slice(0, 3);
    expect(judgeVersions(SET, h).lost.join()).toContain("not the last spec's");
  });

  it("reports one change recorded twice and older content repeated without rollbackOf", () => {
    const twice = [...history().slice(0, 2), makeVersion(3, "nginx:2"), makeVersion(4, HEALED_IMAGE)];
    expect(judgeVersions(SET, twice).duplicated).toEqual([`${SET}: v2 and v3 record the same content`]);
    const repeat = [...history().slice(0, 2), makeVersion(3, "nginx:1"), makeVersion(4, HEALED_IMAGE)];
    expect(judgeVersions(SET, repeat).duplicated).toEqual([`${SET}: v3 repeats v1 without rollbackOf`]);
  });
});

describe("judgeConvergence (planted states)", () => {
  it("passes every pet Ready at the newest version with a complete rollout", () => {
    expect(judgeConvergence(converged(4), 4, [pod(0, 4), pod(1, 4)])).toBeUndefined();
  });

  it("reports a third version live", () => {
    const gap = judgeConvergence(converged(4, 3), 4, [pod(0, 2), pod(1, 3), pod(2, 4)]);
    expect(gap).toContain("3 versions live (v2,v3,v4)");
  });

  it("reports a convergence gap: a pet not Ready, a pet behind, status behind", () => {
    expect(judgeConvergence(converged(4), 4, [pod(0, 4), pod(1, 4, false)])).toContain(
      `${SET}-1 v4 ready=false`,
    );
    expect(judgeConvergence(converged(4), 4, [pod(0, 4), pod(1, 3)])).toContain(`${SET}-1 v3 ready=true`);
    expect(judgeConvergence(converged(3), 4, [pod(0, 4), pod(1, 4)])).toContain(
      "current v3 update v3, newest v4",
    );
    expect(judgeConvergence(converged(4), 4, [pod(0, 4)])).toContain(
      "1 live pods (0 terminating) for 2 replicas",
    );
  });
});
