/**
 * The per-PetSet gauges as Prometheus scrapes them (a real prom-client registry, read as
 * /metrics text): a version without pods and a deleted PetSet leave no series behind.
 */
import { describe, expect, it } from "vitest";
import { createMetrics } from "../../../src/controller/metrics.js";
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
    metrics.petSets.setPods("a", "web", 2, ["1", "1", "2"]);
    expect(await samples(metrics, "petset_pods")).toEqual([
      'petset_pods{namespace="a",petset="web",version="1"} 2',
      'petset_pods{namespace="a",petset="web",version="2"} 1',
    ]);
    metrics.petSets.setPods("a", "web", 2, ["2", "2", "2"]);
    expect(await samples(metrics, "petset_pods")).toEqual([
      'petset_pods{namespace="a",petset="web",version="2"} 3',
    ]);
    metrics.petSets.setPods("a", "web", 2, []);
    expect(await samples(metrics, "petset_pods")).toEqual([]);
    expect(await samples(metrics, "petset_versions")).toEqual([
      'petset_versions{namespace="a",petset="web"} 2',
    ]);
  });

  it("forget a deleted PetSet entirely and leave other PetSets alone", async () => {
    const metrics = createMetrics();
    metrics.petSets.setPods("a", "web", 3, ["3", "2"]);
    metrics.petSets.setPods("b", "web", 1, ["1"]);
    metrics.petSets.setPods("a", "db", 1, ["1"]);
    metrics.petSets.forget("a", "web");
    expect(await samples(metrics, "petset_pods")).toEqual([
      'petset_pods{namespace="a",petset="db",version="1"} 1',
      'petset_pods{namespace="b",petset="web",version="1"} 1',
    ]);
    expect(await samples(metrics, "petset_versions")).toEqual([
      'petset_versions{namespace="a",petset="db"} 1',
      'petset_versions{namespace="b",petset="web"} 1',
    ]);
  });

  it("keep each PetSet's series when PetSets that had the same ones change (shared records)", async () => {
    const metrics = createMetrics();
    const healthy = [
      { type: "Available", status: "True", reason: "MinimumReplicasAvailable" },
      { type: "Progressing", status: "True", reason: "RolloutComplete" },
    ];
    for (const name of ["web", "db"]) {
      metrics.petSets.setPods("a", name, 1, ["1", "1"]);
      metrics.petSets.reportConditions("a", name, healthy);
      metrics.petSets.setLostPets("a", name, 0);
    }
    metrics.petSets.setPods("a", "web", 2, ["1", "2"]);
    metrics.petSets.reportConditions("a", "web", [
      { type: "Progressing", status: "True", reason: "RollingOut" },
    ]);
    metrics.petSets.setLostPets("a", "web", 1);
    expect(await samples(metrics, "petset_pods")).toEqual([
      'petset_pods{namespace="a",petset="db",version="1"} 2',
      'petset_pods{namespace="a",petset="web",version="1"} 1',
      'petset_pods{namespace="a",petset="web",version="2"} 1',
    ]);
    expect(await samples(metrics, "petset_condition")).toEqual([
      'petset_condition{namespace="a",petset="db",type="Available",status="True",reason="MinimumReplicasAvailable"} 1',
      'petset_condition{namespace="a",petset="db",type="Progressing",status="True",reason="RolloutComplete"} 1',
      'petset_condition{namespace="a",petset="web",type="Progressing",status="True",reason="RollingOut"} 1',
    ]);
    expect(await samples(metrics, "petset_pets_on_lost_nodes")).toEqual([
      'petset_pets_on_lost_nodes{namespace="a",petset="db"} 0',
      'petset_pets_on_lost_nodes{namespace="a",petset="web"} 1',
    ]);
    metrics.petSets.forget("a", "db");
    expect(await samples(metrics, "petset_pets_on_lost_nodes")).toEqual([
      'petset_pets_on_lost_nodes{namespace="a",petset="web"} 1',
    ]);
    expect(await samples(metrics, "petset_condition")).toHaveLength(1);
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
