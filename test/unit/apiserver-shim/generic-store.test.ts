import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/apiserver-shim/errors.js";
import { deleteObject } from "../../../src/apiserver-shim/registry/deletion.js";
import { patchObject } from "../../../src/apiserver-shim/registry/patching.js";
import type { KubeObject } from "../../../src/apiserver-shim/types.js";
import { testCore, WIDGET_CRD } from "./fixtures.js";

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected an ApiError");
}

describe("generic store", () => {
  it("creates with system fields, generateName, and a global resourceVersion", () => {
    const c = testCore();
    const cm = c.def("", "v1", "configmaps");
    const before = c.objects.currentRv();
    const a = c.store.create(cm, "default", { metadata: { generateName: "x-" }, data: { k: "v" } }, c.ctx());
    expect(a.metadata.name).toMatch(/^x-[a-z0-9]{5}$/);
    expect(a.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.metadata.creationTimestamp).toBe("2025-01-01T00:00:00Z");
    expect(Number(a.metadata.resourceVersion)).toBe(before + 1);
    expect(a.metadata.managedFields?.[0]).toMatchObject({
      manager: "test",
      operation: "Update",
      fieldsV1: { "f:data": { ".": {}, "f:k": {} } },
    });
  });

  it("refuses missing namespaces, duplicates and invalid names with kube's errors", () => {
    const c = testCore();
    const cm = c.def("", "v1", "configmaps");
    expect(
      apiError(() => c.store.create(cm, "nope", { metadata: { name: "a" } }, c.ctx())).status,
    ).toMatchObject({
      code: 404,
      message: 'namespaces "nope" not found',
    });
    c.store.create(cm, "default", { metadata: { name: "a" } }, c.ctx());
    expect(
      apiError(() => c.store.create(cm, "default", { metadata: { name: "a" } }, c.ctx())).status,
    ).toMatchObject({
      code: 409,
      reason: "AlreadyExists",
      message: 'configmaps "a" already exists',
    });
    const bad = apiError(() => c.store.create(cm, "default", { metadata: { name: "Bad_Name" } }, c.ctx()));
    expect(bad.status.code).toBe(422);
    expect(bad.status.message).toMatch(
      /^ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/,
    );
    expect(bad.status.details?.causes?.[0]).toMatchObject({
      reason: "FieldValueInvalid",
      field: "metadata.name",
    });
  });

  it("detects stale updates, and no-op writes change nothing", () => {
    const c = testCore();
    const cm = c.def("", "v1", "configmaps");
    const a = c.store.create(cm, "default", { metadata: { name: "a" }, data: { k: "1" } }, c.ctx());
    const rv = c.objects.currentRv();
    const same = c.store.update(cm, "default", "a", a, c.ctx());
    expect(same.metadata.resourceVersion).toBe(a.metadata.resourceVersion);
    expect(c.objects.currentRv()).toBe(rv);
    c.store.update(cm, "default", "a", { ...a, data: { k: "2" } }, c.ctx());
    const stale = apiError(() => c.store.update(cm, "default", "a", { ...a, data: { k: "3" } }, c.ctx()));
    expect(stale.status.message).toBe(
      'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it("refuses a patch whose metadata.uid is not the object's (a uid precondition), as kube does", () => {
    const c = testCore();
    const cm = c.def("", "v1", "configmaps");
    const a = c.store.create(cm, "default", { metadata: { name: "u" } }, c.ctx());
    const patch = (uid: string) =>
      patchObject(
        c.store,
        cm,
        "default",
        "u",
        "application/merge-patch+json",
        JSON.stringify({ metadata: { uid, labels: { adopted: "yes" } } }),
        c.ctx(),
        false,
      );
    const wrong = apiError(() => patch("another-uid"));
    expect(wrong.status.code).toBe(422);
    expect(wrong.status.message).toContain('metadata.uid: Invalid value: "another-uid": field is immutable');
    patch(a.metadata.uid ?? "");
    expect(c.store.peek(cm, "default", "u")?.metadata.labels).toEqual({ adopted: "yes" });
  });

  it("bumps generation only for spec changes and keeps status out of main writes", () => {
    const c = testCore();
    const crd = c.def("apiextensions.k8s.io", "v1", "customresourcedefinitions");
    c.store.create(crd, undefined, WIDGET_CRD, c.ctx());
    const w = c.def("example.com", "v1", "widgets");
    const created = c.store.create(
      w,
      "default",
      { metadata: { name: "w" }, spec: { replicas: 1 }, status: { phase: "X" } },
      c.ctx(),
    );
    expect(created.status).toBeUndefined();
    expect(created.metadata.generation).toBe(1);
    const labelled = c.store.update(
      w,
      "default",
      "w",
      { ...created, metadata: { ...created.metadata, labels: { a: "b" } } },
      c.ctx(),
    );
    expect(labelled.metadata.generation).toBe(1);
    const withStatus = c.store.update(
      w,
      "default",
      "w",
      { ...labelled, status: { phase: "Running" } },
      c.ctx({ subresource: "status" }),
    );
    expect(withStatus.status).toEqual({ phase: "Running" });
    expect(withStatus.metadata.generation).toBe(1);
    const scaled = c.store.update(
      w,
      "default",
      "w",
      { ...withStatus, spec: { replicas: 3 }, status: { phase: "Ignored" } },
      c.ctx(),
    );
    expect(scaled.metadata.generation).toBe(2);
    expect(scaled.status).toEqual({ phase: "Running" });
  });

  it("requires resourceVersion on custom-resource updates", () => {
    const c = testCore();
    c.store.create(
      c.def("apiextensions.k8s.io", "v1", "customresourcedefinitions"),
      undefined,
      WIDGET_CRD,
      c.ctx(),
    );
    const w = c.def("example.com", "v1", "widgets");
    c.store.create(w, "default", { metadata: { name: "w" }, spec: {} }, c.ctx());
    const e = apiError(() =>
      c.store.update(w, "default", "w", { metadata: { name: "w" }, spec: {} }, c.ctx()),
    );
    expect(e.status.message).toBe(
      'widgets.example.com "w" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
    );
  });

  it("keeps finalized objects until the last finalizer goes", () => {
    const c = testCore();
    const cm = c.def("", "v1", "configmaps");
    c.store.create(cm, "default", { metadata: { name: "f", finalizers: ["example.com/keep"] } }, c.ctx());
    const r = deleteObject(c.store, cm, "default", "f", {}, c.ctx());
    expect(r.deleted).toBe(false);
    expect(r.object.metadata.deletionTimestamp).toBe("2025-01-01T00:00:00Z");
    const current = c.store.get(cm, "default", "f");
    const added = apiError(() =>
      c.store.update(
        cm,
        "default",
        "f",
        { ...current, metadata: { ...current.metadata, finalizers: ["example.com/keep", "new"] } },
        c.ctx(),
      ),
    );
    expect(added.status.message).toContain("no new finalizers can be added if the object is being deleted");
    patchObject(
      c.store,
      cm,
      "default",
      "f",
      "application/merge-patch+json",
      '{"metadata":{"finalizers":null}}',
      c.ctx(),
      false,
    );
    expect(c.store.peek(cm, "default", "f")).toBeUndefined();
  });

  it("deletes scheduled pods gracefully and unscheduled ones at once", () => {
    const c = testCore();
    const pods = c.def("", "v1", "pods");
    const spec = { containers: [{ name: "a", image: "x" }] };
    c.store.create(pods, "default", { metadata: { name: "unscheduled" }, spec }, c.ctx());
    c.store.create(
      pods,
      "default",
      { metadata: { name: "running" }, spec: { ...spec, nodeName: "n1" } },
      c.ctx(),
    );
    expect(deleteObject(c.store, pods, "default", "unscheduled", {}, c.ctx()).deleted).toBe(true);
    const r = deleteObject(c.store, pods, "default", "running", {}, c.ctx());
    expect(r.deleted).toBe(false);
    expect(r.object.metadata.deletionGracePeriodSeconds).toBe(30);
    expect(r.object.metadata.deletionTimestamp).toBe("2025-01-01T00:00:30Z");
    expect(
      deleteObject(c.store, pods, "default", "running", { gracePeriodSeconds: 0 }, c.ctx()).deleted,
    ).toBe(true);
  });

  it("garbage-collects dependents: background, foreground (blocking) and orphan", () => {
    const c = testCore();
    const cm = c.def("", "v1", "configmaps");
    const owner = (n: string) => c.store.create(cm, "default", { metadata: { name: n } }, c.ctx());
    const dependent = (n: string, o: KubeObject, block = false) =>
      c.store.create(
        cm,
        "default",
        {
          metadata: {
            name: n,
            ownerReferences: [
              {
                apiVersion: "v1",
                kind: "ConfigMap",
                name: o.metadata.name!,
                uid: o.metadata.uid!,
                blockOwnerDeletion: block,
              },
            ],
          },
        },
        c.ctx(),
      );
    const bg = owner("bg");
    dependent("bg-child", bg);
    deleteObject(c.store, cm, "default", "bg", { propagationPolicy: "Background" }, c.ctx());
    c.settle();
    expect(c.store.peek(cm, "default", "bg-child")).toBeUndefined();

    const fg = owner("fg");
    dependent("fg-child", fg, true);
    const pending = deleteObject(c.store, cm, "default", "fg", { propagationPolicy: "Foreground" }, c.ctx());
    expect(pending.object.metadata.finalizers).toEqual(["foregroundDeletion"]);
    c.settle();
    expect(c.store.peek(cm, "default", "fg-child")).toBeUndefined();
    expect(c.store.peek(cm, "default", "fg")).toBeUndefined();

    const or = owner("or");
    dependent("or-child", or);
    deleteObject(c.store, cm, "default", "or", { propagationPolicy: "Orphan" }, c.ctx());
    c.settle();
    expect(c.store.peek(cm, "default", "or")).toBeUndefined();
    expect(c.store.peek(cm, "default", "or-child")?.metadata.ownerReferences).toBeUndefined();
  });

  it("finalizes a namespace by deleting its contents", () => {
    const c = testCore();
    const ns = c.def("", "v1", "namespaces");
    const cm = c.def("", "v1", "configmaps");
    c.store.create(ns, undefined, { metadata: { name: "team" } }, c.ctx());
    c.store.create(cm, "team", { metadata: { name: "a" } }, c.ctx());
    const r = deleteObject(c.store, ns, undefined, "team", {}, c.ctx());
    expect(r.object.status).toEqual({ phase: "Terminating" });
    const refused = apiError(() => c.store.create(cm, "team", { metadata: { name: "b" } }, c.ctx()));
    expect(refused.status.message).toBe(
      'configmaps "b" is forbidden: unable to create new content in namespace team because it is being terminated',
    );
    c.settle();
    expect(c.store.peek(cm, "team", "a")).toBeUndefined();
    expect(c.store.peek(ns, undefined, "team")).toBeUndefined();
  });

  it("pages lists with limit and continue", () => {
    const c = testCore();
    const cm = c.def("", "v1", "configmaps");
    for (const n of ["a", "b", "c", "d", "e"])
      c.store.create(cm, "default", { metadata: { name: n } }, c.ctx());
    const p1 = c.store.list(cm, "default", { limit: 2 });
    expect(p1.items.map((i) => i.metadata.name)).toEqual(["a", "b"]);
    expect(p1.remainingItemCount).toBe(3);
    const p2 = c.store.list(cm, "default", { limit: 2, continue: p1.continue! });
    expect(p2.items.map((i) => i.metadata.name)).toEqual(["c", "d"]);
    const p3 = c.store.list(cm, "default", { limit: 2, continue: p2.continue! });
    expect(p3.items.map((i) => i.metadata.name)).toEqual(["e"]);
    expect(p3.continue).toBeUndefined();
  });

  it("serves every page of a list as of its first page (one snapshot, as etcd's revision)", () => {
    const c = testCore();
    const cm = c.def("", "v1", "configmaps");
    for (const n of ["a", "b", "c", "d", "e"])
      c.store.create(cm, "default", { metadata: { name: n }, data: { k: "1" } }, c.ctx());
    const p1 = c.store.list(cm, "default", { limit: 2 });
    // Between the pages: a change, a delete, two creates (one sorting into the rest of the list).
    const stored = c.store.get(cm, "default", "c");
    c.store.update(cm, "default", "c", { ...stored, data: { k: "2" } }, c.ctx());
    deleteObject(c.store, cm, "default", "d", {}, c.ctx());
    c.store.create(cm, "default", { metadata: { name: "cc" } }, c.ctx());
    c.store.create(cm, "default", { metadata: { name: "f" } }, c.ctx());
    const p2 = c.store.list(cm, "default", { limit: 2, continue: p1.continue! });
    expect(p2.items.map((i) => [i.metadata.name, i.data])).toEqual([
      ["c", { k: "1" }],
      ["d", { k: "1" }],
    ]);
    expect(p2.resourceVersion).toBe(p1.resourceVersion);
    const p3 = c.store.list(cm, "default", { limit: 2, continue: p2.continue! });
    expect(p3.items.map((i) => i.metadata.name)).toEqual(["e"]);
    expect(p3.continue).toBeUndefined();
    // A new list sees the changes.
    expect(c.store.list(cm, "default", {}).items.map((i) => i.metadata.name)).toEqual([
      "a",
      "b",
      "c",
      "cc",
      "e",
      "f",
    ]);
  });

  it("answers 410 Expired to a continue token older than the resource's event window", () => {
    const c = testCore();
    const cm = c.def("", "v1", "configmaps");
    for (const n of ["a", "b"]) c.store.create(cm, "default", { metadata: { name: n } }, c.ctx());
    const p1 = c.store.list(cm, "default", { limit: 1 });
    c.store.create(cm, "default", { metadata: { name: "c" } }, c.ctx());
    c.objects.beginWatchWindows(); // as after a restart: the change to "c" can no longer be undone
    c.store.create(cm, "default", { metadata: { name: "d" } }, c.ctx());
    const err = apiError(() => c.store.list(cm, "default", { limit: 1, continue: p1.continue! }));
    expect(err.status.code).toBe(410);
    expect(err.status.reason).toBe("Expired");
    expect(err.status.message).toMatch(/^The provided continue parameter is too old/);
  });

  it("honours dryRun", () => {
    const c = testCore();
    const cm = c.def("", "v1", "configmaps");
    const rv = c.objects.currentRv();
    c.store.create(cm, "default", { metadata: { name: "dry" } }, c.ctx({ dryRun: true }));
    expect(c.store.peek(cm, "default", "dry")).toBeUndefined();
    expect(c.objects.currentRv()).toBe(rv);
  });

  it("serves and removes custom resources with their CRD", () => {
    const c = testCore();
    const crds = c.def("apiextensions.k8s.io", "v1", "customresourcedefinitions");
    const crd = c.store.create(crds, undefined, WIDGET_CRD, c.ctx());
    expect(
      (crd.status as { conditions: { type: string; status: string }[] }).conditions.map(
        (x) => `${x.type}=${x.status}`,
      ),
    ).toEqual(["NamesAccepted=True", "Established=True"]);
    const w = c.def("example.com", "v1", "widgets");
    c.store.create(w, "default", { metadata: { name: "w" }, spec: {} }, c.ctx());
    deleteObject(c.store, crds, undefined, "widgets.example.com", {}, c.ctx());
    c.settle();
    expect(c.objects.list("example.com/widgets")).toEqual([]);
    expect(c.store.peek(crds, undefined, "widgets.example.com")).toBeUndefined();
    expect(c.registry.get("example.com", "v1", "widgets")).toBeUndefined();
  });
});

describe("events.k8s.io/v1 shares storage with core/v1 Events", () => {
  it("shows an events.k8s.io Event as a core Event and back", () => {
    const c = testCore();
    const v1 = c.def("events.k8s.io", "v1", "events");
    const core = c.def("", "v1", "events");
    c.store.create(
      v1,
      "default",
      {
        metadata: { name: "e1" },
        regarding: { kind: "Pod", name: "p", namespace: "default" },
        note: "pulled",
        reason: "Pulled",
        type: "Normal",
        reportingController: "kubelet",
        reportingInstance: "node-1",
        action: "Pulling",
        eventTime: "2025-01-01T00:00:00.000000Z",
      },
      c.ctx(),
    );
    const asCore = c.store.get(core, "default", "e1");
    expect(asCore).toMatchObject({
      apiVersion: "v1",
      involvedObject: { name: "p" },
      message: "pulled",
      reportingComponent: "kubelet",
    });
    const list = c.store.list(core, "default", { fieldSelector: "involvedObject.name=p" });
    expect(list.items.map((i) => i.metadata.name)).toEqual(["e1"]);
    const back = c.store.get(v1, "default", "e1");
    expect(back).toMatchObject({ apiVersion: "events.k8s.io/v1", regarding: { name: "p" }, note: "pulled" });
    expect(back.message).toBeUndefined();
  });
});
