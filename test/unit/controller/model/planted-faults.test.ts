/**
 * The model checker's own checks fed planted faults (issue 24, "Harnesses that can fail"):
 * its rule-1 check reads the numbers the real version recorder chose and must report a
 * history that breaks the rule; a recorder whose records can collide and a fence that stays
 * valid past the Lease, each run through the model, must be reported; so must a planner that
 * ignores maxUnavailable (the budget judge). Lost nodes (issue 27): a planner with the fence gate
 * off, and one that fences past maxUnavailable, found by the fence-model schedules. Roles and
 * steps: roles-steps-model.test.ts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { planRollout } from "../../../../src/controller/planner/index.js";
import { planVersionSync } from "../../../../src/versions/plan-sync.js";
import { makePetSet } from "../planner/fixtures.js";
import { converged, createWorld, setImage } from "../planner/simulate.js";
import { fenceModel, playFence, syncFresh, withNodes } from "./fence-schedule.js";
import { frozenLeaderResumes } from "./frozen-leader.js";
import { checkRecorded, recorded, versionFindings } from "./invariants.js";
import { fences, loseNode } from "./nodes.js";
import { SEED, type Setup, setup } from "./schedule.js";
import {
  codeBeforeSafetyIssue,
  createModel,
  deliver,
  deliverAll,
  executeNext,
  feedKeys,
  fixedCode,
  type InFlight,
  leader,
  type Model,
  type ModelOptions,
  record,
  startSync,
  tick,
  userDelete,
} from "./stale-model.js";

function model(opts: ModelOptions, replicas = 2): Model {
  const world = createWorld(
    makePetSet({
      replicas: 3,
      podManagementPolicy: "OrderedReady",
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } },
    }),
    { readyTicks: 1, versionsByController: true },
  );
  return createModel(world, opts, replicas);
}

/** The leader syncs on a fresh view until the pets converge. */
function settle(m: Model): void {
  for (let t = 0; t < 40 && !(converged(m.world) && recorded(m)); t++) {
    const l = leader(m);
    if (l) {
      deliverAll(m, l);
      startSync(m, l);
      while (l.inflight !== undefined) executeNext(m, l);
    }
    tick(m);
  }
  expect(converged(m.world)).toBe(true);
}

describe("model checker, rule 1: the recorded history", () => {
  it("the versions are the real recorder's (numbers, names, hashes) and pass", () => {
    const m = model(fixedCode);
    settle(m);
    setImage(m.world, "app:2");
    record(m);
    settle(m);
    expect(m.world.versions.map((v) => v.metadata.name)).toEqual(["web-v1", "web-v2"]);
    expect(m.world.versions[1]?.spec.changeCause).toBeDefined(); // only the real recorder writes one
    expect(m.violations).toEqual([]);
  });

  it("reports planted histories: a gap, a name off its number, one content twice, a repeat without rollbackOf", () => {
    const m = model(fixedCode);
    settle(m);
    setImage(m.world, "app:2");
    record(m);
    settle(m);
    const [v1, v2] = m.world.versions as [(typeof m.world.versions)[0], (typeof m.world.versions)[0]];
    const renumber = (v: typeof v1, n: number, name = `web-v${n}`) => ({
      ...v,
      metadata: { ...v.metadata, name },
      spec: { ...v.spec, version: n },
    });
    expect(versionFindings("web", [v1, renumber(v2, 3)])).toEqual(["version numbers not 1..N: 1,3"]);
    expect(versionFindings("web", [v1, renumber(v2, 2, "web-v7")])).toEqual([
      "version web-v7 holds number 2",
    ]);
    expect(versionFindings("web", [v1, renumber(v1, 2)])).toEqual(["v1 and v2 record the same content"]);
    expect(versionFindings("web", [v1, v2, renumber(v1, 3)])).toEqual(["v3 repeats v1 without rollbackOf"]);
  });

  it("reports a change the recorder never recorded once faults stopped", () => {
    const m = model(fixedCode);
    settle(m);
    setImage(m.world, "app:9"); // no sync follows
    checkRecorded(m);
    expect(m.violations.join()).toMatch(/is not recorded: newest version v1/);
  });

  /** A sync records v2; its view never shows v2; the next sync plans v2 again. */
  function recordTwiceOnStaleView(opts: ModelOptions): Model {
    const m = model(opts, 1);
    settle(m);
    const r = m.replicas[0]!;
    setImage(m.world, "app:2");
    record(m);
    deliverAll(m, r);
    startSync(m, r);
    executeNext(m, r); // createVersion web-v2, which the view does not show yet
    r.inflight = undefined;
    startSync(m, r); // without expectations: plans on the view that lacks web-v2
    executeNext(m, r);
    return m;
  }

  it("stale view: the real recorder's second create is refused (AlreadyExists), history stays 1..N", () => {
    const m = recordTwiceOnStaleView(codeBeforeSafetyIssue);
    expect(m.world.versions.map((v) => v.spec.version)).toEqual([1, 2]);
    expect(m.violations).toEqual([]);
  });

  it("stale view: a planted recorder whose names never collide records one change twice, and it is reported", () => {
    let n = 0;
    const colliding: typeof planVersionSync = (petSet, versions) => {
      const plan = planVersionSync(petSet, versions);
      if (plan.action !== "create" || plan.version.spec.version === 1) return plan;
      const name = `${plan.version.metadata.name}-${++n}`;
      return { ...plan, version: { ...plan.version, metadata: { ...plan.version.metadata, name } } };
    };
    const m = recordTwiceOnStaleView({ ...codeBeforeSafetyIssue, recorder: colliding });
    expect(m.violations.join("\n")).toMatch(/version numbers not 1..N: 1,2,2/);
  });
});

