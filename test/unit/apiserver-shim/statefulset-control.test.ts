/**
 * The embedded StatefulSet controller's decisions (statefulset-control.ts), table-style: a
 * world of plain objects, the planner's steps applied to it by a tiny in-test API and kubelet,
 * each scenario run under both pod-management policies where the policy does not matter, with
 * invariants checked after every pass (no two pods per ordinal, no pod of another controller
 * touched, OrderedReady never has two pods starting at once).
 */
import { describe, expect, it } from "vitest";
import {
  planStatefulSet,
  type StatefulSetPlan,
} from "../../../src/apiserver-shim/controllers/statefulset-control.js";
import { goMapJson, revisionHash } from "../../../src/apiserver-shim/controllers/statefulset-revision.js";
import type { KubeObject } from "../../../src/apiserver-shim/types.js";

type Obj = Record<string, unknown>;
const T0 = Date.parse("2026-01-01T00:00:00Z");

interface World {
  set: KubeObject;
  pods: KubeObject[];
  revisions: KubeObject[];
  claims: KubeObject[];
  now: number;
  uids: number;
  log: string[];
}

function statefulSet(spec: Obj = {}): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: "web", namespace: "ns", uid: "set-uid", generation: 1 },
    spec: {
      replicas: 3,
      serviceName: "web",
      podManagementPolicy: "OrderedReady",
      selector: { matchLabels: { app: "web" } },
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } },
      revisionHistoryLimit: 10,
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain" },
      template: {
        metadata: { labels: { app: "web" } },
        spec: { containers: [{ name: "c", image: "nginx:1" }] },
      },
      ...spec,
    },
    status: {},
  };
}

const world = (set: KubeObject, pods: KubeObject[] = []): World => ({
  set,
  pods,
  revisions: [],
  claims: [],
  now: T0,
  uids: 0,
  log: [],
});

const spec = (w: World) => w.set.spec as Obj;
const names = (objs: KubeObject[]) => objs.map((o) => o.metadata.name).sort();
const label = (o: KubeObject, k: string) => o.metadata.labels?.[k];

function patchSpec(w: World, change: Obj): void {
  w.set = { ...w.set, metadata: { ...w.set.metadata, generation: (w.set.metadata.generation ?? 0) + 1 } };
  w.set.spec = { ...spec(w), ...change };
}

function setImage(w: World, image: string): void {
  patchSpec(w, {
    template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image }] } },
  });
}

/** The steps as the API would apply them (deletes are immediate: no grace period). */
function apply(w: World, plan: StatefulSetPlan): void {
  const uid = () => `uid-${++w.uids}`;
  const find = (list: KubeObject[], name: string) => list.find((o) => o.metadata.name === name)!;
  const created = (o: KubeObject) => ({
    ...structuredClone(o),
    metadata: {
      ...structuredClone(o.metadata),
      uid: uid(),
      creationTimestamp: new Date(w.now).toISOString(),
    },
  });
  for (const step of plan.steps) {
    w.log.push(`${step.kind} ${"name" in step ? step.name : ""}`.trim());
    switch (step.kind) {
      case "createPod":
        for (const c of step.claims)
          if (!w.claims.some((x) => x.metadata.name === c.metadata.name)) w.claims.push(created(c));
        w.pods.push({ ...created(step.pod), status: { phase: "Pending" } });
        w.log[w.log.length - 1] += ` ${step.pod.metadata.name}`;
        break;
      case "createClaims":
        for (const c of step.claims) w.claims.push(created(c));
        break;
      case "createRevision":
        w.revisions.push(created(step.revision));
        break;
      case "deletePod":
        w.pods = w.pods.filter((p) => p.metadata.uid !== step.uid);
        break;
      case "deleteRevision":
        w.revisions = w.revisions.filter((r) => r.metadata.uid !== step.uid);
        break;
      case "renumberRevision":
        find(w.revisions, step.name).revision = step.revision;
        break;
      case "adoptPod":
      case "adoptRevision": {
        const o = find(step.kind === "adoptPod" ? w.pods : w.revisions, step.name);
        o.metadata.ownerReferences = [
          {
            apiVersion: "apps/v1",
            kind: "StatefulSet",
            name: "web",
            uid: "set-uid",
            controller: true,
            blockOwnerDeletion: true,
          },
        ];
        break;
      }
      case "releasePod":
        delete find(w.pods, step.name).metadata.ownerReferences;
        break;
      case "labelPod": {
        const p = find(w.pods, step.name);
        p.metadata.labels = { ...p.metadata.labels, ...step.labels };
        break;
      }
      case "setClaimOwners":
        find(w.claims, step.name).metadata.ownerReferences = step.ownerReferences;
        break;
    }
  }
  if (plan.status) w.set = { ...w.set, status: plan.status };
}

