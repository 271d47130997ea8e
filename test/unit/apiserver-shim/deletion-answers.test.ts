/**
 * Differences the conformance suite (test/conformance) found between the embedded server and
 * kube-apiserver 1.33, fixed in the shim (issue 24, "Also"): what a DELETE, and the update that
 * removes the last finalizer, answer and write, read from kube's generic registry, so it fails
 * here without the cluster the conformance suite needs.
 */
import { describe, expect, it } from "vitest";
import { deleteObject } from "../../../src/apiserver-shim/registry/deletion.js";
import { patchObject } from "../../../src/apiserver-shim/registry/patching.js";
import type { StoreEvent } from "../../../src/apiserver-shim/storage/object-store.js";
import { testCore } from "./fixtures.js";

describe("issue 24 conformance: deletion answers", () => {
  it("an unscheduled pod's DELETE answers the pod marked deleted (grace 0), written before it is removed", () => {
    const c = testCore();
    const pods = c.def("", "v1", "pods");
    expect(pods.strategy.returnDeletedObject).toBe(true);
    c.store.create(
      pods,
      "default",
      { metadata: { name: "p1" }, spec: { containers: [{ name: "a", image: "x" }] } },
      c.ctx(),
    );
    const seen: StoreEvent[] = [];
    c.objects.subscribe((e) => seen.push(e));
    const r = deleteObject(c.store, pods, "default", "p1", {}, c.ctx());
    expect(r.deleted).toBe(true);
    expect(r.object.metadata).toMatchObject({
      deletionTimestamp: "2025-01-01T00:00:00Z",
      deletionGracePeriodSeconds: 0,
      generation: 2,
    });
    expect(seen.map((e) => e.type)).toEqual(["MODIFIED", "DELETED"]);
    expect(r.object.metadata.resourceVersion).toBe(String(seen[0]?.rv));
    expect(c.store.peek(pods, "default", "p1")).toBeUndefined();
  });

  it("a namespace's DELETE sets deletionTimestamp and Terminating only (no finalizers [], no grace period)", () => {
    const c = testCore();
    const namespaces = c.def("", "v1", "namespaces");
    expect(namespaces.strategy.returnDeletedObject).toBe(true);
    c.store.create(namespaces, undefined, { metadata: { name: "ns1" } }, c.ctx());
    const r = deleteObject(c.store, namespaces, undefined, "ns1", {}, c.ctx());
    expect(r.deleted).toBe(false);
    expect(r.object.metadata.deletionTimestamp).toBe("2025-01-01T00:00:00Z");
    expect(r.object.metadata).not.toHaveProperty("deletionGracePeriodSeconds");
    expect(r.object.metadata).not.toHaveProperty("finalizers");
    expect(r.object.status).toEqual({ phase: "Terminating" });
  });

  it("the update removing the last finalizer of a deleted object answers its last stored resourceVersion", () => {
    const c = testCore();
    const cm = c.def("", "v1", "configmaps");
    c.store.create(cm, "default", { metadata: { name: "f", finalizers: ["example.com/keep"] } }, c.ctx());
    const pending = deleteObject(c.store, cm, "default", "f", {}, c.ctx());
    const seen: StoreEvent[] = [];
    c.objects.subscribe((e) => seen.push(e));
    const r = patchObject(
      c.store,
      cm,
      "default",
      "f",
      "application/merge-patch+json",
      '{"metadata":{"finalizers":null}}',
      c.ctx(),
      false,
    );
    expect(r.object.metadata.resourceVersion).toBe(pending.object.metadata.resourceVersion);
    expect(r.object.metadata).not.toHaveProperty("finalizers");
    expect(seen.map((e) => [e.type, e.object.metadata.resourceVersion])).toEqual([
      ["DELETED", String(Number(pending.object.metadata.resourceVersion) + 1)],
    ]);
  });
});

describe("issue 24 conformance: finalizers added to a deleted object", () => {
  it("are refused naming the new finalizers, one message and two causes (kube validates ObjectMeta updates twice)", () => {
    const c = testCore();
    const cm = c.def("", "v1", "configmaps");
    c.store.create(cm, "default", { metadata: { name: "f", finalizers: ["example.com/keep"] } }, c.ctx());
    deleteObject(c.store, cm, "default", "f", {}, c.ctx());
    let status: unknown;
    try {
      patchObject(
        c.store,
        cm,
        "default",
        "f",
        "application/merge-patch+json",
        '{"metadata":{"finalizers":["example.com/keep","example.com/z","example.com/a"]}}',
        c.ctx(),
        false,
      );
    } catch (e) {
      status = (e as { status: unknown }).status;
    }
    const detail =
      'no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/a", "example.com/z"}';
    expect(status).toMatchObject({
      code: 422,
      message: `ConfigMap "f" is invalid: metadata.finalizers: Forbidden: ${detail}`,
      details: {
        causes: [
          { reason: "FieldValueForbidden", field: "metadata.finalizers", message: `Forbidden: ${detail}` },
          { reason: "FieldValueForbidden", field: "metadata.finalizers", message: `Forbidden: ${detail}` },
        ],
      },
    });
  });
});
