/**
 * The per-PetSet gauges as Prometheus scrapes them (a real prom-client registry, read as
 * /metrics text): a version without pods and a deleted PetSet leave no series behind.
 */
import { describe, expect, it } from "vitest";
import { createMetrics } from "../../../src/controller/metrics.js";
import { forgetPetSetGauges, updatePetSetGauges } from "../../../src/controller/pod-gauges.js";
import { syncPetSet } from "../../../src/controller/sync.js";
import { FakeWorld, petSetObject } from "./fake-world.js";

/** The sample lines of one metric, e.g. `petset_pods{namespace="a",petset="web",version="1"} 2`. */
async function samples(metrics: ReturnType<typeof createMetrics>, name: string): Promise<string[]> {
  const text = await metrics.registry.metrics();
  return text
    .split("\n")
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .sort();
}

describe("petset_pods and petset_versions", () => {
  it("drop the series of a version that has no pods left", async () => {
    const metrics = createMetrics();
    const web = { namespace: "a", petSet: "web" };
    await updatePetSetGauges(metrics, web, 2, ["1", "1", "2"]);
    expect(await samples(metrics, "petset_pods")).toEqual([
      'petset_pods{namespace="a",petset="web",version="1"} 2',
      'petset_pods{namespace="a",petset="web",version="2"} 1',
    ]);
    await updatePetSetGauges(metrics, web, 2, ["2", "2", "2"]);
    expect(await samples(metrics, "petset_pods")).toEqual([
      'petset_pods{namespace="a",petset="web",version="2"} 3',
    ]);
    await updatePetSetGauges(metrics, web, 2, []);
    expect(await samples(metrics, "petset_pods")).toEqual([]);
    expect(await samples(metrics, "petset_versions")).toEqual([
      'petset_versions{namespace="a",petset="web"} 2',
    ]);
  });

  it("forget a deleted PetSet entirely and leave other PetSets alone", async () => {
    const metrics = createMetrics();
    await updatePetSetGauges(metrics, { namespace: "a", petSet: "web" }, 3, ["3", "2"]);
    await updatePetSetGauges(metrics, { namespace: "b", petSet: "web" }, 1, ["1"]);
    await updatePetSetGauges(metrics, { namespace: "a", petSet: "db" }, 1, ["1"]);
    await forgetPetSetGauges(metrics, { namespace: "a", petSet: "web" });
    expect(await samples(metrics, "petset_pods")).toEqual([
      'petset_pods{namespace="a",petset="db",version="1"} 1',
      'petset_pods{namespace="b",petset="web",version="1"} 1',
    ]);
    expect(await samples(metrics, "petset_versions")).toEqual([
      'petset_versions{namespace="a",petset="db"} 1',
      'petset_versions{namespace="b",petset="web"} 1',
    ]);
  });

  it("follow a rollout and a deletion through syncPetSet", async () => {
    const world = new FakeWorld();
    const ctx = world.context();
    const settle = async () => {
      for (let i = 0; i < 10; i++) {
        await syncPetSet(ctx, "default/web");
        world.makePodsReady();
      }
    };
    world.petSets.put(petSetObject("nginx:1.26"));
    await settle();
    expect(await samples(ctx.metrics, "petset_pods")).toEqual([
      'petset_pods{namespace="default",petset="web",version="1"} 2',
    ]);
    world.petSets.put({
      ...petSetObject("nginx:1.27"),
      metadata: { ...petSetObject().metadata, generation: 2 },
    });
    await settle();
    expect(await samples(ctx.metrics, "petset_pods")).toEqual([
      'petset_pods{namespace="default",petset="web",version="2"} 2',
    ]);
    world.petSets.remove("web", "default");
    await syncPetSet(ctx, "default/web");
    expect(await samples(ctx.metrics, "petset_pods")).toEqual([]);
    expect(await samples(ctx.metrics, "petset_versions")).toEqual([]);
  });
});
