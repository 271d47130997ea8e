/**
 * /metrics of a controller as Prometheus scrapes it, on both backends: a controller run without
 * leader election says it leads (`petset_leader 1`), and `petset_pods{version}` /
 * `petset_versions` follow the cluster: a version whose pods are gone, and a deleted PetSet,
 * leave no series behind.
 */
import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PetSetController } from "../../src/controller/controller.js";
import { startProbeServer } from "../../src/controller/http-server.js";
import { systemClock } from "../../src/util/clock.js";
import { createLogger } from "../../src/util/logger.js";
import { eventually } from "../support/cluster.js";
import {
  createPetSet,
  petSetManifest,
  type RolloutEnv,
  setImage,
  startRolloutEnv,
  TEST_MS,
  WAIT_MS,
  waitRolledOut,
} from "./rollout-support.js";

let env: RolloutEnv;
let controller: PetSetController | undefined;
let server: Server | undefined;
let url = "";

beforeAll(async () => {
  env = await startRolloutEnv("controller-metrics", { controller: false });
  controller = new PetSetController({
    kubeConfig: env.cluster.controllerKubeConfig,
    clock: systemClock,
    logger: createLogger("warn", "metrics-test-controller"),
    namespace: env.namespace,
    workers: 2,
  });
  await controller.start();
  const probe = await startProbeServer({
    addr: "127.0.0.1:0",
    registry: controller.metrics.registry,
    ready: () => controller?.ready ?? false,
  });
  server = probe.server;
  url = `http://127.0.0.1:${probe.port}/metrics`;
});

afterAll(async () => {
  server?.close();
  await controller?.stop();
  await env?.stop();
});

/** Sample lines of `name` for this test's namespace (or without labels), sorted. */
async function scrape(name: string): Promise<string[]> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return (await res.text())
    .split("\n")
    .filter((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{namespace="${env.namespace}"`))
    .map((l) => l.replace(`namespace="${env.namespace}",`, ""))
    .sort();
}

const until = (what: string, name: string, expected: string[]) =>
  eventually(
    what,
    async () => {
      const got = await scrape(name);
      return JSON.stringify(got) === JSON.stringify(expected) ? got : undefined;
    },
    WAIT_MS,
  );

/** petset_watch_events_total of one resource and type (0 before the first event). */
async function watchEvents(resource: string, type: string): Promise<number> {
  const res = await fetch(url);
  const line = (await res.text())
    .split("\n")
    .find((l) => l.startsWith(`petset_watch_events_total{resource="${resource}",type="${type}"} `));
  return line === undefined ? 0 : Number(line.split(" ")[1]);
}

describe("controller /metrics", () => {
  it(
    "petset_pods drops a version without pods and a deleted PetSet",
    async () => {
      await createPetSet(env, petSetManifest("gauged", { replicas: 2 }));
      await waitRolledOut(env, "gauged", 1);
      await until("2 pods at version 1", "petset_pods", ['petset_pods{petset="gauged",version="1"} 2']);
      await setImage(env, "gauged", "nginx:1.27");
      await waitRolledOut(env, "gauged", 2);
      await until("2 pods at version 2 and no series for version 1", "petset_pods", [
        'petset_pods{petset="gauged",version="2"} 2',
      ]);
      expect(await scrape("petset_versions")).toEqual(['petset_versions{petset="gauged"} 2']);

      await env.custom.deleteNamespacedCustomObject({
        group: "petset.dev",
        version: "v1alpha1",
        plural: "petsets",
        namespace: env.namespace,
        name: "gauged",
      });
      await until("no petset_pods series for a deleted PetSet", "petset_pods", []);
      await until("no petset_versions series for a deleted PetSet", "petset_versions", []);
    },
    TEST_MS,
  );

  // Last: the PetSet it creates would show in the petset_pods series the test above expects.
  it(
    "petset_watch_events_total counts what the caches took: the pods, PetSet and version of a new PetSet",
    async () => {
      const before = {
        pods: await watchEvents("pods", "add"),
        podUpdates: await watchEvents("pods", "update"),
        petSets: await watchEvents("petsets", "add"),
        versions: await watchEvents("petsetversions", "add"),
      };
      await createPetSet(env, petSetManifest("counted", { replicas: 2 }));
      await waitRolledOut(env, "counted", 1);
      await eventually(
        "the new PetSet's events counted",
        async () => {
          const now = {
            pods: await watchEvents("pods", "add"),
            podUpdates: await watchEvents("pods", "update"),
            petSets: await watchEvents("petsets", "add"),
            versions: await watchEvents("petsetversions", "add"),
          };
          // Two pods created, each then bound and made Ready; one PetSet; its first version.
          return now.pods - before.pods >= 2 &&
            now.podUpdates - before.podUpdates >= 2 &&
            now.petSets - before.petSets >= 1 &&
            now.versions - before.versions >= 1
            ? now
            : undefined;
        },
        WAIT_MS,
      );
    },
    TEST_MS,
  );

  it("reports petset_leader 1 without leader election", async () => {
    expect(await scrape("petset_leader")).toEqual(["petset_leader 1"]);
  });
});
