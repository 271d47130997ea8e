import { describe, expect, it } from "vitest";
import { Annotations, ProgressingReasons } from "../../../../src/api/index.js";
import { makePod, makeVersion, template } from "./fixtures.js";
import { at, moves, NOW, plan, policies, progressing, v1, v2, withPolicy } from "./plan-helpers.js";

describe.each(policies)(
  "planRollout: creation, scaling, rolling updates, podManagementPolicy %s",
  (policy) => {
    const ordered = policy === "OrderedReady";
    const base = withPolicy(policy);

    describe("rule 3: ordered creation and scale-down", () => {
      it("creates pets in ordinal order (OrderedReady one at a time)", () => {
        const p = plan(base({}));
        expect(moves(p)).toEqual(
          ordered ? ["create web-0@v1"] : ["create web-0@v1", "create web-1@v1", "create web-2@v1"],
        );
      });

      it("creates the next pet only once the previous one is Ready", () => {
        const p = plan(base({ pods: [makePod(0, v1, { ready: false })] }));
        expect(moves(p)).toEqual(ordered ? [] : ["create web-1@v1", "create web-2@v1"]);
      });

      it("starts at ordinals.start", () => {
        const p = plan(base({ spec: { ordinals: { start: 5 }, replicas: 2 } }));
        expect(moves(p)[0]).toBe("create web-5@v1");
      });

      it("waits for minReadySeconds before the next pet and asks to be woken then", () => {
        const p = plan(
          base({ spec: { minReadySeconds: 10 }, pods: [makePod(0, v1, { readySince: NOW - 4000 })] }),
        );
        expect(moves(p)).toEqual(ordered ? [] : ["create web-1@v1", "create web-2@v1"]);
        expect(p.requeueAfterMs).toBe(6000);
      });

      it("scales down from the highest ordinal (OrderedReady one at a time)", () => {
        const p = plan(base({ pods: at(v1, [0, 1, 2, 3, 4]) }));
        expect(moves(p)).toEqual(
          ordered
            ? ["delete web-4 (scale-down)"]
            : ["delete web-4 (scale-down)", "delete web-3 (scale-down)"],
        );
      });

      it("upstream Scaling ... halt if any stateful pod is unhealthy: OrderedReady scale-down halts while pets are unhealthy", () => {
        const unready = [0, 1, 2].map((i) => makePod(i, v1, { ready: false }));
        const p = plan(base({ spec: { replicas: 0 }, pods: unready }));
        expect(moves(p)).toEqual(
          ordered
            ? []
            : ["delete web-2 (scale-down)", "delete web-1 (scale-down)", "delete web-0 (scale-down)"],
        );
        // the lowest unhealthy condemned pod may go (upstream's firstUnhealthyPod)
        const lowest = plan(
          base({ spec: { replicas: 2 }, pods: [...at(v1, [0, 1]), makePod(2, v1, { ready: false })] }),
        );
        expect(moves(lowest)).toEqual(["delete web-2 (scale-down)"]);
      });

      it("never creates a second pod for a pet whose old pod is terminating", () => {
        const p = plan(base({ pods: [...at(v1, [0, 2]), makePod(1, v1, { terminating: true })] }));
        expect(moves(p)).toEqual([]);
      });

      it("recreates Failed pods", () => {
        const p = plan(
          base({ pods: [...at(v1, [0, 2]), makePod(1, v1, { ready: false, phase: "Failed" })] }),
        );
        expect(moves(p)).toEqual(["delete web-1 (recreate)"]);
      });
    });

    describe("rule 3: rolling updates", () => {
      it("updates from the highest ordinal down, one at a time by default", () => {
        const p = plan(
          base({
            versions: [v1, v2],
            status: { currentVersion: 1, updateVersion: 2 },
            pods: at(v1, [0, 1, 2]),
          }),
        );
        expect(moves(p)).toEqual(["delete web-2 (update)"]);
      });

      it("recreates the updated pet at the new version", () => {
        const p = plan(base({ versions: [v1, v2], status: { currentVersion: 1 }, pods: at(v1, [0, 1]) }));
        expect(moves(p)).toEqual(["create web-2@v2"]);
      });

      it("waits for the updated pet to be available before the next one", () => {
        const pods = [
          ...at(v1, [0, 1]),
          makePod(2, v2, { ready: false, createdAt: NOW - 1000, targetVersion: 2 }),
        ];
        const p = plan(base({ versions: [v1, v2], status: { currentVersion: 1 }, pods }));
        expect(moves(p)).toEqual([]);
      });

      it("takes up to maxUnavailable pets down at once", () => {
        const spec = { replicas: 4, updateStrategy: { rollingUpdate: { maxUnavailable: 2 } } };
        const p = plan(
          base({ spec, versions: [v1, v2], status: { currentVersion: 1 }, pods: at(v1, [0, 1, 2, 3]) }),
        );
        expect(moves(p)).toEqual(["delete web-3 (update)", "delete web-2 (update)"]);
      });

      it("counts pets that are already unavailable against maxUnavailable", () => {
        const spec = { replicas: 4, updateStrategy: { rollingUpdate: { maxUnavailable: "50%" } } };
        const pods = [
          ...at(v1, [0, 1, 2]),
          makePod(3, v2, { ready: false, createdAt: NOW - 1000, targetVersion: 2 }),
        ];
        const p = plan(base({ spec, versions: [v1, v2], status: { currentVersion: 1 }, pods }));
        expect(moves(p)).toEqual(ordered ? [] : ["delete web-2 (update)"]);
      });

      it("leaves pets below the partition at the current version", () => {
        const spec = { updateStrategy: { rollingUpdate: { partition: 2 } } };
        const pods = [...at(v1, [0, 1]), makePod(2, v2, { targetVersion: 2 })];
        const p = plan(base({ spec, versions: [v1, v2], status: { currentVersion: 1 }, pods }));
        expect(moves(p)).toEqual([]);
        expect(progressing(p)?.reason).toBe(ProgressingReasons.rolloutComplete);
        expect(p.status.currentVersion).toBe(1);
        expect(p.status.updatedReplicas).toBe(1);
      });

      it("creates missing pets below the partition at the current version", () => {
        const spec = { updateStrategy: { rollingUpdate: { partition: 2 } } };
        const p = plan(
          base({ spec, versions: [v1, v2], status: { currentVersion: 1 }, pods: [makePod(2, v2)] }),
        );
        expect(moves(p)[0]).toBe("create web-0@v1");
      });

      it("OnDelete never deletes for an update but creates missing pets at the new version", () => {
        const spec = { updateStrategy: { type: "OnDelete" as const } };
        const p = plan(
          base({ spec, versions: [v1, v2], status: { currentVersion: 1 }, pods: at(v1, [0, 2]) }),
        );
        expect(moves(p)).toEqual(["create web-1@v2"]);
        expect(progressing(p)?.reason).not.toBe(ProgressingReasons.progressDeadlineExceeded);
      });

      it("InPlaceIfPossible patches images when only images differ", () => {
        const spec = { updateStrategy: { rollingUpdate: { podUpdatePolicy: "InPlaceIfPossible" as const } } };
        const p = plan(
          base({ spec, versions: [v1, v2], status: { currentVersion: 1 }, pods: at(v1, [0, 1, 2]) }),
        );
        expect(moves(p)).toEqual(["patch web-2@v2"]);
        const step = p.steps.find((s) => s.kind === "patchPodImages");
        expect(step).toMatchObject({
          images: [{ container: "app", image: "app:2" }],
          labels: { "petset.dev/version": "2", "petset.dev/hash": v2.spec.hash },
          annotations: { [Annotations.generation]: "2", [Annotations.targetVersion]: "2" },
          uid: "uid-2-1",
          resourceVersion: "1",
        });
      });

      it("InPlaceIfPossible recreates when more than images change", () => {
        const v2env = makeVersion(2, "app:2", {
          template: template("app:2", { hostNetwork: true }),
        });
        const spec = { updateStrategy: { rollingUpdate: { podUpdatePolicy: "InPlaceIfPossible" as const } } };
        const p = plan(
          base({ spec, versions: [v1, v2env], status: { currentVersion: 1 }, pods: at(v1, [0, 1, 2]) }),
        );
        expect(moves(p)).toEqual(["delete web-2 (update)"]);
      });

      it("does not count an in-place patched pod as available until the kubelet runs the new image", () => {
        const spec = { updateStrategy: { rollingUpdate: { podUpdatePolicy: "InPlaceIfPossible" as const } } };
        const patched = {
          ...makePod(2, v2, { targetVersion: 2 }),
          containers: [{ name: "app", image: "app:2", runningImage: "app:1" }],
        };
        const p = plan(
          base({
            spec,
            versions: [v1, v2],
            status: { currentVersion: 1 },
            pods: [...at(v1, [0, 1]), patched],
          }),
        );
        expect(moves(p)).toEqual([]);
      });
    });
  },
);
