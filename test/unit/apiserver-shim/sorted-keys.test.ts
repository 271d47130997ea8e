import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ObjectStore } from "../../../src/apiserver-shim/storage/object-store.js";
import { lowerBound, SortedKeys } from "../../../src/apiserver-shim/storage/sorted-keys.js";
import type { KubeObject } from "../../../src/apiserver-shim/types.js";

describe("sorted keys", () => {
  it.each([
    { keys: [], key: "a", index: 0 },
    { keys: ["a", "c"], key: "b", index: 1 },
    { keys: ["a", "c"], key: "c", index: 1 },
    { keys: ["a", "c"], key: "d", index: 2 },
  ])("lowerBound($keys, $key) = $index", ({ keys, key, index }) => {
    expect(lowerBound(keys, key)).toBe(index);
  });

  it("reads a namespace's range after a key, with adds queued and deletes applied", () => {
    const k = new SortedKeys();
    for (const key of ["b/2", "a/1", "b/1", "c/1", "b/3"]) k.add(key);
    expect([...k.range("b/")]).toEqual(["b/1", "b/2", "b/3"]);
    k.delete("b/2");
    k.add("b/0");
    expect([...k.range("b/", "b/0")]).toEqual(["b/1", "b/3"]);
    expect([...k.range("b/", "a/9")]).toEqual(["b/0", "b/1", "b/3"]);
    expect([...k.range("", "b/3")]).toEqual(["c/1"]);
    expect([...k.range("b/", "b/3")]).toEqual([]);
  });
});

const cm = (ns: string, name: string, v: number): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: ns, uid: `${ns}-${name}` },
  data: { v: String(v) },
});

type Op = { kind: "write" | "remove"; ns: string; name: string };
const op = fc.record({
  kind: fc.constantFrom<"write" | "remove">("write", "write", "remove"),
  ns: fc.constantFrom("a", "b", "c"),
  name: fc.constantFrom("x", "y", "z", "w", "v", "u"),
});

/** The naive model: every object with its key, sorted, as of each resourceVersion. */
function naive(states: Map<number, Map<string, KubeObject>>, rv: number, ns?: string, after?: string) {
  const state = states.get(rv)!;
  return [...state.keys()]
    .sort()
    .filter((k) => (ns === undefined || k.startsWith(`${ns}/`)) && (after === undefined || k > after))
    .map((k) => state.get(k)!.data);
}

describe("object store scans (property)", () => {
  it("scan and scanAt read what a full sort of the state at that resourceVersion reads", () => {
    fc.assert(
      fc.property(
        fc.array(op, { minLength: 1, maxLength: 60 }),
        fc.constantFrom(undefined, "a", "b"),
        fc.constantFrom(undefined, "a/w", "b/x", "b/zz"),
        (ops: Op[], ns, after) => {
          const store = new ObjectStore();
          const model = new Map<string, KubeObject>();
          const states = new Map<number, Map<string, KubeObject>>([[0, new Map()]]);
          ops.forEach((o, i) => {
            const key = `${o.ns}/${o.name}`;
            if (o.kind === "write") {
              const obj = cm(o.ns, o.name, i);
              store.write("/configmaps", obj);
              model.set(key, obj);
            } else if (model.has(key)) {
              store.remove("/configmaps", model.get(key)!);
              model.delete(key);
            } else return;
            states.set(store.currentRv(), new Map(model));
          });
          const current = store.currentRv();
          expect(store.list("/configmaps", ns).map((o) => o.data)).toEqual(naive(states, current, ns));
          for (const rv of states.keys()) {
            const rows = store.scanAt("/configmaps", ns, rv, after);
            expect(rows).toBeDefined();
            expect([...rows!].map((o) => o.data)).toEqual(naive(states, rv, ns, after));
          }
        },
      ),
      { numRuns: 300, seed: 20261202 },
    );
  });
});
