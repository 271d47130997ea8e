/**
 * The PetSet CRD's names as a user types them into the real kubectl, on the backend of
 * PETSET_TEST_BACKEND: the short name `ps` (`kubectl get ps`) and the category `all`
 * (`kubectl get all`), both resolved by kubectl from the server's discovery documents. A
 * PetSetVersion is history, not a workload: it has the short name `psv` and is not in `all`.
 * No controller runs; the test writes the objects itself.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../support/cluster.js";

let cluster: TestCluster;
let namespace: string;

const petSet = (name: string) => ({
  apiVersion: "petset.dev/v1alpha1",
  kind: "PetSet",
  metadata: { name },
  spec: {
    replicas: 0,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: "app", image: "nginx:1.27" }] },
    },
  },
});

const version = {
  apiVersion: "petset.dev/v1alpha1",
  kind: "PetSetVersion",
  metadata: { name: "web-v1", labels: { "petset.dev/petset": "web", "petset.dev/version": "1" } },
  spec: {
    petSet: "web",
    version: 1,
    generation: 1,
    hash: "h1",
    template: {
      metadata: { labels: { app: "web" } },
      spec: { containers: [{ name: "app", image: "nginx:1.27" }] },
    },
  },
};

/** `kubectl ARGS -n NS`, which must succeed; its stdout. */
async function kubectl(...args: string[]): Promise<string> {
  const r = await cluster.kubectl([...args, "-n", namespace], { allowFail: true });
  expect(r.stderr, `kubectl ${args.join(" ")}`).toBe("");
  expect(r.code, `kubectl ${args.join(" ")}`).toBe(0);
  return r.stdout;
}

beforeAll(async () => {
  cluster = await startTestCluster();
  namespace = await cluster.namespace("get-all");
  const manifest = [petSet("web"), petSet("db"), version].map((o) => JSON.stringify(o)).join("\n");
  const r = await cluster.kubectl(["apply", "-n", namespace, "-f", "-"], { input: manifest });
  expect(r.code).toBe(0);
});

afterAll(async () => {
  await cluster?.stop();
});

describe("kubectl get with the PetSet CRD's short name and category", () => {
  it("kubectl get ps lists PetSets with their printer columns", async () => {
    const names = await kubectl("get", "ps", "-o", "name");
    expect(names.trim().split("\n").sort()).toEqual(["petset.petset.dev/db", "petset.petset.dev/web"]);
    const table = (await kubectl("get", "ps")).trimEnd().split("\n");
    expect(table[0]?.split(/\s+/).slice(0, 4)).toEqual(["NAME", "READY", "CURRENT", "UPDATE"]);
    expect(table.slice(1).map((l) => l.split(/\s+/)[0])).toEqual(["db", "web"]);
    expect((await kubectl("get", "ps", "web", "-o", "jsonpath={.kind}")).trim()).toBe("PetSet");
  });

  it("kubectl get all lists PetSets and not PetSetVersions", async () => {
    const names = (await kubectl("get", "all", "-o", "name")).trim().split("\n");
    expect(names.filter((n) => n.includes("petset.dev")).sort()).toEqual([
      "petset.petset.dev/db",
      "petset.petset.dev/web",
    ]);
    // The version exists and is reachable by its own short name, only not through `all`.
    expect((await kubectl("get", "psv", "-o", "name")).trim()).toBe("petsetversion.petset.dev/web-v1");
  });
});
