/** The node cache's trim, the planner's node view and the wake-ups (cache-trim.ts trimNode, node-watch.ts). */
import type { V1Node, V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { Labels } from "../../../src/api/names.js";
import { trimNode } from "../../../src/controller/cache-trim.js";
import type { ResourceCache } from "../../../src/controller/informers.js";
import { nodeView, watchNodes } from "../../../src/controller/node-watch.js";

const fullNode = (): V1Node => ({
  metadata: {
    name: "n1",
    uid: "u1",
    resourceVersion: "7",
    labels: { "kubernetes.io/hostname": "n1" },
    managedFields: [{ manager: "kubelet" }],
  },
  spec: { podCIDR: "10.0.0.0/24", taints: [{ key: "k", effect: "NoSchedule" }] },
  status: {
    conditions: [
      { type: "MemoryPressure", status: "False", lastHeartbeatTime: new Date(5) },
      {
        type: "Ready",
        status: "Unknown",
        reason: "NodeStatusUnknown",
        lastHeartbeatTime: new Date(9_000),
        lastTransitionTime: new Date(1_000),
      },
    ],
    images: [{ names: ["nginx"], sizeBytes: 1 }],
  },
});

describe("trimNode", () => {
  it("issue 27: keeps only the name and the Ready condition, so the view of a full node is unchanged", () => {
    const trimmed = fullNode();
    trimNode(trimmed);
    expect(nodeView(trimmed)).toEqual(nodeView(fullNode()));
    expect(nodeView(trimmed)).toEqual({ name: "n1", ready: "Unknown", readySince: 1_000 });
    expect(trimmed).toEqual({
      metadata: { name: "n1", uid: "u1", resourceVersion: "7" },
      spec: {},
      status: { conditions: [{ type: "Ready", status: "Unknown", lastTransitionTime: new Date(1_000) }] },
    });
  });

  it("a node that never reported has no Ready status (lost)", () => {
    const n: V1Node = { metadata: { name: "n2" }, status: {} };
    trimNode(n);
    expect(nodeView(n)).toEqual({ name: "n2" });
  });
});

describe("watchNodes", () => {
  /** A node cache whose first list lands when the test says (it is not awaited at start). */
  function lateNodeCache(items: V1Node[]) {
    let land: () => void = () => {};
    const synced = new Promise<void>((resolve) => {
      land = resolve;
    });
    const cache = {
      synced,
      list: () => items,
      onChange: () => {},
    } as unknown as ResourceCache<V1Node>;
    return { cache, land };
  }
  const node = (name: string, ready: "True" | "Unknown"): V1Node => ({
    metadata: { name },
    status: { conditions: [{ type: "Ready", status: ready, lastTransitionTime: new Date(1_000) }] },
  });
  const pet = (name: string, nodeName: string): V1Pod => ({
    metadata: { name, namespace: "ns", labels: { [Labels.petSet]: name.replace(/-\d+$/, "") } },
    spec: { nodeName, containers: [] },
  });

  it("issue 27: a node cache that syncs after the sets' first sync wakes the sets with pets on lost or gone nodes", async () => {
    const { cache, land } = lateNodeCache([node("up", "True"), node("lost", "Unknown")]);
    const pods = [pet("a-0", "up"), pet("b-0", "lost"), pet("c-0", "gone")];
    const woken: string[] = [];
    const watch = watchNodes(cache, { list: () => pods }, (p) => woken.push(p.metadata?.name ?? ""));
    expect(watch.views()).toBeUndefined();
    land();
    await cache.synced;
    await Promise.resolve();
    expect(watch.views()?.map((n) => n.name)).toEqual(["up", "lost"]);
    expect(woken.sort()).toEqual(["b-0", "c-0"]);
  });
});
