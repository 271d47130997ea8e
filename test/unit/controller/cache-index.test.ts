import type { KubernetesObject } from "@kubernetes/client-node";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { byControllerUid, byLabel, byNamePrefix, CacheIndex } from "../../../src/controller/cache-index.js";

const obj = (ns: string, name: string, petSet?: string): KubernetesObject => ({
  metadata: { namespace: ns, name, ...(petSet ? { labels: { "petset.dev/petset": petSet } } : {}) },
});
const names = (objs: readonly KubernetesObject[]) => objs.map((o) => o.metadata?.name).sort();

describe("CacheIndex by label", () => {
  it("lists the objects of one namespace with one label value", () => {
    const index = new CacheIndex(byLabel("petset.dev/petset"));
    index.put(obj("a", "web-v1", "web"));
    index.put(obj("a", "web-v2", "web"));
    index.put(obj("a", "db-v1", "db"));
    index.put(obj("b", "web-v1", "web"));
    index.put(obj("a", "unlabelled"));
    expect(names(index.list("a", "web"))).toEqual(["web-v1", "web-v2"]);
    expect(names(index.list("b", "web"))).toEqual(["web-v1"]);
    expect(index.list("a", "nothing")).toEqual([]);
  });

  it("follows an update to the newest object and a label change, and forgets deleted ones", () => {
    const index = new CacheIndex(byLabel("petset.dev/petset"));
    index.put(obj("a", "x", "web"));
    const newer = obj("a", "x", "web");
    index.put(newer);
    expect(index.list("a", "web")).toEqual([newer]);
    index.put(obj("a", "x", "db"));
    expect(index.list("a", "web")).toEqual([]);
    expect(names(index.list("a", "db"))).toEqual(["x"]);
    // The informer's delete hands over the last state it knew, labels possibly stale.
    index.remove(obj("a", "x"));
    expect(index.list("a", "db")).toEqual([]);
  });
});

describe("CacheIndex by name prefix", () => {
  it("lists exactly the names that start with <prefix>-", () => {
    const index = new CacheIndex(byNamePrefix);
    for (const n of ["web-0", "web-10", "web-db-0", "data-web-0", "web", "webx-0", "web--1"])
      index.put(obj("a", n));
    expect(names(index.list("a", "web"))).toEqual(["web--1", "web-0", "web-10", "web-db-0"]);
    expect(names(index.list("a", "web-db"))).toEqual(["web-db-0"]);
    expect(names(index.list("a", "web-"))).toEqual(["web--1"]);
    expect(names(index.list("a", "data"))).toEqual(["data-web-0"]);
    index.remove(obj("a", "web-db-0"));
    expect(names(index.list("a", "web"))).toEqual(["web--1", "web-0", "web-10"]);
    expect(index.list("a", "web-db")).toEqual([]);
  });
});

describe("CacheIndex by controller uid", () => {
  const owned = (name: string, uid: string, controller: boolean): KubernetesObject => ({
    metadata: {
      namespace: "a",
      name,
      ownerReferences: [{ apiVersion: "petset.dev/v1alpha1", kind: "PetSet", name: "web", uid, controller }],
    },
  });

  it("lists the objects a uid controls, not those it merely owns, and follows a change of controller", () => {
    const index = new CacheIndex(byControllerUid);
    index.put(owned("web-0", "u1", true));
    index.put(owned("web-1", "u1", false));
    index.put(obj("a", "web-2"));
    expect(names(index.list("a", "u1"))).toEqual(["web-0"]);
    index.put(owned("web-0", "u2", true));
    expect(index.list("a", "u1")).toEqual([]);
    expect(names(index.list("a", "u2"))).toEqual(["web-0"]);
  });
});

describe("CacheIndex groups of any size (small ones are arrays, large ones Sets)", () => {
  it("lists what a plain model of the objects says, through adds, updates, relabels and deletes", () => {
    const op = fc.record({
      kind: fc.constantFrom("put", "put", "put", "remove"),
      name: fc.integer({ min: 0, max: 29 }),
      label: fc.constantFrom("web", "web", "db", undefined),
    });
    fc.assert(
      fc.property(fc.array(op, { minLength: 60, maxLength: 200 }), (ops) => {
        const index = new CacheIndex(byLabel("petset.dev/petset"));
        const model = new Map<string, KubernetesObject>();
        for (const o of ops) {
          const name = `p-${o.name}`;
          if (o.kind === "remove") {
            // The informer's delete hands over the last state it knew, or an older one.
            index.remove(obj("a", name, o.label));
            model.delete(name);
          } else {
            const object = obj("a", name, o.label);
            index.put(object);
            model.set(name, object);
          }
        }
        for (const label of ["web", "db"]) {
          const want = [...model.values()].filter((m) => m.metadata?.labels?.["petset.dev/petset"] === label);
          const got = index.list("a", label);
          expect(names(got)).toEqual(names(want));
          // The newest object of each name, not an earlier state of it.
          for (const g of got) expect(model.get(g.metadata?.name ?? "")).toBe(g);
        }
      }),
      { seed: 29, numRuns: 300 },
    );
  });
});