describe("model checker, one writer: the real LeaseFence", () => {
  // The same scenario with the real fence writes nothing: stale-model.test.ts
  // "frozen-leader-resumes: with fencing it writes nothing".
  it("a planted fence valid past the Lease (a negative margin) lets it write, and two writers are reported", () => {
    const { m, writesAfterResume } = frozenLeaderResumes({ ...fixedCode, marginTicks: -4 });
    expect(writesAfterResume).toBeGreaterThan(0);
    expect(m.violations.join("\n")).toMatch(/both wrote within one tick/);
  });
});

describe("model checker, lost answers: intent before the request (issue 24 item 3)", () => {
  /** A pod create whose answer is lost, then an image-only v3 on a view that lacks that pod. */
  function lostCreate(opts: ModelOptions): Model {
    const world = createWorld(
      makePetSet({
        replicas: 3,
        podManagementPolicy: "Parallel",
        updateStrategy: {
          type: "RollingUpdate",
          rollingUpdate: { maxUnavailable: 2, podUpdatePolicy: "InPlaceIfPossible" },
        },
      }),
      { readyTicks: 1, versionsByController: true },
    );
    const m = createModel(world, opts, 1);
    settle(m);
    const r = m.replicas[0]!;
    // One more sync sees the last creates land (a create then deleted before any sync saw it
    // would hold its `present` expectation until the timeout).
    deliverAll(m, r);
    startSync(m, r);
    while (r.inflight !== undefined) executeNext(m, r);
    userDelete(m, "web-2");
    tick(m);
    tick(m);
    setImage(m.world, "app:2");
    record(m);
    deliverAll(m, r);
    startSync(m, r);
    for (let i = 0; i < 20 && r.inflight !== undefined; i++) {
      const next = (r.inflight as InFlight | undefined)?.steps[0];
      if (next?.kind === "createPod" && next.ordinal === 2) {
        executeNext(m, r, "lost");
        break;
      }
      executeNext(m, r);
    }
    expect(m.world.pods.get("web-2")?.view.version).toBe(2);
    setImage(m.world, "app:3");
    record(m);
    for (const key of feedKeys(m)) if (key !== "pod/web-2") for (let i = 0; i < 10; i++) deliver(m, r, key);
    startSync(m, r);
    while (r.inflight !== undefined) executeNext(m, r);
    return m;
  }

  it("with the intent kept, the sync waits for the pod and no third version runs", () => {
    const m = lostCreate(fixedCode);
    expect(m.violations).toEqual([]);
  });

  it("a planted executor that records the intent only on an answer runs three versions, and it is reported", () => {
    const m = lostCreate({ ...fixedCode, intentBeforeRequest: false });
    expect(m.violations.join("\n")).toMatch(/3 versions live/);
  });
});

