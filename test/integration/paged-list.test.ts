/**
 * The caches' paged lists against a real API (both backends): the pages joined are one list
 * as of the first page, whatever changes between the pages, so the watch that resumes at
 * its resourceVersion replays exactly the changes the list does not show.
 */
import { CoreV1Api, PatchStrategy, setHeaderOptions, type V1ConfigMap } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listInPages } from "../../src/controller/paged-list.js";
import { startTestCluster, type TestCluster } from "../support/cluster.js";

let cluster: TestCluster;
let namespace: string;
let core: CoreV1Api;

beforeAll(async () => {
  cluster = await startTestCluster();
  namespace = await cluster.namespace("paged-list");
  core = cluster.kubeConfig.makeApiClient(CoreV1Api);
});

afterAll(async () => {
  await cluster?.stop();
});

const configMap = (name: string, v: string): V1ConfigMap => ({
  metadata: { name, labels: { "petset.dev/petset": "web" } },
  data: { v },
});

describe("listInPages", () => {
  it("joins the pages into the list as of the first page, at its resourceVersion", async () => {
    for (const n of ["a", "b", "c", "d", "e", "f", "g"])
      await core.createNamespacedConfigMap({ namespace, body: configMap(n, "1") });
    let pages = 0;
    const list = await listInPages(async (limit, token) => {
      const page = await core.listNamespacedConfigMap({
        namespace,
        labelSelector: "petset.dev/petset",
        limit,
        ...(token ? { _continue: token } : {}),
      });
      pages++;
      if (pages === 1) {
        // Between the first page and the rest: a change, a delete, a create.
        await core.patchNamespacedConfigMap(
          { name: "e", namespace, body: { data: { v: "2" } } },
          setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
        );
        await core.deleteNamespacedConfigMap({ name: "f", namespace });
        await core.createNamespacedConfigMap({ namespace, body: configMap("ee", "1") });
      }
      return page;
    }, 3);
    expect(pages).toBe(3);
    expect(list.items.map((c) => [c.metadata?.name, c.data?.v])).toEqual([
      ["a", "1"],
      ["b", "1"],
      ["c", "1"],
      ["d", "1"],
      ["e", "1"],
      ["f", "1"],
      ["g", "1"],
    ]);
    const now = await core.listNamespacedConfigMap({ namespace, labelSelector: "petset.dev/petset" });
    expect(now.items.map((c) => c.metadata?.name)).toEqual(["a", "b", "c", "d", "e", "ee", "g"]);
    expect(list.metadata?.resourceVersion).not.toBe(now.metadata?.resourceVersion);
  });
});
