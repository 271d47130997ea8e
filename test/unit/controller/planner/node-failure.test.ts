/**
 * Lost nodes in the planner (src/controller/planner/node-failure.ts): table cases over plain
 * data, several syncs in a row with the hook records carried on the versions as the API would
 * keep them, and the fence's outcome written as the hook runner would.
 */
import { describe, expect, it } from "vitest";
import {
  type HookRecord,
  type PetSetSpecInput,
  type PetSetStatus,
  type PetSetVersion,
  PetsOnLostNodesCondition,
} from "../../../../src/api/index.js";
import { type Plan, planRollout } from "../../../../src/controller/planner/index.js";
import type { NodeView } from "../../../../src/controller/planner/node-failure.js";
import type { PodView } from "../../../../src/controller/planner/views.js";
import { makePetSet, makePod, makeVersion } from "./fixtures.js";
import { NOW, summary } from "./plan-helpers.js";

const claimTemplate = {
  metadata: { name: "data" },
  spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
};
const LOST_AT = NOW - 60_000;
const fence = (extra: Record<string, unknown> = {}) => ({
  policy: "Fence" as const,
  afterSeconds: 30,
  fence: { external: {}, timeoutSeconds: 60, ...extra },
});

/** A 3-pet set on nodes n0, n1, n2, planned sync after sync. */
class World {
  versions: PetSetVersion[] = [makeVersion(1, "app:1", { volumeClaimTemplates: [claimTemplate] })];
  pods: PodView[];
  nodes: NodeView[] | undefined = ["n0", "n1", "n2"].map((name) => ({ name, ready: "True", readySince: 0 }));
  status: Partial<PetSetStatus> | undefined;
  now = NOW;
  constructor(
    readonly spec: Partial<PetSetSpecInput> = {},
    pods?: PodView[],
  ) {
    const v1 = this.versions[0] as PetSetVersion;
    this.pods =
      pods ?? [0, 1, 2].map((o) => ({ ...makePod(o, v1, { targetVersion: 1 }), nodeName: `n${o}` }));
  }
  lose(node: string, ready: NodeView["ready"] = "Unknown", since = LOST_AT) {
    this.nodes = this.nodes?.map((n) => (n.name === node ? { name: node, ready, readySince: since } : n));
  }
  sync(): Plan {
    const plan = planRollout({
      petSet: makePetSet({ replicas: 3, volumeClaimTemplates: [claimTemplate], ...this.spec }, this.status),
      versions: this.versions,
      pods: this.pods,
      claims: [0, 1, 2].map((o) => ({
        name: `data-web-${o}`,
        uid: `c${o}`,
        resourceVersion: "1",
        labels: {},
      })),
      now: this.now,
      ...(this.nodes !== undefined ? { nodes: this.nodes } : {}),
    });
    for (const s of plan.steps) {
      if (s.kind !== "recordVersionStatus") continue;
      this.versions = this.versions.map((v) =>
        v.spec.version === s.version ? { ...v, status: s.status } : v,
      );
    }
    this.status = plan.status;
    return plan;
  }
  records(): HookRecord[] {
    return this.versions.flatMap((v) => v.status?.hooks ?? []).filter((r) => r.hook === "fence");
  }
  /** The hook runner's outcome write. */
  finish(id: string, phase: "Succeeded" | "Failed", message = "ok") {
    this.versions = this.versions.map((v) => ({
      ...v,
      ...(v.status !== undefined
        ? {
            status: {
              ...v.status,
              hooks: (v.status.hooks ?? []).map((r) =>
                r.id === id
                  ? {
                      ...r,
                      phase,
                      message,
                      finishedAt: new Date(this.now).toISOString(),
                      failures: r.failures + (phase === "Failed" ? 1 : 0),
                    }
                  : r,
              ),
            },
          }
        : {}),
    }));
  }
}

const condition = (p: Plan) => p.status.conditions.find((c) => c.type === PetsOnLostNodesCondition);
const forceDeletes = (p: Plan) => p.steps.filter((s) => s.kind === "forceDeleteLostPod");

