/**
 * The planner simulator's invariant checker fed planted bad steps (issue 24, "Harnesses that
 * can fail"): a converged world, then one step a broken planner could emit, applied through
 * the same `applyStep` the simulations use. Each must be reported; the good step beside it
 * must not be.
 */
import type { V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { Labels, type PetSetSpecInput } from "../../../../src/api/index.js";
import type { DeletePodReason, Step } from "../../../../src/controller/planner/index.js";
import { makePetSet, SET } from "./fixtures.js";
import { applyStep, createWorld, runUntilConverged, setImage, updateSpec, type World } from "./simulate.js";

function converged(spec: Partial<PetSetSpecInput> = {}): World {
  const w = createWorld(makePetSet({ replicas: 3, ...spec }));
  expect(runUntilConverged(w)).toBeGreaterThanOrEqual(0);
  expect(w.violations).toEqual([]);
  return w;
}

const ref = (w: World, ordinal: number) => {
  const view = w.pods.get(`${SET}-${ordinal}`)?.view;
  if (!view) throw new Error(`no pod ${ordinal}`);
  return { podName: view.name, ordinal, uid: view.uid, resourceVersion: view.resourceVersion };
};
const del = (w: World, ordinal: number, reason: DeletePodReason): Step => ({
  kind: "deletePod",
  reason,
  ...ref(w, ordinal),
});
const newest = (w: World) => {
  const v = w.versions.at(-1);
  if (!v) throw new Error("no version");
  return v;
};
const patchTo = (w: World, ordinal: number, image: string, hash: string, version: number): Step => ({
  kind: "patchPodImages",
  ...ref(w, ordinal),
  images: [{ container: "app", image }],
  labels: { [Labels.hash]: hash, [Labels.version]: String(version) },
  annotations: {},
  toVersion: version,
});
function createAt(w: World, ordinal: number): Step {
  const v = newest(w);
  const pod: V1Pod = {
    metadata: {
      name: `${SET}-${ordinal}`,
      labels: {
        app: SET,
        [Labels.petSet]: SET,
        [Labels.version]: String(v.spec.version),
        [Labels.hash]: v.spec.hash,
        [Labels.podIndex]: String(ordinal),
      },
    },
    spec: { containers: [{ name: "app", image: "app:1" }] },
  };
  return { kind: "createPod", ordinal, version: v.spec.version, pod };
}

/** Applies `step` and returns what the checker reported for it. */
function verdict(w: World, step: Step): string[] {
  const before = w.violations.length;
  applyStep(w, step);
  return w.violations.slice(before);
}

describe("the simulator's invariant checker: one bad step per rule", () => {
  it("moves while paused", () => {
    const w = converged();
    updateSpec(w, (s) => {
      s.paused = true;
    });
    setImage(w, "app:2");
    expect(verdict(w, del(w, 2, "update")).join()).toContain("while paused");
  });

  it("deletes for update under OnDelete", () => {
    const w = converged({ updateStrategy: { type: "OnDelete" } });
    setImage(w, "app:2");
    expect(verdict(w, del(w, 2, "update")).join()).toContain("under OnDelete");
  });

  it("updates below the partition", () => {
    const w = converged({ updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 2 } } });
    setImage(w, "app:2");
    expect(verdict(w, del(w, 2, "update"))).toEqual([]);
    expect(verdict(w, del(w, 1, "update")).join()).toContain("below the partition");
  });

  it("creates a second pod for a pet, and a pod outside the ordinal range", () => {
    const w = converged();
    expect(verdict(w, createAt(w, 0)).join()).toContain("second pod for pet");
    expect(verdict(w, createAt(w, 5)).join()).toContain("outside the ordinal range");
  });

  it("creates a pet before the one below it is available (OrderedReady)", () => {
    const w = converged({ replicas: 1, podManagementPolicy: "OrderedReady" });
    updateSpec(w, (s) => {
      s.replicas = 3;
    });
    expect(verdict(w, createAt(w, 2)).join()).toContain("before pet 1 was available");
  });

  it("scales down a lower pet first (OrderedReady)", () => {
    const w = converged({ podManagementPolicy: "OrderedReady" });
    updateSpec(w, (s) => {
      s.replicas = 1;
    });
    expect(verdict(w, del(w, 1, "scale-down")).join()).toContain("not highest first");
  });

  it("updates a lower pet before a higher one", () => {
    const w = converged();
    setImage(w, "app:2");
    expect(verdict(w, del(w, 0, "update")).join()).toContain("before higher");
  });

  it("puts a third version live", () => {
    const w = converged({ updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 3 } } });
    setImage(w, "app:2");
    const v2 = newest(w);
    expect(verdict(w, patchTo(w, 2, "app:2", v2.spec.hash, 2))).toEqual([]);
    expect(verdict(w, patchTo(w, 1, "app:3", "third", 3)).join()).toContain("3 versions live");
  });

  it("takes more pets down than maxUnavailable", () => {
    const w = converged();
    setImage(w, "app:2");
    expect(verdict(w, del(w, 2, "update"))).toEqual([]);
    expect(verdict(w, del(w, 1, "update")).join()).toContain("2 pets unavailable > maxUnavailable 1");
  });

  it("writes with a stale precondition", () => {
    const w = converged();
    setImage(w, "app:2");
    const stale = { ...del(w, 2, "update"), resourceVersion: "0" } as Step;
    expect(verdict(w, stale).join()).toContain("stale precondition");
  });
});
