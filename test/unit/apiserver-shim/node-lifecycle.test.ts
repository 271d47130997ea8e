/**
 * The embedded node lifecycle controller: the pure plan table-style, then the controller on a
 * shim core with a fake clock (a node whose kubelet goes silent, then comes back).
 */
import { describe, expect, it } from "vitest";
import {
  NotReadyTaint,
  planNodeHealth,
  podNotReady,
  UnreachableTaint,
} from "../../../src/apiserver-shim/controllers/node-lifecycle-plan.js";
import { createShimCore } from "../../../src/apiserver-shim/core.js";
import type { KubeObject } from "../../../src/apiserver-shim/types.js";
import { FakeClock } from "./fixtures.js";

const T0 = Date.parse("2025-01-01T00:00:00Z");
const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;
const GRACE = 50_000;

type Obj = Record<string, unknown>;

function node(ready: string | undefined, taints: Obj[] = []): KubeObject {
  const conditions = ["MemoryPressure", "DiskPressure", "PIDPressure", "Ready"].map((type) => ({
    type,
    status: type === "Ready" ? ready : "False",
    reason: "KubeletSays",
    lastHeartbeatTime: iso(T0),
    lastTransitionTime: iso(T0),
  }));
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: "n0", creationTimestamp: iso(T0) },
    spec: { taints },
    status: { conditions: ready === undefined ? [] : conditions },
  };
}

const statusOf = (conds: Obj[] | undefined, type: string) => conds?.find((c) => c.type === type)?.status;
const taintKeys = (taints: Obj[] | undefined) => taints?.map((t) => `${t.key}:${t.effect}`);

describe("planNodeHealth", () => {
  it("within the grace period: nothing to write, look again when it runs out", () => {
    const plan = planNodeHealth(node("True"), T0, T0 + GRACE, GRACE);
    expect(plan).toEqual({ ready: "True", checkAt: T0 + GRACE + 1 });
  });

  it("past the grace period: Ready and the pressure conditions Unknown, unreachable taints", () => {
    const now = T0 + GRACE + 1;
    const plan = planNodeHealth(node("True", [{ key: "dedicated", effect: "NoSchedule" }]), T0, now, GRACE);
    expect(plan.ready).toBe("Unknown");
    for (const type of ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"])
      expect(plan.conditions?.find((c) => c.type === type)).toMatchObject({
        status: "Unknown",
        reason: "NodeStatusUnknown",
        message: "Kubelet stopped posting node status.",
        lastTransitionTime: iso(now),
        lastHeartbeatTime: iso(T0),
      });
    expect(plan.taints).toEqual([
      { key: "dedicated", effect: "NoSchedule" },
      { key: UnreachableTaint, effect: "NoSchedule" },
      { key: UnreachableTaint, effect: "NoExecute", timeAdded: iso(now) },
    ]);
  });

  it("already Unknown and tainted: nothing to write", () => {
    const tainted = node("Unknown", [
      { key: UnreachableTaint, effect: "NoSchedule" },
      { key: UnreachableTaint, effect: "NoExecute", timeAdded: iso(T0) },
    ]);
    (tainted.status as { conditions: Obj[] }).conditions.forEach((c) => {
      c.status = "Unknown";
    });
    expect(planNodeHealth(tainted, T0, T0 + 2 * GRACE, GRACE)).toEqual({ ready: "Unknown" });
  });

  it("Ready again: the unreachable taints go, other taints stay", () => {
    const plan = planNodeHealth(
      node("True", [
        { key: "dedicated", effect: "NoSchedule" },
        { key: UnreachableTaint, effect: "NoSchedule" },
        { key: UnreachableTaint, effect: "NoExecute", timeAdded: iso(T0) },
      ]),
      T0 + GRACE,
      T0 + GRACE + 1,
      GRACE,
    );
    expect(plan.conditions).toBeUndefined();
    expect(taintKeys(plan.taints)).toEqual(["dedicated:NoSchedule"]);
  });

  it("Ready False (the kubelet says so): not-ready taints instead of unreachable", () => {
    const plan = planNodeHealth(
      node("False", [{ key: UnreachableTaint, effect: "NoSchedule" }]),
      T0,
      T0,
      GRACE,
    );
    expect(taintKeys(plan.taints)).toEqual([`${NotReadyTaint}:NoSchedule`, `${NotReadyTaint}:NoExecute`]);
  });

  it("a node no kubelet ever posted status for is left alone", () => {
    expect(planNodeHealth(node(undefined), T0, T0 + 10 * GRACE, GRACE)).toEqual({ ready: undefined });
  });
});

describe("podNotReady", () => {
  const pod = (ready: string): KubeObject => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web-0" },
    status: { conditions: [{ type: "Ready", status: ready, lastTransitionTime: iso(T0) }] },
  });
  it("sets Ready False, moving lastTransitionTime", () => {
    expect(podNotReady(pod("True"), T0 + 5_000)).toEqual([
      { type: "Ready", status: "False", lastTransitionTime: iso(T0 + 5_000) },
    ]);
  });
  it("leaves a pod already not Ready, or with no Ready condition", () => {
    expect(podNotReady(pod("False"), T0)).toBeUndefined();
    expect(
      podNotReady({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, status: {} }, T0),
    ).toBeUndefined();
  });
});