describe("node failure: Manual (the default)", () => {
  it("issue 27: a pet on a lost node is named with its node and the command to fence it by hand; nothing is deleted", () => {
    const w = new World();
    w.lose("n1");
    const plan = w.sync();
    expect(condition(plan)).toMatchObject({ status: "True", reason: "ManualFenceRequired" });
    expect(condition(plan)?.message).toContain("web-1 on node n1 (NodeStatusUnknown for 60s, manual)");
    expect(condition(plan)?.message).toContain(
      "kubectl delete pod web-1 -n default --grace-period=0 --force",
    );
    expect(plan.lostPets?.map((p) => [p.pod, p.node, p.state])).toEqual([["web-1", "n1", "manual"]]);
    expect(plan.events.filter((e) => e.reason === "PetOnLostNode").map((e) => e.type)).toEqual(["Warning"]);
    expect(summary(plan)).toEqual([]);
    expect(w.records()).toEqual([]);
    // The stored condition names it: no second Warning.
    expect(w.sync().events.filter((e) => e.reason === "PetOnLostNode")).toEqual([]);
    // The node comes back: the condition goes.
    w.lose("n1", "True");
    const back = w.sync();
    expect(condition(back)).toBeUndefined();
    expect(back.lostPets).toBeUndefined();
  });

  it("a gone node and a NotReady node are lost; without a node list nothing is judged", () => {
    const w = new World();
    w.nodes = w.nodes?.filter((n) => n.name !== "n2");
    w.lose("n0", "False");
    expect(w.sync().lostPets?.map((p) => [p.pod, p.why])).toEqual([
      ["web-0", "NotReady"],
      ["web-2", "NodeGone"],
    ]);
    w.nodes = undefined;
    expect(condition(w.sync())).toBeUndefined();
  });
});

describe("node failure: Fence", () => {
  it("issue 27: the fence runs only after afterSeconds, and the pod is force-deleted only after it succeeded", () => {
    const w = new World({ nodeFailure: fence() });
    w.lose("n1", "Unknown", NOW - 10_000);
    const early = w.sync();
    expect(w.records()).toEqual([]);
    expect(early.lostPets?.[0]?.state).toBe("waiting");
    expect(early.requeueAfterMs).toBeLessThanOrEqual(20_000);
    w.now = NOW + 20_000;
    const started = w.sync();
    expect(w.records().map((r) => [r.id, r.phase, r.pod, r.handler])).toEqual([
      ["fence.web.1.uid11.n1", "Running", "web-1", "external"],
    ]);
    expect(started.status.hooks?.map((r) => r.id)).toEqual(["fence.web.1.uid11.n1"]);
    expect(forceDeletes(started)).toEqual([]);
    expect(condition(started)).toMatchObject({ reason: "Fencing" });
    // Still running: no second pod, no delete.
    expect(summary(w.sync())).toEqual([]);
    w.finish("fence.web.1.uid11.n1", "Succeeded");
    const moved = w.sync();
    expect(forceDeletes(moved)).toEqual([
      {
        kind: "forceDeleteLostPod",
        podName: "web-1",
        ordinal: 1,
        uid: "uid-1-1",
        resourceVersion: "1",
        node: "n1",
        lostSince: NOW - 10_000,
        taintOutOfService: false,
        fenceId: "fence.web.1.uid11.n1",
        claimNames: ["data-web-1"],
      },
    ]);
    // Nothing else touches the pet in that plan; it is created again once the pod is gone.
    expect(summary(moved)).toEqual(["forceDeleteLostPod"]);
    w.pods = w.pods.filter((p) => p.name !== "web-1");
    expect(summary(w.sync())).toEqual(["create web-1@v1"]);
  });

  it("issue 27: a failed fence leaves the pet where it is, with the condition saying so", () => {
    const w = new World({ nodeFailure: fence() });
    w.lose("n1");
    w.sync();
    w.finish("fence.web.1.uid11.n1", "Failed", "BMC unreachable");
    const plan = w.sync();
    expect(forceDeletes(plan)).toEqual([]);
    expect(summary(plan)).toEqual([]);
    expect(condition(plan)).toMatchObject({ status: "True", reason: "FenceFailed" });
    expect(condition(plan)?.message).toContain("web-1 on node n1");
    expect(w.records().map((r) => [r.phase, r.outcome])).toEqual([["Failed", "Paused"]]);
    expect(plan.status.conditions.find((c) => c.type === "Progressing")).toMatchObject({
      status: "False",
      reason: "HookFailed",
    });
  });

  it("issue 27: a hung fence times out and leaves the pet where it is", () => {
    const w = new World({ nodeFailure: fence() });
    w.lose("n1");
    w.sync();
    w.now = NOW + 61_000;
    const plan = w.sync();
    expect(w.records().map((r) => [r.phase, r.message])).toEqual([
      ["Failed", "timed out after 60s (timeoutSeconds)"],
    ]);
    expect(forceDeletes(plan)).toEqual([]);
  });

  it("issue 27: a node that comes back before the fence is left alone, and a later loss runs a new fence", () => {
    const w = new World({ nodeFailure: fence() });
    w.lose("n1");
    w.sync();
    w.lose("n1", "True");
    const back = w.sync();
    expect(w.records().map((r) => r.phase)).toEqual(["Cancelled"]);
    expect(summary(back)).toEqual([]);
    expect(back.events.map((e) => e.reason)).toContain("NodeReadyAgain");
    // Succeeded, then back before the delete: retired, nothing deleted.
    w.lose("n1", "Unknown", NOW);
    w.now = NOW + 31_000;
    w.sync();
    expect(w.records().map((r) => [r.phase, r.attempts])).toEqual([["Running", 2]]);
    w.finish("fence.web.1.uid11.n1", "Succeeded");
    w.lose("n1", "True");
    const plan = w.sync();
    expect(forceDeletes(plan)).toEqual([]);
    expect(w.records().map((r) => r.phase)).toEqual(["Cancelled"]);
  });

  it("issue 27: no more pets in a fence at once than maxUnavailable", () => {
    const w = new World({ nodeFailure: fence() });
    w.lose("n1");
    w.lose("n2");
    const plan = w.sync();
    expect(w.records().map((r) => r.pod)).toEqual(["web-1"]);
    expect(plan.lostPets?.map((p) => [p.pod, p.state])).toEqual([
      ["web-1", "fencing"],
      ["web-2", "over budget"],
    ]);
    // Succeeded but the pod not gone yet: still holds the slot.
    w.finish("fence.web.1.uid11.n1", "Succeeded");
    w.sync();
    expect(w.records().map((r) => r.pod)).toEqual(["web-1"]);
    w.pods = w.pods.filter((p) => p.name !== "web-1");
    w.sync();
    expect(w.records().map((r) => r.pod)).toEqual(["web-1", "web-2"]);
  });

  it("a pod already terminating on a lost node is fenced too (its graceful delete never ends)", () => {
    const v1 = makeVersion(1, "app:1", { volumeClaimTemplates: [claimTemplate] });
    const pods = [0, 1, 2].map((o) => ({
      ...makePod(o, v1, { terminating: o === 2, targetVersion: 1 }),
      nodeName: `n${o}`,
    }));
    const w = new World({ nodeFailure: fence() }, pods);
    w.lose("n2");
    w.sync();
    w.finish("fence.web.2.uid21.n2", "Succeeded");
    expect(forceDeletes(w.sync()).map((s) => s.podName)).toEqual(["web-2"]);
  });
});