/** The simulated kubelet: every Pending pod starts and becomes Ready now. */
function kubelet(w: World, except: string[] = []): void {
  for (const p of w.pods)
    if ((p.status as Obj).phase === "Pending" && !except.includes(p.metadata.name!))
      p.status = {
        phase: "Running",
        conditions: [{ type: "Ready", status: "True", lastTransitionTime: new Date(w.now).toISOString() }],
      };
}

function pass(w: World): StatefulSetPlan {
  const plan = planStatefulSet({
    set: w.set,
    pods: w.pods,
    revisions: w.revisions,
    claims: w.claims,
    nowMs: w.now,
  });
  apply(w, plan);
  const owned = w.pods.filter((p) => p.metadata.ownerReferences?.some((r) => r.uid === "set-uid"));
  expect(new Set(owned.map((p) => p.metadata.name)).size).toBe(owned.length);
  if (spec(w).podManagementPolicy === "OrderedReady")
    expect(w.pods.filter((p) => (p.status as Obj).phase === "Pending").length).toBeLessThanOrEqual(1);
  return plan;
}

/** Passes with the kubelet running until nothing changes. */
function settle(w: World, opts: { kubelet?: boolean } = {}): void {
  for (let i = 0; i < 60; i++) {
    const plan = pass(w);
    if (opts.kubelet !== false) kubelet(w);
    if (plan.steps.length === 0 && plan.status === undefined) return;
  }
  throw new Error(`did not settle: ${w.log.slice(-10).join("; ")}`);
}

const status = (w: World) => w.set.status as Obj;
const POLICIES = ["OrderedReady", "Parallel"] as const;

describe("revision hash", () => {
  it("is kube's HashControllerRevision (FNV-1 32 over data + collision count, safe-encoded)", () => {
    // Printed by Go: fnv.New32() over the bytes and "0", rand.SafeEncodeString(fmt.Sprint(sum)).
    const data = { spec: { template: { metadata: { labels: { app: "web" } }, $patch: "replace" } } };
    expect(goMapJson(data)).toBe(
      '{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"web"}}}}}',
    );
    expect(revisionHash(goMapJson(data), 0)).toBe("7c75489b6c");
  });
});