describe("model checker, the budget: maxUnavailable", () => {
  /** One sync on a fresh view after a new image, Parallel, maxUnavailable 1. */
  function oneSync(opts: ModelOptions): Model {
    const world = createWorld(
      makePetSet({
        replicas: 3,
        podManagementPolicy: "Parallel",
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } },
      }),
      { readyTicks: 1, versionsByController: true },
    );
    const m = createModel(world, opts, 1);
    settle(m);
    const r = m.replicas[0]!;
    setImage(m.world, "app:2");
    record(m);
    deliverAll(m, r);
    startSync(m, r);
    while (r.inflight !== undefined) executeNext(m, r);
    return m;
  }

  it("the real planner moves one pet at a time", () => {
    const m = oneSync(fixedCode);
    expect([...m.world.pods.values()].filter((p) => p.view.deletionTimestamp !== undefined)).toHaveLength(1);
    expect(m.violations).toEqual([]);
  });

  it("a planted planner that reads maxUnavailable as 100% is reported", () => {
    const unbounded: typeof planRollout = (input) => {
      const spec = structuredClone(input.petSet.spec);
      spec.updateStrategy.rollingUpdate = { ...spec.updateStrategy.rollingUpdate!, maxUnavailable: "100%" };
      return planRollout({ ...input, petSet: { ...input.petSet, spec } });
    };
    const m = oneSync({ ...fixedCode, planner: unbounded });
    expect(m.violations.join("\n")).toMatch(/[23] pets unavailable > maxUnavailable 1/);
  });
});

describe("model checker, lost nodes: the fence gate and the fence budget (issue 27)", () => {
  /** The fence-model schedules (fixed seed) run with `planner`; the first counterexample's findings. */
  function search(planner: typeof planRollout): string {
    const result = fc.check(
      fc.property(setup, fc.array(withNodes, { minLength: 40, maxLength: 120 }), (s, actions) => {
        return playFence(s, actions, { ...fixedCode, planner }).violations.length === 0;
      }),
      { numRuns: 300, seed: SEED },
    );
    if (!result.failed || result.counterexample === null) return "";
    const [s, actions] = result.counterexample;
    return playFence(s, actions, { ...fixedCode, planner }).violations.join("\n");
  }

  it("a planted planner with the fence gate off (every Running fence read as Succeeded) is reported", () => {
    const gateOff: typeof planRollout = (input) =>
      planRollout({
        ...input,
        versions: input.versions.map((v) => ({
          ...v,
          ...(v.status !== undefined
            ? {
                status: {
                  ...v.status,
                  hooks: (v.status.hooks ?? []).map((h) =>
                    h.hook === "fence" && h.phase === "Running" ? { ...h, phase: "Succeeded" as const } : h,
                  ),
                },
              }
            : {}),
        })),
      });
    expect(search(gateOff)).toMatch(/force-deleted web-\d .* without a Succeeded fence/);
  }, 120_000);

  it("a planted planner that reads maxUnavailable as 100% fences two pets at once, and it is reported", () => {
    const unbounded: typeof planRollout = (input) => {
      const spec = structuredClone(input.petSet.spec);
      spec.updateStrategy.rollingUpdate = { ...spec.updateStrategy.rollingUpdate!, maxUnavailable: "100%" };
      return planRollout({ ...input, petSet: { ...input.petSet, spec } });
    };
    const twoLost = (planner: typeof planRollout) => {
      const s: Setup = {
        policy: "Parallel",
        maxUnavailable: 1,
        podUpdatePolicy: "Recreate",
        replicas: 3,
        readyTicks: 1,
      };
      const m = fenceModel(s, { ...fixedCode, planner });
      for (let i = 0; i < 10; i++) syncFresh(m);
      loseNode(m, "n0");
      loseNode(m, "n1");
      for (let i = 0; i < 6; i++) syncFresh(m);
      return { running: fences(m).filter((h) => h.phase === "Running").length, violations: m.violations };
    };
    expect(twoLost(planRollout)).toEqual({ running: 1, violations: [] });
    expect(twoLost(unbounded).violations.join("\n")).toMatch(
      /2 pets in a fence \(web-0, web-1\) > maxUnavailable 1/,
    );
  });
});
