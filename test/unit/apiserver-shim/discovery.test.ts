/**
 * Legacy discovery documents as kube-apiserver 1.33 writes them (issue 24, conformance
 * allow-list narrowed): each resource carries kube's storageVersionHash, the hash of its
 * storage group/version/kind (clients such as the storage-version migrator compare it), and
 * custom resources list their verbs in the order of kube's CRD discovery controller.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { resourceList } from "../../../src/apiserver-shim/http/discovery.js";
import { testCore, WIDGET_CRD } from "./fixtures.js";

type Entry = { name: string; verbs?: string[]; storageVersionHash?: string };

function entries(group: string, version: string): Entry[] {
  const c = testCore();
  c.store.create(
    c.def("apiextensions.k8s.io", "v1", "customresourcedefinitions"),
    undefined,
    WIDGET_CRD,
    c.ctx(),
  );
  return (resourceList(c.registry, group, version) as { resources: Entry[] }).resources;
}

describe("issue 24 conformance: discovery storageVersionHash", () => {
  it("is kube's hash of the storage group/version/kind, on resources and not on subresources", () => {
    const core = new Map(entries("", "v1").map((e) => [e.name, e.storageVersionHash]));
    // Values read from a real kube-apiserver 1.33's /api/v1.
    expect(core.get("pods")).toBe("xPOwRZ+Yhw8=");
    expect(core.get("configmaps")).toBe("qFsyl6wFWjQ=");
    expect(core.get("pods/status")).toBeUndefined();
    // events.k8s.io Events are stored as core/v1 Events: the same hash.
    const events = entries("events.k8s.io", "v1").find((e) => e.name === "events");
    expect(events?.storageVersionHash).toBe(core.get("events"));
  });

  it("lists a custom resource's verbs in kube's CRD order, with the hash of its storage version", () => {
    const widgets = entries("example.com", "v1").find((e) => e.name === "widgets");
    expect(widgets?.verbs).toEqual([
      "delete",
      "deletecollection",
      "get",
      "list",
      "patch",
      "create",
      "update",
      "watch",
    ]);
    expect(widgets?.storageVersionHash).toBe(
      createHash("sha256").update("example.com/v1/Widget").digest().subarray(0, 8).toString("base64"),
    );
  });

  it("matches what a real kube-apiserver 1.33 listed where the shim differed", () => {
    const core = new Map(entries("", "v1").map((e) => [e.name, e]));
    expect(core.get("namespaces")?.verbs).toEqual([
      "create",
      "delete",
      "get",
      "list",
      "patch",
      "update",
      "watch",
    ]);
    // CRDs are stored as apiextensions.k8s.io/v1beta1 in kube.
    const crds = entries("apiextensions.k8s.io", "v1").find((e) => e.name === "customresourcedefinitions");
    expect(crds?.storageVersionHash).toBe("jfWCUB31mvA=");
    // A custom resource's subresources as the CRD discovery controller adds them.
    expect(entries("example.com", "v1").map((e) => e.name)).toEqual([
      "widgets",
      "widgets/status",
      "widgets/scale",
    ]);
  });
});