describe("planStatefulSet", () => {
  it("OrderedReady creates web-0 first and waits for it to be Running and Ready before web-1", () => {
    const w = world(statefulSet());
    pass(w);
    expect(names(w.pods)).toEqual(["web-0"]);
    pass(w);
    expect(names(w.pods)).toEqual(["web-0"]);
    kubelet(w);
    pass(w);
    expect(names(w.pods)).toEqual(["web-0", "web-1"]);
  });

  it("Parallel creates every pod in one pass", () => {
    const w = world(statefulSet({ podManagementPolicy: "Parallel" }));
    pass(w);
    expect(names(w.pods)).toEqual(["web-0", "web-1", "web-2"]);
  });

  for (const policy of POLICIES)
    it(`${policy}: pods carry the identity labels, hostname, subdomain and claim volumes; status is complete`, () => {
      const w = world(
        statefulSet({
          podManagementPolicy: policy,
          volumeClaimTemplates: [
            {
              metadata: { name: "data", labels: { tier: "db" } },
              spec: { resources: { requests: { storage: "1Gi" } } },
            },
          ],
        }),
      );
      settle(w);
      const rev = w.revisions[0]!;
      expect(rev.metadata.name).toBe(`web-${label(rev, "controller.kubernetes.io/hash")}`);
      expect(rev.revision).toBe(1);
      const pod = w.pods.find((p) => p.metadata.name === "web-1")!;
      expect(pod.metadata.labels).toEqual({
        app: "web",
        "statefulset.kubernetes.io/pod-name": "web-1",
        "apps.kubernetes.io/pod-index": "1",
        "controller-revision-hash": rev.metadata.name,
      });
      expect(pod.metadata.generateName).toBe("web-");
      expect(pod.spec).toMatchObject({
        hostname: "web-1",
        subdomain: "web",
        volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data-web-1" } }],
      });
      expect(names(w.claims)).toEqual(["data-web-0", "data-web-1", "data-web-2"]);
      expect(w.claims[0]!.metadata.labels).toEqual({ tier: "db", app: "web" });
      expect(w.claims[0]!.metadata.ownerReferences).toBeUndefined();
      expect(status(w)).toEqual({
        observedGeneration: 1,
        replicas: 3,
        readyReplicas: 3,
        availableReplicas: 3,
        currentReplicas: 3,
        updatedReplicas: 3,
        currentRevision: rev.metadata.name,
        updateRevision: rev.metadata.name,
        collisionCount: 0,
      });
    });

  for (const policy of POLICIES)
    it(`${policy}: a RollingUpdate replaces pods from the highest ordinal, one at a time, then makes the update current`, () => {
      const w = world(statefulSet({ podManagementPolicy: policy }));
      settle(w);
      const first = w.revisions[0]!.metadata.name;
      setImage(w, "nginx:2");
      w.log = [];
      settle(w);
      expect(w.log.filter((l) => l.startsWith("deletePod"))).toEqual([
        "deletePod web-2",
        "deletePod web-1",
        "deletePod web-0",
      ]);
      const second = w.revisions.find((r) => r.revision === 2)!.metadata.name;
      expect(second).not.toBe(first);
      expect(w.pods.every((p) => label(p, "controller-revision-hash") === second)).toBe(true);
      expect(status(w)).toMatchObject({
        currentRevision: second,
        updateRevision: second,
        updatedReplicas: 3,
        currentReplicas: 3,
        observedGeneration: 2,
      });
    });

  it("a partition keeps ordinals below it on the current revision", () => {
    const w = world(statefulSet());
    settle(w);
    const first = w.revisions[0]!.metadata.name;
    patchSpec(w, { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 2 } } });
    setImage(w, "nginx:2");
    settle(w);
    const second = w.revisions.find((r) => r.revision === 2)!.metadata.name;
    expect(w.pods.map((p) => [p.metadata.name, label(p, "controller-revision-hash")])).toEqual([
      ["web-0", first],
      ["web-1", first],
      ["web-2", second],
    ]);
    expect(status(w)).toMatchObject({
      currentRevision: first,
      updateRevision: second,
      currentReplicas: 2,
      updatedReplicas: 1,
    });
  });

  it("OnDelete replaces nothing; a pod deleted by hand comes back on the update revision", () => {
    const w = world(statefulSet({ updateStrategy: { type: "OnDelete" } }));
    settle(w);
    setImage(w, "nginx:2");
    settle(w);
    expect(w.log.some((l) => l.startsWith("deletePod"))).toBe(false);
    expect(status(w)).toMatchObject({ updatedReplicas: 0, currentReplicas: 3 });
    w.pods = w.pods.filter((p) => p.metadata.name !== "web-1");
    settle(w);
    const second = w.revisions.find((r) => r.revision === 2)!.metadata.name;
    expect(label(w.pods.find((p) => p.metadata.name === "web-1")!, "controller-revision-hash")).toBe(second);
    expect(status(w)).toMatchObject({ updatedReplicas: 1, currentReplicas: 2 });
  });

  it("OrderedReady scales down from the highest ordinal, one pod per pass", () => {
    const w = world(statefulSet());
    settle(w);
    patchSpec(w, { replicas: 1 });
    const plan = pass(w);
    expect(plan.steps.filter((s) => s.kind === "deletePod").map((s) => "name" in s && s.name)).toEqual([
      "web-2",
    ]);
    settle(w);
    expect(names(w.pods)).toEqual(["web-0"]);
    expect(status(w)).toMatchObject({ replicas: 1, readyReplicas: 1 });
  });

  it("rolling back to an earlier template renumbers its revision instead of making a new one", () => {
    const w = world(statefulSet({ podManagementPolicy: "Parallel" }));
    settle(w);
    const first = w.revisions[0]!.metadata.name;
    setImage(w, "nginx:2");
    settle(w);
    setImage(w, "nginx:1");
    settle(w);
    expect(w.revisions.map((r) => [r.metadata.name, r.revision]).sort()).toContainEqual([first, 3]);
    expect(w.revisions).toHaveLength(2);
    expect(status(w)).toMatchObject({ currentRevision: first, updateRevision: first });
  });

  it("revisionHistoryLimit deletes the oldest revision no pod uses", () => {
    const w = world(statefulSet({ podManagementPolicy: "Parallel", revisionHistoryLimit: 0 }));
    settle(w);
    setImage(w, "nginx:2");
    settle(w);
    setImage(w, "nginx:3");
    settle(w);
    expect(w.revisions.map((r) => r.revision)).toEqual([3]);
  });

  it("leaves pods another controller holds alone and makes no pod in their place", () => {
    const foreign: KubeObject = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: "web-0",
        namespace: "ns",
        uid: "petset-pod",
        labels: { app: "web" },
        ownerReferences: [
          { apiVersion: "petset.dev/v1alpha1", kind: "PetSet", name: "web", uid: "ps", controller: true },
        ],
      },
      status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] },
    };
    const w = world(statefulSet({ updateStrategy: { type: "OnDelete" } }), [structuredClone(foreign)]);
    for (let i = 0; i < 5; i++) {
      pass(w);
      kubelet(w);
    }
    expect(w.pods).toEqual([foreign]);
    expect(status(w)).toMatchObject({ replicas: 0, readyReplicas: 0 });
  });

  it("adopts an orphaned pod of its name and selector without replacing it (OnDelete), and labels its identity", () => {
    const orphan: KubeObject = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web-0", namespace: "ns", uid: "old", labels: { app: "web" } },
      status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] },
    };
    const w = world(statefulSet({ replicas: 1, updateStrategy: { type: "OnDelete" } }), [orphan]);
    settle(w);
    expect(w.pods.map((p) => p.metadata.uid)).toEqual(["old"]);
    expect(w.pods[0]!.metadata.ownerReferences?.[0]).toMatchObject({
      kind: "StatefulSet",
      uid: "set-uid",
      controller: true,
    });
    expect(label(w.pods[0]!, "statefulset.kubernetes.io/pod-name")).toBe("web-0");
    expect(status(w)).toMatchObject({ replicas: 1, readyReplicas: 1, updatedReplicas: 0 });
  });

  it("deletes a Failed pod and makes it again", () => {
    const w = world(statefulSet({ replicas: 1 }));
    settle(w);
    w.pods[0]!.status = { phase: "Failed" };
    const before = w.pods[0]!.metadata.uid;
    settle(w);
    expect(w.pods).toHaveLength(1);
    expect(w.pods[0]!.metadata.uid).not.toBe(before);
  });

  it("persistentVolumeClaimRetentionPolicy: the set owns claims on whenDeleted=Delete, the pod on scale-down with whenScaled=Delete", () => {
    const w = world(
      statefulSet({
        replicas: 2,
        persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Delete" },
        volumeClaimTemplates: [{ metadata: { name: "data" }, spec: {} }],
      }),
    );
    settle(w);
    expect(w.claims.map((c) => c.metadata.ownerReferences?.map((r) => r.kind))).toEqual([
      ["StatefulSet"],
      ["StatefulSet"],
    ]);
    patchSpec(w, { replicas: 1 });
    const web1 = w.pods.find((p) => p.metadata.name === "web-1")!;
    pass(w);
    const claim = w.claims.find((c) => c.metadata.name === "data-web-1")!;
    expect(claim.metadata.ownerReferences).toEqual([
      {
        apiVersion: "v1",
        kind: "Pod",
        name: "web-1",
        uid: web1.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
  });

  it("minReadySeconds: Ready pods count as available only after it, and the pass asks to run again then", () => {
    const w = world(statefulSet({ replicas: 1, minReadySeconds: 10 }));
    pass(w);
    kubelet(w);
    const plan = pass(w);
    expect(status(w)).toMatchObject({ readyReplicas: 1, availableReplicas: 0 });
    expect(plan.requeueAfterMs).toBe(10_000);
    w.now += 10_000;
    pass(w);
    expect(status(w)).toMatchObject({ availableReplicas: 1 });
  });

  it("a name collision with another revision bumps collisionCount", () => {
    const w = world(statefulSet({ replicas: 1 }));
    const hash = revisionHash(
      goMapJson({ spec: { template: { ...(spec(w).template as Obj), $patch: "replace" } } }),
      0,
    );
    w.revisions.push({
      apiVersion: "apps/v1",
      kind: "ControllerRevision",
      metadata: { name: `web-${hash}`, namespace: "ns", uid: "other", labels: { other: "x" } },
      data: { something: "else" },
      revision: 1,
    });
    settle(w);
    expect(status(w)).toMatchObject({ collisionCount: 1 });
    expect(status(w).updateRevision).not.toBe(`web-${hash}`);
  });
});
