import {
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  Watch,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type ShimHarness, startHarness, WIDGET_CRD } from "./harness.js";

describe("@kubernetes/client-node against the shim", () => {
  let h: ShimHarness;
  let kc: KubeConfig;
  beforeAll(async () => {
    h = await startHarness({ tokens: ["s3cret"] });
    kc = new KubeConfig();
    kc.loadFromFile(h.kubeconfig);
  });
  afterAll(async () => {
    await h.close();
  });

  it("rejects requests without the token", async () => {
    const res = await h.fetch(`${h.server.url}/api/v1/namespaces`, { headers: { Authorization: "" } });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ kind: "Status", reason: "Unauthorized", code: 401 });
  });

  it("creates, reads, lists, conflicts and deletes", async () => {
    const core = kc.makeApiClient(CoreV1Api);
    const created = await core.createNamespacedConfigMap({
      namespace: "default",
      body: { metadata: { name: "c1", labels: { a: "b" } }, data: { k: "v" } },
    });
    expect(created.metadata?.uid).toBeTruthy();
    const got = await core.readNamespacedConfigMap({ name: "c1", namespace: "default" });
    expect(got.data).toEqual({ k: "v" });
    const list = await core.listNamespacedConfigMap({ namespace: "default", labelSelector: "a=b" });
    expect(list.items.map((i) => i.metadata?.name)).toEqual(["c1"]);
    await core.replaceNamespacedConfigMap({
      name: "c1",
      namespace: "default",
      body: { ...got, data: { k: "v2" } },
    });
    const stale = await core
      .replaceNamespacedConfigMap({ name: "c1", namespace: "default", body: { ...got, data: { k: "v3" } } })
      .catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(ApiException);
    const ex = stale as ApiException<string>;
    expect(ex.code).toBe(409);
    expect(JSON.parse(ex.body)).toMatchObject({
      reason: "Conflict",
      message: expect.stringContaining('Operation cannot be fulfilled on configmaps "c1"'),
    });
    await core.deleteNamespacedConfigMap({ name: "c1", namespace: "default" });
    const gone = await core
      .readNamespacedConfigMap({ name: "c1", namespace: "default" })
      .catch((e: unknown) => e);
    expect((gone as ApiException<string>).code).toBe(404);
  });

  it("watches with the Watch helper", async () => {
    const events: string[] = [];
    const watch = new Watch(kc);
    const ctl = await watch.watch(
      "/api/v1/namespaces/default/configmaps",
      { allowWatchBookmarks: true },
      (type, obj: { metadata: { name: string } }) => {
        if (type !== "BOOKMARK") events.push(`${type} ${obj.metadata.name}`);
      },
      () => {},
    );
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "w1" } } });
    const cm = await core.readNamespacedConfigMap({ name: "w1", namespace: "default" });
    await core.replaceNamespacedConfigMap({
      name: "w1",
      namespace: "default",
      body: { ...cm, data: { x: "1" } },
    });
    await core.deleteNamespacedConfigMap({ name: "w1", namespace: "default" });
    await eventually(() => events.includes("DELETED w1"), 10_000, "DELETED event");
    ctl.abort();
    expect(events).toEqual(["ADDED w1", "MODIFIED w1", "DELETED w1"]);
  });

  it("works with custom resources (generic object API, merge patch, status)", async () => {
    const objects = KubernetesObjectApi.makeApiClient(kc);
    await objects.create(JSON.parse(JSON.stringify(await import("yaml").then((y) => y.parse(WIDGET_CRD)))));
    const custom = kc.makeApiClient(CustomObjectsApi);
    await eventually(
      async () => {
        try {
          await custom.listNamespacedCustomObject({
            group: "example.com",
            version: "v1",
            namespace: "default",
            plural: "widgets",
          });
          return true;
        } catch {
          return false;
        }
      },
      10_000,
      "CRD served",
    );
    await custom.createNamespacedCustomObject({
      group: "example.com",
      version: "v1",
      namespace: "default",
      plural: "widgets",
      body: { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "cw" }, spec: { replicas: 2 } },
    });
    const patched = await objects.patch(
      {
        apiVersion: "example.com/v1",
        kind: "Widget",
        metadata: { name: "cw", namespace: "default" },
        spec: { color: "green" },
      },
      undefined,
      undefined,
      undefined,
      undefined,
      PatchStrategy.MergePatch,
    );
    expect((patched as unknown as { spec: unknown }).spec).toMatchObject({ replicas: 2, color: "green" });
    const applied = await objects.patch(
      {
        apiVersion: "example.com/v1",
        kind: "Widget",
        metadata: { name: "cw", namespace: "default" },
        spec: { replicas: 4 },
      },
      undefined,
      undefined,
      "tester",
      true,
      PatchStrategy.ServerSideApply,
    );
    expect((applied as unknown as { spec: { replicas: number } }).spec.replicas).toBe(4);
    const mf = (
      applied as unknown as { metadata: { managedFields: { manager: string; operation: string }[] } }
    ).metadata.managedFields;
    expect(mf.map((m) => `${m.manager}/${m.operation}`)).toContain("tester/Apply");
  });
});