describe("node failure: a lost leader", () => {
  const leaderPods = () => {
    const v1 = makeVersion(1, "app:1", { volumeClaimTemplates: [claimTemplate] });
    return [0, 1, 2].map((o) => {
      const p = makePod(o, v1, { targetVersion: 1 });
      return {
        ...p,
        labels: { ...p.labels, "petset.dev/role": o === 1 ? "leader" : "follower" },
        nodeName: `n${o}`,
      };
    });
  };
  const allRecords = (w: World) => w.versions.flatMap((v) => v.status?.hooks ?? []);

  it("issue 27: a non-exec switchover runs after the fence and before the move, handing the role to a follower", () => {
    const w = new World(
      { nodeFailure: fence(), roles: { switchover: { external: {}, timeoutSeconds: 60 } } },
      leaderPods(),
    );
    w.lose("n1");
    w.sync();
    w.finish("fence.web.1.uid11.n1", "Succeeded");
    const waiting = w.sync();
    expect(forceDeletes(waiting)).toEqual([]);
    const sw = allRecords(w).find((r) => r.hook === "switchover");
    expect([sw?.id, sw?.phase, sw?.candidate]).toEqual(["switchover.web.fence.1.uid11", "Running", "web-2"]);
    w.finish("switchover.web.fence.1.uid11", "Succeeded");
    expect(forceDeletes(w.sync()).map((s) => s.podName)).toEqual(["web-1"]);
  });

  it("issue 27: an exec switchover is skipped (it cannot run on a dead node): the fence is its precondition", () => {
    const w = new World(
      {
        nodeFailure: fence(),
        roles: { switchover: { exec: { command: ["step-down"] }, timeoutSeconds: 60 } },
      },
      leaderPods(),
    );
    w.lose("n1");
    w.sync();
    w.finish("fence.web.1.uid11.n1", "Succeeded");
    const plan = w.sync();
    expect(forceDeletes(plan).map((s) => s.podName)).toEqual(["web-1"]);
    expect(plan.events.filter((e) => e.reason === "HookSkipped").map((e) => e.object)).toEqual(["web-1"]);
    expect(allRecords(w).filter((r) => r.hook === "switchover")).toEqual([]);
  });
});

describe("node failure: a controller whose node cache has not synced", () => {
  it("issue 27: a restarted controller's first sync, before its node cache synced, does not cancel a running fence", () => {
    const w = new World({ nodeFailure: fence() });
    w.lose("n1");
    w.sync();
    expect(w.records().map((r) => [r.id, r.phase, r.attempts])).toEqual([
      ["fence.web.1.uid11.n1", "Running", 1],
    ]);
    // The controller restarts: its first sync runs without a node list.
    const nodes = w.nodes;
    w.nodes = undefined;
    w.sync();
    expect(w.records().map((r) => [r.phase, r.attempts])).toEqual([["Running", 1]]);
    // Synced: the same run goes on; acked, the pet moves.
    w.nodes = nodes;
    w.finish("fence.web.1.uid11.n1", "Succeeded");
    expect(w.sync().steps.map((s) => s.kind)).toContain("forceDeleteLostPod");
  });
});
