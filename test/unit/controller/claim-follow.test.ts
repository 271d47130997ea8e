/**
 * Issue 26 (claims follow versions): the thin parts around the planner: the claim patch the
 * adapter sends, the StorageClass view, and what the plan says about a failed resize and a
 * standing refusal (Event once, not on every sync).
 */
import { describe, expect, it } from "vitest";
import { ConditionTypes, ProgressingReasons } from "../../../src/api/index.js";
import { claimFollowPatch } from "../../../src/controller/claim-control.js";
import { storageClassView } from "../../../src/controller/storage-class-watch.js";
import { makePetSet } from "./planner/fixtures.js";
import { createWorld, runUntilConverged, sync, tick, updateSpec, type World } from "./planner/simulate.js";

const data = (storage: string) => [
  {
    metadata: { name: "data" },
    spec: {
      accessModes: ["ReadWriteOnce"],
      storageClassName: "standard",
      resources: { requests: { storage } },
    },
  },
];

function world(): World {
  const w = createWorld(
    makePetSet({
      replicas: 2,
      volumeClaimUpdatePolicy: "InPlace",
      volumeClaimTemplates: data("1Gi") as never,
    }),
  );
  w.storageClasses = [{ name: "standard", allowVolumeExpansion: true, isDefault: true }];
  expect(runUntilConverged(w)).toBeGreaterThan(0);
  return w;
}

describe("issue 26: claim patch, StorageClass view, failure words", () => {
  it.each([
    [
      "growth",
      { uid: "u", resourceVersion: "7", storage: "2Gi", labels: {}, annotations: {} },
      { metadata: { uid: "u", resourceVersion: "7" }, spec: { resources: { requests: { storage: "2Gi" } } } },
    ],
    [
      "labels only",
      { uid: "u", resourceVersion: "7", labels: { tier: "gold" }, annotations: {} },
      { metadata: { uid: "u", resourceVersion: "7", labels: { tier: "gold" } } },
    ],
    [
      "volumeAttributesClassName and an annotation",
      {
        uid: "u",
        resourceVersion: "7",
        labels: {},
        annotations: { a: "b" },
        volumeAttributesClassName: "gold",
      },
      {
        metadata: { uid: "u", resourceVersion: "7", annotations: { a: "b" } },
        spec: { volumeAttributesClassName: "gold" },
      },
    ],
  ])("the claim patch: %s (preconditions always, nothing else of the spec)", (_name, step, patch) => {
    expect(claimFollowPatch(step)).toEqual(patch);
  });

  it.each([
    [{ metadata: { name: "a" } }, { name: "a", allowVolumeExpansion: false, isDefault: false }],
    [
      {
        metadata: { name: "b", annotations: { "storageclass.kubernetes.io/is-default-class": "true" } },
        allowVolumeExpansion: true,
      },
      { name: "b", allowVolumeExpansion: true, isDefault: true },
    ],
  ])("StorageClass view %#", (sc, view) => {
    expect(storageClassView({ provisioner: "x", ...sc })).toEqual(view);
  });

  it("issue 26: a failed resize is named in Progressing while the pet waits", () => {
    const w = world();
    w.resizeHangs = true;
    updateSpec(w, (s) => {
      s.volumeClaimTemplates = data("2Gi") as never;
    });
    sync(w);
    tick(w);
    const claim = w.claims.get("data-web-1");
    expect(claim?.storageRequest).toBe("2Gi");
    if (claim !== undefined)
      w.claims.set("data-web-1", { ...claim, resizeError: "ControllerResizeError: no space left in pool" });
    sync(w);
    const progressing = w.petSet.status?.conditions.find((c) => c.type === ConditionTypes.progressing);
    expect(progressing?.message).toContain(
      "claim data-web-1: resize failed: ControllerResizeError: no space left in pool",
    );
    expect(w.petSet.status?.updatedReplicas).toBe(0);
  });

  it("issue 26: a standing refusal is one Warning Event, not one per sync", () => {
    const w = world();
    updateSpec(w, (s) => {
      s.volumeClaimTemplates = data("512Mi") as never;
    });
    const events = [];
    for (let i = 0; i < 5; i++) {
      events.push(...sync(w).events.filter((e) => e.reason === "ClaimUpdateRefused"));
      tick(w);
    }
    expect(events).toHaveLength(1);
    expect(events[0]?.type).toBe("Warning");
    const progressing = w.petSet.status?.conditions.find((c) => c.type === ConditionTypes.progressing);
    expect(progressing?.reason).toBe(ProgressingReasons.claimUpdateRefused);
  });
});
