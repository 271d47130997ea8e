/** StageRunner timing and failure handling, on the fake API with a fake clock. */

import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { loadDefaultStages, parseStages, withParams } from "../../../../src/apiserver-shim/kubelet/stages.js";
import { condition, FakeApi, pod, podOf, readyNodes } from "./fake-api.js";

const apis: FakeApi[] = [];
afterEach(async () => {
  await Promise.all(apis.splice(0).map((a) => a.runner.stop()));
});

async function setup(api = new FakeApi()): Promise<FakeApi> {
  apis.push(api);
  await readyNodes(api);
  return api;
}

function readyAt(api: FakeApi, name: string): number | undefined {
  return api.log.find((w) => w.name === name && w.stage.startsWith("pod-ready"))?.t;
}

describe("StageRunner", () => {
  it("keeps a running delay across unrelated updates", async () => {
    const api = await setup();
    api.create("pods", pod("web-0", { app: "nginx:1.27" }));
    await api.advance(100); // bound and started at 50ms; Ready due at 250ms
    for (let i = 0; i < 5; i++) {
      api.update("pods", "default/web-0", (p) => {
        (p.metadata as { labels: Record<string, string> }).labels.touch = String(i);
      });
      await api.advance(30);
    }
    await api.advance(500);
    expect(readyAt(api, "web-0")).toBe(250);
  });

  it("reschedules when a change makes another stage apply (image changed during the ready delay)", async () => {
    const api = await setup();
    api.create("pods", pod("web-0", { app: "nginx:1.27" }));
    await api.advance(100);
    api.update("pods", "default/web-0", (p) => {
      (p.spec as { containers: { image: string }[] }).containers[0]!.image = "nginx:slow";
    });
    await api.advance(1_000);
    expect(api.log.map((w) => w.stage)).toContain("pod-image-changed");
    expect(condition(podOf(api, "web-0"), "Ready")).toBe("False");
    await api.advance(5_000);
    expect(condition(podOf(api, "web-0"), "Ready")).toBe("True");
    expect(readyAt(api, "web-0")).toBe(5_150); // image change applied at 150, then slowDelayMs
  });

  it("spreads a burst of pods over the managed nodes (least pods first)", async () => {
    const api = await setup();
    for (let i = 0; i < 6; i++) api.create("pods", pod(`web-${i}`, { app: "nginx:1.27" }));
    await api.advance(0);
    const nodes = api.log.filter((w) => w.op === "bind").map((w) => w.node);
    expect(nodes).toEqual([
      "petset-node-0",
      "petset-node-1",
      "petset-node-2",
      ...["0", "1", "2"].map((n) => `petset-node-${n}`),
    ]);
  });

  it("counts pods per node as they come and go (kept per event, no recount): the next pod goes where fewest are", async () => {
    const api = await setup();
    for (let i = 0; i < 30; i++) api.create("pods", pod(`web-${i}`, { app: "nginx:1.27" }));
    await api.advance(1_000);
    expect(api.runner.world().nodes.map((n) => n.pods)).toEqual([10, 10, 10]);
    const ips = new Set(api.list("pods").map((p) => (p.status as { podIP?: string }).podIP));
    expect(ips.size).toBe(30);
    // Every pod of node 1 goes: the next pods are bound there, with IPs not in use.
    for (const p of api
      .list("pods")
      .filter((p) => (p.spec as { nodeName?: string }).nodeName === "petset-node-1"))
      api.remove("pods", `default/${p.metadata.name}`);
    await api.advance(0);
    expect(api.runner.world().nodes.map((n) => n.pods)).toEqual([10, 0, 10]);
    api.create("pods", pod("late-0", { app: "nginx:1.27" }));
    await api.advance(1_000);
    expect((podOf(api, "late-0").spec as { nodeName?: string }).nodeName).toBe("petset-node-1");
    const late = (podOf(api, "late-0").status as { podIP?: string }).podIP;
    const others = api.list("pods").filter((p) => p.metadata.name !== "late-0");
    expect(others.map((p) => (p.status as { podIP?: string }).podIP)).not.toContain(late);
  });

  it("leaves pods on other nodes alone, and does not bind without a Ready managed node", async () => {
    const api = new FakeApi();
    apis.push(api);
    api.create("pods", pod("mine-later", { app: "nginx:1.27" }));
    api.create("pods", {
      ...pod("theirs", { app: "nginx:1.27" }),
      spec: { nodeName: "real-node", containers: [] },
    });
    await api.advance(1_000);
    expect(api.log).toEqual([]);
    api.create("nodes", { metadata: { name: "petset-node-0" } });
    await api.advance(1_000);
    expect(api.log.filter((w) => w.op === "bind").map((w) => w.name)).toEqual(["mine-later"]);
    expect(api.log.some((w) => w.name === "theirs")).toBe(false);
  });

  it("on a Conflict re-reads and applies the same stage to the fresh object", async () => {
    const api = await setup();
    api.create("pods", pod("web-0", { app: "nginx:1.27" }));
    await api.advance(0); // bound
    api.failNext.push("Conflict");
    await api.advance(300);
    expect(condition(podOf(api, "web-0"), "Ready")).toBe("True");
  });

  it("retries an unavailable server with backoff", async () => {
    const api = await setup();
    api.failNext.push("Unavailable", "Unavailable");
    api.create("pods", pod("web-0", { app: "nginx:1.27" }));
    await api.advance(200);
    expect(api.log).toEqual([]);
    await api.advance(2_000);
    expect(condition(podOf(api, "web-0"), "Ready")).toBe("True");
  });

  it("takes readyDelayMs from params and a per-pod annotation", async () => {
    const api = await setup(new FakeApi(withParams(loadDefaultStages(), { readyDelayMs: 1_000 })));
    api.create("pods", pod("web-0", { app: "nginx:1.27" }));
    api.create("pods", {
      ...pod("web-1", { app: "nginx:1.27" }),
      metadata: { name: "web-1", annotations: { "kubelet.petset.dev/ready-delay-ms": "10" } },
    });
    await api.advance(3_000);
    expect(readyAt(api, "web-0")).toBe(1_050);
    expect(readyAt(api, "web-1")).toBe(60);
  });

  it("stop() cancels every timer", async () => {
    const api = await setup();
    api.create("pods", pod("web-0", { app: "nginx:broken" }));
    await api.advance(100);
    await api.runner.stop();
    const before = api.log.length;
    await api.advance(10_000);
    expect(api.log.length).toBe(before);
    expect(api.clock.pending()).toBe(0);
  });

  it("runs the example stage of docs/simulated-kubelet.md (pod-oom)", async () => {
    const docs = readFileSync(new URL("../../../../docs/simulated-kubelet.md", import.meta.url), "utf8");
    const example = docs.split("## Adding a stage")[1]!.split("```yaml\n")[1]!.split("```")[0]!;
    const base = readFileSync(
      new URL("../../../../src/apiserver-shim/kubelet/stages/default.yaml", import.meta.url),
      "utf8",
    );
    const at = base.indexOf("  - name: pod-ready-slow");
    const config = parseStages(`${base.slice(0, at)}${example}\n${base.slice(at)}`, "docs example");
    const api = await setup(new FakeApi(config));
    api.create("pods", pod("web-0", { app: "nginx:oom" }));
    await api.advance(6_100);
    const status = podOf(api, "web-0").status as {
      containerStatuses: { restartCount: number; lastState: unknown }[];
    };
    expect(status.containerStatuses[0]).toMatchObject({
      restartCount: 2,
      lastState: { terminated: { exitCode: 137, reason: "OOMKilled" } },
    });
    expect(condition(podOf(api, "web-0"), "Ready")).toBe("False");
  });
});

