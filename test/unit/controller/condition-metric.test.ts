/**
 * petset_condition: what the PrometheusRule of deploy/components/prometheus alerts on. A
 * PetSet's series follow its status conditions and disappear with the PetSet.
 */
import { describe, expect, it } from "vitest";
import { createMetrics } from "../../../src/controller/metrics.js";
import { syncPetSet } from "../../../src/controller/sync.js";
import { apiError, FakeWorld, petSetObject } from "./fake-world.js";

async function conditionSeries(metrics: ReturnType<typeof createMetrics>): Promise<string[]> {
  const text = await metrics.registry.getSingleMetricAsString("petset_condition");
  return text
    .split("\n")
    .filter((l) => l.startsWith("petset_condition{"))
    .sort();
}

describe("petset_condition", () => {
  it("has one series per condition and drops those a PetSet no longer carries", async () => {
    const metrics = createMetrics();
    metrics.petSets.reportConditions("shop", "web", [
      { type: "Available", status: "False", reason: "MinimumReplicasUnavailable" },
      { type: "Progressing", status: "True", reason: "RollingOut" },
    ]);
    metrics.petSets.reportConditions("shop", "db", [{ type: "Available", status: "True" }]);
    metrics.petSets.reportConditions("shop", "web", [
      { type: "Progressing", status: "False", reason: "ProgressDeadlineExceeded" },
    ]);
    expect(await conditionSeries(metrics)).toEqual([
      'petset_condition{namespace="shop",petset="db",type="Available",status="True",reason=""} 1',
      'petset_condition{namespace="shop",petset="web",type="Progressing",status="False",reason="ProgressDeadlineExceeded"} 1',
    ]);
    metrics.petSets.forget("shop", "web");
    expect(await conditionSeries(metrics)).toEqual([
      'petset_condition{namespace="shop",petset="db",type="Available",status="True",reason=""} 1',
    ]);
  });

  it("a sync exports the conditions it writes, and a deleted PetSet's series go", async () => {
    const world = new FakeWorld();
    world.petSets.put(petSetObject());
    world.failOn(
      "createPod",
      1,
      apiError(422, "Invalid", 'Pod "web-0" is invalid: spec.containers[0].image'),
    );
    const ctx = world.context();
    await syncPetSet(ctx, "default/web");
    expect(await conditionSeries(ctx.metrics)).toContain(
      'petset_condition{namespace="default",petset="web",type="Progressing",status="False",reason="InvalidSpec"} 1',
    );
    world.petSets.remove("web", "default");
    await syncPetSet(ctx, "default/web");
    expect(await conditionSeries(ctx.metrics)).toEqual([]);
  });
});
