/** The simulated kubelet's scheduler part (engine.ts chooseNode): cordons, nodeSelector, missing claims. */
import { describe, expect, it } from "vitest";
import { chooseNode, type NodeView, type World } from "../../../../src/apiserver-shim/kubelet/engine.js";
import { PodSchema } from "../../../../src/apiserver-shim/kubelet/objects.js";

const node = (name: string, o: Partial<NodeView> = {}): NodeView => ({
  name,
  ready: true,
  pods: 0,
  internalIP: undefined,
  podCIDR: undefined,
  podIPs: new Set<string>(),
  labels: { "kubernetes.io/hostname": name },
  ...o,
});

const pod = (spec: Record<string, unknown> = {}) =>
  PodSchema.parse({
    metadata: { name: "web-0", namespace: "ns" },
    spec: { containers: [{ name: "app", image: "nginx" }], ...spec },
  });

describe("simulated kubelet scheduling (chooseNode)", () => {
  const nodes = [node("n0", { pods: 2 }), node("n1", { pods: 1 }), node("n2", { pods: 5 })];

  it.each<[string, World, ReturnType<typeof pod>, string | undefined]>([
    ["the Ready node with the fewest pods", { nodes }, pod(), "n1"],
    ["never a cordoned node", { nodes: [nodes[0]!, { ...nodes[1]!, unschedulable: true }] }, pod(), "n0"],
    [
      "only nodes with the nodeSelector's labels",
      { nodes },
      pod({ nodeSelector: { "kubernetes.io/hostname": "n2" } }),
      "n2",
    ],
    [
      "none when the selected node is cordoned",
      { nodes: [nodes[0]!, { ...nodes[2]!, unschedulable: true }] },
      pod({ nodeSelector: { "kubernetes.io/hostname": "n2" } }),
      undefined,
    ],
    [
      "none while a claim the pod mounts is missing",
      { nodes, claims: new Set(["ns/other"]) },
      pod({ volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data-web-0" } }] }),
      undefined,
    ],
    [
      "bound once the claim exists",
      { nodes, claims: new Set(["ns/data-web-0"]) },
      pod({ volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data-web-0" } }] }),
      "n1",
    ],
  ])("%s", (_name, world, p, want) => {
    expect(chooseNode(world, p)?.name).toBe(want);
  });
});