describe("issue 28: a deferred resize is retried when room comes", () => {
  const onNode0 = (name: string, cpu: string): Record<string, unknown> =>
    pod(
      name,
      {},
      {
        spec: {
          nodeName: "petset-node-0",
          containers: [{ name: "app", image: "nginx:1.27", resources: { requests: { cpu } } }],
        },
      },
    );
  const resizePending = (api: FakeApi, name: string) =>
    (podOf(api, name).status as { conditions?: { type: string; reason?: string }[] }).conditions?.find(
      (c) => c.type === "PodResizePending",
    )?.reason;
  const allocatedCpu = (api: FakeApi, name: string) =>
    (podOf(api, name).status as { containerStatuses?: { resources?: { requests?: { cpu?: string } } }[] })
      .containerStatuses?.[0]?.resources?.requests?.cpu;

  it("a pod of the node going away lets the Deferred resize through, with no change to the deferred pod", async () => {
    const api = await setup();
    api.create("pods", onNode0("hog", "20"));
    api.create("pods", onNode0("web-0", "8"));
    await api.advance(1_000);
    expect(allocatedCpu(api, "web-0")).toBe("8");
    api.update("pods", "default/web-0", (p) => {
      (p.spec as { containers: { resources: { requests: { cpu: string } } }[] })
        .containers[0]!.resources.requests.cpu = "16";
    });
    await api.advance(1_000);
    expect(resizePending(api, "web-0")).toBe("Deferred"); // 20 + 16 > 32 cpus
    api.remove("pods", "default/hog");
    await api.advance(1_000);
    expect(resizePending(api, "web-0")).toBeUndefined();
    expect(allocatedCpu(api, "web-0")).toBe("16");
  });
});