describe("NodeLifecycleController (embedded)", () => {
  function setup() {
    const clock = new FakeClock(T0);
    const core = createShimCore({ clock, autoReconcile: false, nodeMonitorGracePeriodMs: 5_000 });
    const def = (g: string, r: string) => core.registry.get(g, "v1", r)!;
    const ctx = () => ({
      fieldManager: "test",
      dryRun: false,
      now: clock.now(),
      warnings: [],
      fieldValidation: "Ignore" as const,
    });
    const nodes = def("", "nodes");
    const pods = def("", "pods");
    const leases = def("coordination.k8s.io", "leases");
    const n = node("True");
    delete n.metadata.creationTimestamp;
    const created = core.store.create(nodes, undefined, n, ctx());
    core.store.commitUpdate(
      nodes,
      created,
      { ...created, status: n.status },
      { ...ctx(), subresource: "status" },
    );
    const p = core.store.create(
      pods,
      "default",
      {
        metadata: { name: "web-0", namespace: "default" },
        spec: { nodeName: "n0", containers: [{ name: "c", image: "nginx" }] },
      },
      ctx(),
    );
    core.store.commitUpdate(
      pods,
      p,
      { ...p, status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] } },
      { ...ctx(), subresource: "status" },
    );
    const renew = () => {
      const now = new Date(clock.now()).toISOString().replace("Z", "000Z");
      const cur = core.store.peek(leases, "kube-node-lease", "n0");
      const body = {
        metadata: { name: "n0", namespace: "kube-node-lease" },
        spec: { holderIdentity: "n0", renewTime: now },
      };
      if (cur) core.store.commitUpdate(leases, cur, { ...cur, spec: body.spec }, ctx());
      else core.store.create(leases, "kube-node-lease", body, ctx());
    };
    const get = (r: KubeObject | undefined) => r as KubeObject;
    return {
      clock,
      core,
      renew,
      node: () => get(core.store.peek(nodes, undefined, "n0")),
      pod: () => get(core.store.peek(pods, "default", "web-0")),
      setReady: () => {
        const cur = get(core.store.peek(nodes, undefined, "n0"));
        const conds = (cur.status as { conditions: Obj[] }).conditions.map((c) => ({
          ...c,
          status: c.type === "Ready" ? "True" : "False",
          lastHeartbeatTime: iso(clock.now().getTime()),
        }));
        core.store.commitUpdate(
          nodes,
          cur,
          { ...cur, status: { conditions: conds } },
          { ...ctx(), subresource: "status" },
        );
      },
    };
  }
  const ready = (o: KubeObject) => statusOf((o.status as { conditions?: Obj[] }).conditions, "Ready");
  const taints = (o: KubeObject) => taintKeys((o.spec as { taints?: Obj[] }).taints) ?? [];

  it("issue 27: a node whose Lease stops is Ready=Unknown and tainted after the grace period, its pod Ready=False; back, the taints go", () => {
    const t = setup();
    t.renew();
    t.core.settle();
    // A renewing kubelet keeps the node Ready well past the grace period.
    for (let i = 0; i < 5; i++) {
      t.clock.advance(2_000);
      t.renew();
      t.core.settle();
    }
    expect(ready(t.node())).toBe("True");
    expect(ready(t.pod())).toBe("True");
    // Silence: within the grace period nothing happens, past it the node is lost.
    t.clock.advance(4_900);
    t.core.settle();
    expect(ready(t.node())).toBe("True");
    t.clock.advance(200);
    t.core.settle();
    expect(ready(t.node())).toBe("Unknown");
    expect(taints(t.node())).toEqual([`${UnreachableTaint}:NoSchedule`, `${UnreachableTaint}:NoExecute`]);
    expect(ready(t.pod())).toBe("False");
    const events = t.core.objects.list("/events", "default");
    expect(events.map((e) => `${e.reason}/${(e.involvedObject as Obj).name}`)).toContain(
      "NodeNotReady/web-0",
    );
    // The kubelet is back: it posts Ready and renews; the taints are removed.
    t.setReady();
    t.renew();
    t.core.settle();
    expect(ready(t.node())).toBe("True");
    expect(taints(t.node())).toEqual([]);
  });

  it("issue 29: once a node is not Ready, a pod that changes on it, or comes to it, is marked not Ready (each pass reads those pods only)", () => {
    const t = setup();
    t.renew();
    t.core.settle();
    t.clock.advance(5_100);
    t.core.settle();
    expect(ready(t.node())).toBe("Unknown");
    expect(ready(t.pod())).toBe("False");
    const pods = t.core.registry.get("", "v1", "pods")!;
    const ctx = {
      fieldManager: "test",
      dryRun: false,
      now: t.clock.now(),
      warnings: [],
      fieldValidation: "Ignore" as const,
    };
    // A kubelet that still writes (only its heartbeats were late) says Ready again.
    const cur = t.pod();
    t.core.store.commitUpdate(
      pods,
      cur,
      { ...cur, status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] } },
      { ...ctx, subresource: "status" },
    );
    expect(ready(t.pod())).toBe("True");
    // A pod bound to the node after it was marked.
    const late = t.core.store.create(
      pods,
      "default",
      {
        metadata: { name: "web-1", namespace: "default" },
        spec: { nodeName: "n0", containers: [{ name: "c", image: "nginx" }] },
      },
      ctx,
    );
    t.core.store.commitUpdate(
      pods,
      late,
      { ...late, status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] } },
      { ...ctx, subresource: "status" },
    );
    t.core.settle();
    expect(ready(t.pod())).toBe("False");
    expect(ready(t.core.store.peek(pods, "default", "web-1") as KubeObject)).toBe("False");
  });
});
