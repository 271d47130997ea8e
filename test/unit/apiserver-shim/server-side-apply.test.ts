import { describe, expect, it } from "vitest";
import { FieldSet, fieldSetOf } from "../../../src/apiserver-shim/apply/field-set.js";
import {
  managedFieldsAfterUpdate,
  serverSideApply,
} from "../../../src/apiserver-shim/apply/managed-fields.js";
import { builtinTypeRoot } from "../../../src/apiserver-shim/builtin/openapi-docs.js";
import { ApiError } from "../../../src/apiserver-shim/errors.js";
import type { KubeObject } from "../../../src/apiserver-shim/types.js";

const podType = builtinTypeRoot("api/v1", "io.k8s.api.core.v1.Pod")();
const now = new Date("2025-01-01T00:00:00Z");
const scope = { subresource: "", statusSubresource: true };

const pod = (image: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "default", labels: { app: "a" } },
  spec: { containers: [{ name: "c", image, ...extra }] },
});

describe("field sets", () => {
  it("encodes associative lists, map entries and struct fields like kube", () => {
    const set = fieldSetOf(pod("x"), podType);
    expect(set.toFieldsV1()).toEqual({
      "f:apiVersion": {},
      "f:kind": {},
      "f:metadata": { "f:labels": { "f:app": {} }, "f:name": {}, "f:namespace": {} },
      "f:spec": { "f:containers": { 'k:{"name":"c"}': { ".": {}, "f:image": {}, "f:name": {} } } },
    });
    expect(FieldSet.fromFieldsV1(set.toFieldsV1()).toFieldsV1()).toEqual(set.toFieldsV1());
  });
});

describe("managedFields on update", () => {
  it("gives changed fields to the updater and takes them from others", () => {
    const created = pod("x");
    created.metadata.managedFields = managedFieldsAfterUpdate({
      old: undefined,
      updated: created,
      type: podType,
      manager: "creator",
      apiVersion: "v1",
      scope,
      now,
    });
    expect(created.metadata.managedFields?.[0]?.fieldsV1).toMatchObject({
      "f:spec": { "f:containers": { 'k:{"name":"c"}': { "f:image": {} } } },
    });
    const updated = pod("y");
    updated.metadata.managedFields = managedFieldsAfterUpdate({
      old: created,
      updated,
      type: podType,
      manager: "editor",
      apiVersion: "v1",
      scope,
      now,
    });
    const byManager = Object.fromEntries(
      (updated.metadata.managedFields ?? []).map((m) => [m.manager, m.fieldsV1]),
    );
    expect(JSON.stringify(byManager.creator)).not.toContain("f:image");
    expect(byManager.editor).toEqual({
      "f:spec": { "f:containers": { 'k:{"name":"c"}': { "f:image": {} } } },
    });
  });
});

describe("server-side apply", () => {
  it("merges, co-owns equal values, conflicts on different ones, and forces", () => {
    const first = serverSideApply({
      live: undefined,
      config: pod("x"),
      type: podType,
      manager: "a",
      apiVersion: "v1",
      scope,
      force: false,
      now,
    });
    const shared = serverSideApply({
      live: first,
      config: pod("x"),
      type: podType,
      manager: "b",
      apiVersion: "v1",
      scope,
      force: false,
      now,
    });
    expect(shared.metadata.managedFields?.map((m) => m.manager)).toEqual(["a", "b"]);
    let err: unknown;
    try {
      serverSideApply({
        live: shared,
        config: pod("y"),
        type: podType,
        manager: "c",
        apiVersion: "v1",
        scope,
        force: false,
        now,
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status.message).toBe(
      'Apply failed with 2 conflicts: conflicts with "a":\n- .spec.containers[name="c"].image\nconflicts with "b":\n- .spec.containers[name="c"].image',
    );
    const forced = serverSideApply({
      live: shared,
      config: pod("y"),
      type: podType,
      manager: "c",
      apiVersion: "v1",
      scope,
      force: true,
      now,
    });
    expect((forced.spec as { containers: { image: string }[] }).containers[0]!.image).toBe("y");
  });

  it("removes fields the applier stopped setting unless someone else owns them", () => {
    const withPorts = serverSideApply({
      live: undefined,
      config: pod("x", { workingDir: "/w" }),
      type: podType,
      manager: "a",
      apiVersion: "v1",
      scope,
      force: false,
      now,
    });
    const dropped = serverSideApply({
      live: withPorts,
      config: pod("x"),
      type: podType,
      manager: "a",
      apiVersion: "v1",
      scope,
      force: false,
      now,
    });
    expect(
      (dropped.spec as { containers: Record<string, unknown>[] }).containers[0]!.workingDir,
    ).toBeUndefined();
    const otherOwns = serverSideApply({
      live: withPorts,
      config: pod("x", { workingDir: "/w" }),
      type: podType,
      manager: "b",
      apiVersion: "v1",
      scope,
      force: false,
      now,
    });
    const kept = serverSideApply({
      live: otherOwns,
      config: pod("x"),
      type: podType,
      manager: "a",
      apiVersion: "v1",
      scope,
      force: false,
      now,
    });
    expect((kept.spec as { containers: Record<string, unknown>[] }).containers[0]!.workingDir).toBe("/w");
  });
});

describe("associative list keys with defaults", () => {
  it("matches an item that omits a defaulted key (ports' protocol) instead of duplicating it", () => {
    const live = pod("x", { ports: [{ containerPort: 80, protocol: "TCP" }] });
    const applied = serverSideApply({
      live,
      config: pod("x", { ports: [{ containerPort: 80, name: "http" }] }),
      type: podType,
      manager: "a",
      apiVersion: "v1",
      scope,
      force: false,
      now,
    });
    expect((applied.spec as { containers: { ports: unknown[] }[] }).containers[0]!.ports).toEqual([
      { containerPort: 80, protocol: "TCP", name: "http" },
    ]);
  });
});
