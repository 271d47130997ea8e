/**
 * Claims follow versions (claim-updates.ts, issue 26): tables over planRollout, scenarios on the
 * planner's simulated world, and a property test with the world's invariants (simulate.ts:
 * no pet counted at a version with an old claim, no claim patched below the partition, no
 * shrink attempted).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ProgressingReasons } from "../../../../src/api/index.js";
import { formatBytes, storageBytes } from "../../../../src/controller/planner/claim-template.js";
import type { PatchClaimStep } from "../../../../src/controller/planner/index.js";
import { makePetSet, template } from "./fixtures.js";
import {
  converged,
  createWorld,
  progressingOf,
  runUntilConverged,
  setImage,
  sync,
  tick,
  updateSpec,
  type World,
} from "./simulate.js";

const claimTemplate = (name: string, storage: string, extra: Record<string, unknown> = {}) => ({
  metadata: { name, ...(extra.labels !== undefined ? { labels: extra.labels } : {}) },
  spec: {
    accessModes: ["ReadWriteOnce"],
    storageClassName: "standard",
    resources: { requests: { storage } },
    ...(extra.spec as Record<string, unknown> | undefined),
  },
});

const expandable = [{ name: "standard", allowVolumeExpansion: true, isDefault: true }];

function world(spec: Parameters<typeof makePetSet>[0] = {}, classes = expandable): World {
  const w = createWorld(
    makePetSet({
      replicas: 3,
      volumeClaimUpdatePolicy: "InPlace",
      volumeClaimTemplates: [claimTemplate("data", "1Gi")],
      ...spec,
    }),
  );
  w.storageClasses = classes;
  expect(runUntilConverged(w)).toBeGreaterThan(0);
  return w;
}

const setClaims = (w: World, templates: unknown[]) =>
  updateSpec(w, (s) => {
    s.volumeClaimTemplates = templates as typeof s.volumeClaimTemplates;
  });
const uids = (w: World) => [...w.pods.values()].map((p) => p.view.uid).sort();
const claimPatches = (w: World) =>
  w.stepsApplied.filter((s): s is PatchClaimStep => s.kind === "patchClaim").map((s) => s.claimName);
const request = (w: World, name: string) => w.claims.get(name)?.storageRequest;

describe("issue 26: claims follow versions (volumeClaimUpdatePolicy InPlace)", () => {
  it("issue 26: growing a claim template resizes every pet's claim in rollout order, no pod restarted", () => {
    const w = world();
    const before = uids(w);
    setClaims(w, [claimTemplate("data", "2Gi")]);
    expect(runUntilConverged(w)).toBeGreaterThan(0);
    sync(w);
    expect(claimPatches(w)).toEqual(["data-web-2", "data-web-1", "data-web-0"]);
    expect(uids(w)).toEqual(before);
    for (const o of [0, 1, 2]) expect(request(w, `data-web-${o}`)).toBe("2Gi");
    expect(w.petSet.status?.updatedReplicas).toBe(3);
    expect(w.petSet.status?.volumeClaimTemplates).toEqual([
      {
        name: "data",
        compatibleReplicas: 3,
        updatingReplicas: 0,
        overSizedReplicas: 0,
        totalCapacity: "6Gi",
      },
    ]);
    expect(w.violations).toEqual([]);
  });

  it("issue 26: a pet is relabelled only once its claim's capacity reached the request", () => {
    const w = world();
    w.resizeHangs = true;
    setClaims(w, [claimTemplate("data", "2Gi")]);
    for (let i = 0; i < 5; i++) {
      sync(w);
      tick(w);
    }
    expect(claimPatches(w)).toEqual(["data-web-2"]);
    expect(w.petSet.status?.updatedReplicas).toBe(0);
    expect(w.petSet.status?.volumeClaimTemplates?.[0]).toMatchObject({
      compatibleReplicas: 0,
      updatingReplicas: 1,
    });
    w.resizeHangs = false;
    expect(runUntilConverged(w)).toBeGreaterThan(0);
    expect(w.violations).toEqual([]);
  });

  it("issue 26: a hanging resize counts toward the progress deadline", () => {
    const w = world({ progressDeadlineSeconds: 5 });
    w.resizeHangs = true;
    setClaims(w, [claimTemplate("data", "2Gi")]);
    for (let i = 0; i < 10; i++) {
      sync(w);
      tick(w);
    }
    expect(progressingOf(w)?.reason).toBe(ProgressingReasons.progressDeadlineExceeded);
  });

  it("issue 26: a mixed change (image + storage) resizes before recreating", () => {
    const w = world();
    updateSpec(w, (s) => {
      s.template = template("app:2");
      s.volumeClaimTemplates = [claimTemplate("data", "2Gi")] as typeof s.volumeClaimTemplates;
    });
    expect(runUntilConverged(w)).toBeGreaterThan(0);
    const order = w.stepsApplied
      .filter((s) => s.kind === "patchClaim" || (s.kind === "deletePod" && s.reason === "update"))
      .map((s) =>
        s.kind === "patchClaim" ? `patch ${s.claimName}` : `delete ${"podName" in s ? s.podName : ""}`,
      );
    expect(order).toEqual([
      "patch data-web-2",
      "delete web-2",
      "patch data-web-1",
      "delete web-1",
      "patch data-web-0",
      "delete web-0",
    ]);
    expect(w.violations).toEqual([]);
  });

  it("issue 26: a claim template added reaches every pet with its new pod", () => {
    const w = world();
    setClaims(w, [claimTemplate("data", "1Gi"), claimTemplate("logs", "1Gi")]);
    expect(runUntilConverged(w)).toBeGreaterThan(0);
    for (const o of [0, 1, 2]) expect(w.claims.has(`logs-web-${o}`)).toBe(true);
    expect(w.violations).toEqual([]);
  });

  it("issue 26: labels of the template follow to existing claims", () => {
    const w = world();
    setClaims(w, [claimTemplate("data", "1Gi", { labels: { tier: "gold" } })]);
    expect(runUntilConverged(w)).toBeGreaterThan(0);
    for (const o of [0, 1, 2]) expect(w.claims.get(`data-web-${o}`)?.labels.tier).toBe("gold");
    expect(w.violations).toEqual([]);
  });

  it.each([
    [
      "a shrink",
      [claimTemplate("data", "512Mi")],
      expandable,
      "resources.requests.storage: a claim cannot shrink",
    ],
    [
      "a class change",
      [claimTemplate("data", "1Gi", { spec: { storageClassName: "fast" } })],
      expandable,
      "storageClassName",
    ],
    [
      "an access-mode change",
      [claimTemplate("data", "1Gi", { spec: { accessModes: ["ReadWriteMany"] } })],
      expandable,
      "accessModes",
    ],
    [
      "growth on a class without expansion",
      [claimTemplate("data", "2Gi")],
      [{ name: "standard", allowVolumeExpansion: false, isDefault: true }],
      "allowVolumeExpansion false",
    ],
  ])(
    "issue 26: %s is refused with ClaimUpdateRefused and touches nothing",
    (_name, templates, classes, words) => {
      const w = world({ autoRollback: true, progressDeadlineSeconds: 5 }, classes);
      const before = uids(w);
      const applied = w.stepsApplied.length;
      setClaims(w, templates);
      for (let i = 0; i < 20; i++) {
        sync(w);
        tick(w);
      }
      const after = w.stepsApplied.slice(applied);
      expect(
        after.filter((s) => s.kind === "patchClaim" || s.kind === "deletePod" || s.kind === "rollbackTo"),
      ).toEqual([]);
      expect(uids(w)).toEqual(before);
      const p = progressingOf(w);
      expect(p).toMatchObject({ status: "False", reason: ProgressingReasons.claimUpdateRefused });
      expect(p?.message).toContain("claim data-web-2");
      expect(p?.message).toContain(words);
      expect(p?.message).toContain("kubectl petset replace web-2 --claims recreate");
      expect(w.violations).toEqual([]);
    },
  );

  it("issue 26: a rollback to a smaller template is not refused: claims stay larger (overSized)", () => {
    const w = world();
    setClaims(w, [claimTemplate("data", "2Gi")]);
    expect(runUntilConverged(w)).toBeGreaterThan(0);
    setClaims(w, [claimTemplate("data", "1Gi")]);
    expect(runUntilConverged(w)).toBeGreaterThan(0);
    sync(w);
    for (const o of [0, 1, 2]) expect(request(w, `data-web-${o}`)).toBe("2Gi");
    expect(w.petSet.status?.volumeClaimTemplates?.[0]).toMatchObject({
      overSizedReplicas: 3,
      compatibleReplicas: 3,
    });
    expect(w.violations).toEqual([]);
  });

  it("issue 26: a partition keeps claims below it untouched", () => {
    const w = world({ updateStrategy: { rollingUpdate: { partition: 2 } } });
    setClaims(w, [claimTemplate("data", "2Gi")]);
    for (let i = 0; i < 20; i++) {
      sync(w);
      tick(w);
    }
    expect(claimPatches(w)).toEqual(["data-web-2"]);
    expect(w.violations).toEqual([]);
  });

  it("issue 26: under podUpdatePolicy InPlaceOnly a mixed change touches no claim (the move is refused); storage-only goes on", () => {
    const w = world({ updateStrategy: { rollingUpdate: { podUpdatePolicy: "InPlaceOnly" } } });
    const before = uids(w);
    updateSpec(w, (s) => {
      s.template = template("app:2", { hostNetwork: true });
      s.volumeClaimTemplates = [claimTemplate("data", "2Gi")] as typeof s.volumeClaimTemplates;
    });
    for (let i = 0; i < 10; i++) {
      sync(w);
      tick(w);
    }
    expect(claimPatches(w)).toEqual([]);
    expect(uids(w)).toEqual(before);
    updateSpec(w, (s) => {
      s.template = template("app:1");
    });
    expect(runUntilConverged(w)).toBeGreaterThan(0);
    sync(w);
    expect(uids(w)).toEqual(before);
    expect(claimPatches(w)).toEqual(["data-web-2", "data-web-1", "data-web-0"]);
    expect(w.violations).toEqual([]);
  });

  it("OnClaimDelete (the default) leaves existing claims alone", () => {
    const w = world({ volumeClaimUpdatePolicy: "OnClaimDelete" });
    setClaims(w, [claimTemplate("data", "2Gi")]);
    expect(runUntilConverged(w)).toBeGreaterThan(0);
    expect(claimPatches(w)).toEqual([]);
    expect(request(w, "data-web-0")).toBe("1Gi");
  });

  it.each([
    ["1Gi", 1n << 30n, "1Gi"],
    ["1536Mi", 1536n << 20n, "1536Mi"],
    ["1G", 1_000_000_000n, "1000000000"],
    ["0.5", 1n, "1"],
  ])("storageBytes(%s) and formatBytes", (q, bytes, formatted) => {
    expect(storageBytes(q)).toBe(bytes);
    expect(formatBytes(bytes)).toBe(formatted);
  });
});

type Action =
  | { kind: "storage"; size: string }
  | { kind: "image"; image: string }
  | { kind: "partition"; partition: number }
  | { kind: "addLogs" }
  | { kind: "wait"; ticks: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .constantFrom("512Mi", "1Gi", "2Gi", "3Gi")
      .map((size) => ({ kind: "storage" as const, size })),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom("app:1", "app:2", "app:3").map((image) => ({ kind: "image" as const, image })),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0, max: 3 }).map((partition) => ({ kind: "partition" as const, partition })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "addLogs" as const }) },
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 6 }).map((ticks) => ({ kind: "wait" as const, ticks })) },
);

describe("issue 26: property: claims follow versions", () => {
  it("no pet counted updated with an old claim; no claim patched below the partition; no shrink attempted", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("OrderedReady", "Parallel"),
        fc.array(action, { minLength: 1, maxLength: 15 }),
        (policy, actions) => {
          const w = world({ podManagementPolicy: policy });
          let logs = false;
          let size = "1Gi";
          for (const a of actions) {
            if (a.kind === "storage") size = a.size;
            if (a.kind === "addLogs") logs = true;
            if (a.kind === "storage" || a.kind === "addLogs")
              setClaims(w, [claimTemplate("data", size), ...(logs ? [claimTemplate("logs", "1Gi")] : [])]);
            if (a.kind === "image") setImage(w, a.image);
            if (a.kind === "partition")
              updateSpec(w, (s) => {
                s.updateStrategy = {
                  ...s.updateStrategy,
                  rollingUpdate: { ...s.updateStrategy.rollingUpdate!, partition: a.partition },
                };
              });
            for (let i = 0; i < (a.kind === "wait" ? a.ticks : 1); i++) {
              sync(w);
              tick(w);
            }
          }
          sync(w);
          expect(w.violations).toEqual([]);
          void converged;
        },
      ),
      { numRuns: 60 },
    );
  });
});
