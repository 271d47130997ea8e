import { describe, expect, it } from "vitest";
import { OwnerIndex } from "../../../src/apiserver-shim/controllers/owner-index.js";
import type { StoreEvent } from "../../../src/apiserver-shim/storage/event-log.js";
import type { KubeObject } from "../../../src/apiserver-shim/types.js";

const owner = (uid: string, extra: Partial<KubeObject["metadata"]> = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: `o-${uid}`, namespace: "ns", uid, ...extra },
});
const dependent = (name: string, ...owners: string[]): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: {
    name,
    namespace: "ns",
    uid: `u-${name}`,
    ownerReferences: owners.map((uid) => ({ apiVersion: "v1", kind: "ConfigMap", name: `o-${uid}`, uid })),
  },
});
const ev = (type: StoreEvent["type"], object: KubeObject, prev?: KubeObject): StoreEvent => ({
  type,
  rv: 1,
  gr: "/configmaps",
  object,
  ...(prev ? { prev } : {}),
});

describe("OwnerIndex", () => {
  it("asks to look at a new dependent and its owners, and indexes it under them", () => {
    const index = new OwnerIndex();
    const work = index.apply(ev("ADDED", dependent("d1", "a", "b")));
    expect(work.dependents).toEqual([{ gr: "/configmaps", namespace: "ns", name: "d1" }]);
    expect(work.owners.sort()).toEqual(["a", "b"]);
    expect(index.dependentsOf("a")).toEqual([{ gr: "/configmaps", namespace: "ns", name: "d1" }]);
  });

  it("gives an owner's dependents when the owner is deleted or being deleted, nothing for a plain update", () => {
    const index = new OwnerIndex();
    index.apply(ev("ADDED", dependent("d1", "a")));
    index.apply(ev("ADDED", dependent("d2", "a")));
    expect(index.apply(ev("MODIFIED", owner("a"), owner("a")))).toEqual({ dependents: [], owners: [] });
    const deleting = index.apply(ev("MODIFIED", owner("a", { deletionTimestamp: "t" }), owner("a")));
    expect(deleting.dependents.map((d) => d.name).sort()).toEqual(["d1", "d2"]);
    expect(deleting.owners).toEqual(["a"]);
    expect(index.apply(ev("DELETED", owner("a"), owner("a"))).dependents).toHaveLength(2);
  });

  it("forgets references a dependent dropped, and the dependent once deleted", () => {
    const index = new OwnerIndex();
    index.apply(ev("ADDED", dependent("d1", "a", "b")));
    const dropped = index.apply(ev("MODIFIED", dependent("d1", "b"), dependent("d1", "a", "b")));
    // The owner it dropped may be waiting for it (foreground deletion).
    expect(dropped.owners.sort()).toEqual(["a", "b"]);
    expect(index.dependentsOf("a")).toEqual([]);
    const gone = index.apply(ev("DELETED", dependent("d1", "b"), dependent("d1", "b")));
    expect(gone.dependents).toEqual([]);
    expect(gone.owners).toEqual(["b"]);
    expect(index.dependentsOf("b")).toEqual([]);
  });

  it("keeps cluster-scoped names apart from namespaced ones", () => {
    const index = new OwnerIndex();
    const clusterScoped = { ...dependent("d1", "a"), metadata: { ...dependent("d1", "a").metadata } };
    delete clusterScoped.metadata.namespace;
    index.apply({ ...ev("ADDED", clusterScoped), gr: "rbac.authorization.k8s.io/clusterroles" });
    expect(index.dependentsOf("a")).toEqual([
      { gr: "rbac.authorization.k8s.io/clusterroles", namespace: undefined, name: "d1" },
    ]);
  });
});
