import { describe, expect, it } from "vitest";
import { ProgressingReasons } from "../../../../src/api/index.js";
import type { ClaimView } from "../../../../src/controller/planner/views.js";
import { makePod, makeVersion } from "./fixtures.js";
import {
  at,
  changes,
  moves,
  NOW,
  plan,
  policies,
  progressing,
  summary,
  v1,
  v2,
  v3,
  withPolicy,
} from "./plan-helpers.js";

describe.each(policies)(
  "planRollout: versions, broken rollouts, announcements, pause, claims, podManagementPolicy %s",
  (policy) => {
    const ordered = policy === "OrderedReady";
    const base = withPolicy(policy);

    describe("rule 1 and 2: versions", () => {
      it("relabels pods that already run a rollback's content, without restarting them", () => {
        const v3rollback = makeVersion(3, "app:1", { rollbackOf: 1 });
        const pods = [...at(v1, [0, 1]), makePod(2, v2, { targetVersion: 2 })];
        const p = plan(base({ versions: [v1, v2, v3rollback], status: { currentVersion: 1 }, pods }));
        // A rollback to the current content goes at once (it never makes a third version live).
        expect(moves(p)).toEqual(["relabel web-0@v3", "relabel web-1@v3", "delete web-2 (update)"]);
      });

      it("a newer version waits while the in-flight rollout is healthy", () => {
        const pods = [
          ...at(v1, [0]),
          makePod(1, v1, { targetVersion: 2 }),
          makePod(2, v2, { targetVersion: 2 }),
        ];
        const p = plan(
          base({ versions: [v1, v2, v3], status: { currentVersion: 1, updateVersion: 2 }, pods }),
        );
        expect(moves(p)).toEqual(["delete web-1 (update)"]);
        expect(p.events.map((e) => e.reason)).toContain("RolloutQueued");
        expect(p.status.updateVersion).toBe(3);
      });

      it("the queued version starts once the in-flight one is done", () => {
        const pods = at(v2, [0, 1, 2]);
        const p = plan(
          base({ versions: [v1, v2, v3], status: { currentVersion: 1, updateVersion: 3 }, pods }),
        );
        expect(moves(p)).toEqual(["delete web-2 (update)"]);
        expect(summary(p).filter((s) => s.startsWith("announce"))).toEqual([
          "announce web-0@v3",
          "announce web-1@v3",
        ]);
        expect(p.status.currentVersion).toBe(2);
      });

      it("pods of the in-flight version that are not Ready are replaced at once by the newest", () => {
        const broken = makePod(2, v2, {
          ready: false,
          failing: "CrashLoopBackOff",
          createdAt: NOW - 5000,
          targetVersion: 2,
        });
        const p = plan(
          base({
            versions: [v1, v2, v3],
            status: { currentVersion: 1, updateVersion: 2 },
            pods: [...at(v1, [0, 1]), broken],
          }),
        );
        expect(moves(p)).toEqual(["delete web-2 (replace-broken)"]);
        expect(p.events.map((e) => e.reason)).toEqual(
          expect.arrayContaining(["RolloutSuperseded", "ReplacingBrokenPod"]),
        );
        const next = plan(
          base({ versions: [v1, v2, v3], status: p.status, pods: at(v1, [0, 1], { targetVersion: 3 }) }),
        );
        expect(moves(next)).toEqual(["create web-2@v3"]);
      });

      it("never creates a third version: the hole waits while two versions are live", () => {
        const pods = [
          makePod(0, v1, { targetVersion: 3 }),
          makePod(1, v2, { targetVersion: 3, terminating: true }),
        ];
        const p = plan(base({ versions: [v1, v2, v3], status: { currentVersion: 1 }, pods }));
        expect(moves(p).filter((m) => m.startsWith("create"))).toEqual(ordered ? [] : ["create web-2@v1"]);
      });

      it("a given-up version's Ready pods go back to current before the newest rolls out", () => {
        const pods = [
          makePod(0, v1, { targetVersion: 3 }),
          makePod(1, v2, { targetVersion: 3 }),
          makePod(2, v2, { targetVersion: 3 }),
        ];
        const p = plan(base({ versions: [v1, v2, v3], status: { currentVersion: 1 }, pods }));
        expect(moves(p)).toEqual(["delete web-2 (update)"]);
        const next = plan(
          base({ versions: [v1, v2, v3], status: { currentVersion: 1 }, pods: pods.slice(0, 2) }),
        );
        expect(moves(next)).toEqual(["create web-2@v1"]);
      });
    });

    it("after a partitioned rollout, a newer version replaces the canary straight away", () => {
      const spec = { updateStrategy: { rollingUpdate: { partition: 2 } } };
      const status = { currentVersion: 1, updateVersion: 2 };
      const pods = [...at(v1, [0, 1]), makePod(2, v2, { targetVersion: 2 })];
      const p = plan(base({ spec, versions: [v1, v2, v3], status, pods }));
      expect(moves(p)).toEqual(["delete web-2 (update)"]);
      const next = plan(
        base({ spec, versions: [v1, v2, v3], status: p.status, pods: at(v1, [0, 1], { targetVersion: 3 }) }),
      );
      expect(moves(next)).toEqual(["create web-2@v3"]);
    });

    describe("rule 4: broken rollouts", () => {
      const brokenPods = [
        ...at(v1, [0, 1]),
        makePod(2, v2, { ready: false, createdAt: NOW - 700_000, targetVersion: 2 }),
      ];
      const settledV1 = { currentVersion: 1, updateVersion: 2, lastCompleteVersion: 1 };

      it("sets Progressing=False/ProgressDeadlineExceeded with a Warning after the deadline", () => {
        const p = plan(
          base({
            versions: [v1, makeVersion(2, "app:2", { createdAt: NOW - 700_000 })],
            status: settledV1,
            pods: brokenPods,
          }),
        );
        expect(progressing(p)).toMatchObject({
          status: "False",
          reason: ProgressingReasons.progressDeadlineExceeded,
        });
        expect(p.events).toContainEqual(
          expect.objectContaining({ type: "Warning", reason: "ProgressDeadlineExceeded" }),
        );
        expect(p.steps.some((s) => s.kind === "rollbackTo")).toBe(false);
      });

      it("is still progressing before the deadline and asks to be woken at it", () => {
        const pods = [
          ...at(v1, [0, 1]),
          makePod(2, v2, { ready: false, createdAt: NOW - 1000, targetVersion: 2 }),
        ];
        const p = plan(base({ versions: [v1, v2], status: settledV1, pods }));
        expect(progressing(p)?.status).toBe("True");
        // Woken first when the not-Ready pet reaches the 30 s unready limit (broken-pets.ts).
        expect(p.requeueAfterMs).toBe(29_000);
      });

      it("with autoRollback, rolls back to the last complete version", () => {
        const exceeded = {
          type: "Progressing",
          status: "False" as const,
          reason: ProgressingReasons.progressDeadlineExceeded,
          message: "",
          lastTransitionTime: new Date(NOW - 1000).toISOString(),
        };
        const p = plan(
          base({
            spec: { autoRollback: true },
            versions: [v1, makeVersion(2, "app:2", { createdAt: NOW - 700_000 })],
            status: { ...settledV1, conditions: [exceeded] },
            pods: brokenPods,
          }),
        );
        expect(changes(p)[0]).toMatchObject({ kind: "rollbackTo", version: 1, fromVersion: 2 });
        expect(progressing(p)).toMatchObject({ status: "False", reason: ProgressingReasons.rolledBack });
      });

      it("a rollback version replaces the broken pods at once and relabels the good ones", () => {
        const v3rollback = makeVersion(3, "app:1", { rollbackOf: 1, createdAt: NOW });
        const p = plan(base({ versions: [v1, v2, v3rollback], status: settledV1, pods: brokenPods }));
        expect(moves(p)).toEqual(["relabel web-0@v3", "relabel web-1@v3", "delete web-2 (replace-broken)"]);
      });
    });

    describe("rule 5 and pause", () => {
      it("announces the target version on every live pod when a rollout starts", () => {
        const p = plan(
          base({
            versions: [v1, v2],
            status: { currentVersion: 1, updateVersion: 1 },
            pods: at(v1, [0, 1, 2]),
          }),
        );
        expect(summary(p).filter((s) => s.startsWith("announce"))).toEqual([
          "announce web-0@v2",
          "announce web-1@v2",
        ]);
        expect(p.events.map((e) => `${e.reason}/${e.object}`)).toEqual(
          expect.arrayContaining(["RolloutStarted/petset", "TargetVersion/web-0", "TargetVersion/web-1"]),
        );
        const del = p.steps.find((s) => s.kind === "deletePod");
        expect(del).toMatchObject({
          podName: "web-2",
          uid: "uid-2-1",
          resourceVersion: "1",
          reason: "update",
        });
      });

      it("paused: nothing moves between versions, scaling still creates pets at the current version", () => {
        const p = plan(
          base({
            spec: { paused: true, replicas: 4 },
            versions: [v1, v2],
            status: { currentVersion: 1 },
            pods: at(v1, [0, 1, 2]),
          }),
        );
        expect(moves(p)).toEqual(["create web-3@v1"]);
        expect(progressing(p)).toMatchObject({ status: "Unknown", reason: ProgressingReasons.paused });
      });
    });

    describe("claims", () => {
      const vct = [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"] } }];
      const withClaims = makeVersion(1, "app:1", { volumeClaimTemplates: vct });
      const claim = (o: number): ClaimView => ({
        name: `data-web-${o}`,
        uid: `c${o}`,
        resourceVersion: "1",
        labels: {},
      });

      it("creates a pet's claims before its pod", () => {
        const p = plan(base({ spec: { replicas: 1 }, versions: [withClaims] }));
        expect(summary(p)).toEqual(["createClaim data-web-0", "create web-0@v1"]);
      });

      it("whenScaled=Delete deletes the claims of removed pets once their pod is gone", () => {
        const spec = { replicas: 1, persistentVolumeClaimRetentionPolicy: { whenScaled: "Delete" as const } };
        const pods = [
          makePod(0, withClaims, { targetVersion: 1 }),
          makePod(1, withClaims, { terminating: true }),
        ];
        const p = plan(base({ spec, versions: [withClaims], pods, claims: [claim(0), claim(1), claim(2)] }));
        expect(summary(p)).toEqual(["deleteClaim data-web-2 (whenScaled)"]);
      });

      it("Retain keeps claims", () => {
        const p = plan(
          base({
            spec: { replicas: 1 },
            versions: [withClaims],
            pods: at(withClaims, [0]),
            claims: [claim(0), claim(1)],
          }),
        );
        expect(summary(p)).toEqual([]);
      });
    });
  },
);
