/** Simulated node loss in the kubelet (lost-nodes.ts), on the fake API with a fake clock. */
import { afterEach, describe, expect, it } from "vitest";
import { chooseNode, type NodeView } from "../../../../src/apiserver-shim/kubelet/engine.js";
import { LostNodeLabel } from "../../../../src/apiserver-shim/kubelet/lost-nodes.js";
import { PodSchema } from "../../../../src/apiserver-shim/kubelet/objects.js";
import { condition, FakeApi, pod, podOf, readyNodes } from "./fake-api.js";

const apis: FakeApi[] = [];
afterEach(async () => {
  await Promise.all(apis.splice(0).map((a) => a.runner.stop()));
});

async function runningPodOnNode0(): Promise<FakeApi> {
  const api = new FakeApi();
  apis.push(api);
  await readyNodes(api);
  api.create("pods", pod("web-0", { app: "nginx:1.27" }));
  await api.advance(1_000);
  expect((podOf(api, "web-0").spec as { nodeName?: string }).nodeName).toBe("petset-node-0");
  expect(condition(podOf(api, "web-0"), "Ready")).toBe("True");
  api.log.length = 0;
  return api;
}

function setLost(api: FakeApi, lost: boolean): void {
  api.update("nodes", "petset-node-0", (n) => {
    const meta = n.metadata as { labels?: Record<string, string> };
    const labels = { ...(meta.labels ?? {}) };
    if (lost) labels[LostNodeLabel] = "true";
    else delete labels[LostNodeLabel];
    meta.labels = labels;
  });
}

describe("lost node (kubelet.petset.dev/lost=true)", () => {
  it("issue 27: a lost node's heartbeats stop and its pods' status freezes; a graceful delete stays Terminating until it is back", async () => {
    const api = await runningPodOnNode0();
    setLost(api, true);
    await api.advance(0);
    // The node lifecycle controller's work, as it would write it: pod Ready False.
    api.update("pods", "default/web-0", (p) => {
      const status = p.status as { conditions: { type: string; status: string }[] };
      status.conditions = status.conditions.map((c) => (c.type === "Ready" ? { ...c, status: "False" } : c));
    });
    api.update("pods", "default/web-0", (p) => {
      const meta = p.metadata as Record<string, unknown>;
      meta.deletionTimestamp = new Date().toISOString();
      meta.deletionGracePeriodSeconds = 30;
    });
    await api.advance(60_000);
    expect(api.log.filter((w) => w.name === "petset-node-0" || w.name === "web-0")).toEqual([]);
    expect(api.log.some((w) => w.stage === "node-heartbeat")).toBe(true); // the other nodes go on
    expect(condition(podOf(api, "web-0"), "Ready")).toBe("False");
    // Back: the node posts status again and the kubelet finishes the deletion.
    setLost(api, false);
    await api.advance(1_000);
    expect(api.get("pods", "default/web-0")).toBeUndefined();
  });

  it("issue 27: back from loss, a pod marked not Ready becomes Ready again; a pod force-deleted meanwhile is forgotten", async () => {
    const api = await runningPodOnNode0();
    api.create(
      "pods",
      pod(
        "web-1",
        { app: "nginx:1.27" },
        { spec: { nodeName: "petset-node-0", containers: [{ name: "app", image: "nginx:1.27" }] } },
      ),
    );
    await api.advance(1_000);
    setLost(api, true);
    await api.advance(0);
    api.update("pods", "default/web-0", (p) => {
      const status = p.status as { conditions: { type: string; status: string }[] };
      status.conditions = status.conditions.map((c) => (c.type === "Ready" ? { ...c, status: "False" } : c));
    });
    api.remove("pods", "default/web-1");
    api.log.length = 0;
    await api.advance(10_000);
    expect(condition(podOf(api, "web-0"), "Ready")).toBe("False");
    setLost(api, false);
    await api.advance(1_000);
    expect(condition(podOf(api, "web-0"), "Ready")).toBe("True");
    expect(api.get("pods", "default/web-1")).toBeUndefined();
    expect(api.log.filter((w) => w.name === "web-1")).toEqual([]);
  });
});

describe("scheduling around taints (chooseNode)", () => {
  const view = (name: string, taints: NodeView["taints"] = []): NodeView => ({
    name,
    ready: true,
    pods: name === "n0" ? 0 : 5,
    internalIP: undefined,
    podCIDR: undefined,
    podIPs: new Set<string>(),
    labels: {},
    taints,
  });
  const tainted = view("n0", [{ key: "petset.dev/test", value: "node-loss", effect: "NoSchedule" }]);
  const nodes = [tainted, view("n1")];
  const podWith = (tolerations: Record<string, string>[]) =>
    PodSchema.parse({
      metadata: { name: "p", namespace: "ns" },
      spec: { containers: [{ name: "c", image: "nginx" }], tolerations },
    });

  it.each<[string, Record<string, string>[], string]>([
    ["a pod without tolerations avoids a NoSchedule taint", [], "n1"],
    [
      "Equal with the value tolerates it",
      [{ key: "petset.dev/test", operator: "Equal", value: "node-loss" }],
      "n0",
    ],
    ["Equal with another value does not", [{ key: "petset.dev/test", value: "other" }], "n1"],
    ["Exists on the key tolerates it", [{ key: "petset.dev/test", operator: "Exists" }], "n0"],
    ["Exists without a key tolerates every taint", [{ operator: "Exists" }], "n0"],
    ["another effect does not", [{ key: "petset.dev/test", operator: "Exists", effect: "NoExecute" }], "n1"],
  ])("%s", (_name, tolerations, expected) => {
    expect(chooseNode({ nodes }, podWith(tolerations))?.name).toBe(expected);
  });

  it("PreferNoSchedule keeps no pod away", () => {
    const soft = view("n0", [{ key: "k", effect: "PreferNoSchedule" }]);
    expect(chooseNode({ nodes: [soft, view("n1")] }, podWith([]))?.name).toBe("n0");
  });
});
