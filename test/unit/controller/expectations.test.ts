import { describe, expect, it } from "vitest";
import {
  type CachedObject,
  type Expectation,
  ExpectationStore,
  isObserved,
} from "../../../src/controller/expectations.js";

const obj = (uid: string, resourceVersion: string, terminating = false): CachedObject => ({
  uid,
  resourceVersion,
  terminating,
});

describe("isObserved", () => {
  const cases: { name: string; e: Expectation; cached: CachedObject | undefined; observed: boolean }[] = [
    {
      name: "create, not in cache",
      e: { kind: "present", resource: "pods", name: "web-0", uid: "a" },
      cached: undefined,
      observed: false,
    },
    {
      name: "create, in cache",
      e: { kind: "present", resource: "pods", name: "web-0", uid: "a" },
      cached: obj("a", "5"),
      observed: true,
    },
    {
      name: "create, a newer incarnation",
      e: { kind: "present", resource: "pods", name: "web-0", uid: "a" },
      cached: obj("b", "9"),
      observed: true,
    },
    {
      name: "delete, still there",
      e: { kind: "gone", resource: "pods", name: "web-0", uid: "a" },
      cached: obj("a", "5"),
      observed: false,
    },
    {
      name: "delete, terminating",
      e: { kind: "gone", resource: "pods", name: "web-0", uid: "a" },
      cached: obj("a", "6", true),
      observed: true,
    },
    {
      name: "delete, gone",
      e: { kind: "gone", resource: "pods", name: "web-0", uid: "a" },
      cached: undefined,
      observed: true,
    },
    {
      name: "delete, replaced",
      e: { kind: "gone", resource: "pods", name: "web-0", uid: "a" },
      cached: obj("b", "7"),
      observed: true,
    },
    {
      name: "patch, cache at the old rv",
      e: { kind: "changed", resource: "pods", name: "web-0", uid: "a", from: "5" },
      cached: obj("a", "5"),
      observed: false,
    },
    {
      name: "patch, cache moved on",
      e: { kind: "changed", resource: "pods", name: "web-0", uid: "a", from: "5" },
      cached: obj("a", "8"),
      observed: true,
    },
    {
      name: "patch, object replaced",
      e: { kind: "changed", resource: "pods", name: "web-0", uid: "a", from: "5" },
      cached: obj("b", "5"),
      observed: true,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(isObserved(c.e, () => c.cached)).toBe(c.observed);
    });
  }
});

describe("ExpectationStore", () => {
  it("keeps what the cache has not shown, drops what it has, and expires after the timeout", () => {
    const store = new ExpectationStore(1000);
    const create: Expectation = { kind: "present", resource: "pods", name: "web-0" };
    const patch: Expectation = { kind: "changed", resource: "pods", name: "web-1", uid: "u", from: "3" };
    store.expect("ns/web", create, 0);
    store.expect("ns/web", patch, 500);
    const cache = new Map<string, CachedObject>([["web-1", obj("u", "3")]]);
    const lookup = (_r: string, name: string) => cache.get(name);
    expect(store.check("ns/web", lookup, 100).pending).toEqual([create, patch]);
    cache.set("web-0", obj("x", "1"));
    const after = store.check("ns/web", lookup, 200);
    expect(after.pending).toEqual([patch]);
    expect(after.expiresAt).toBe(1500);
    const expired = store.check("ns/web", lookup, 1500);
    expect(expired.pending).toEqual([]);
    expect(expired.expired).toEqual([patch]);
    expect(store.size).toBe(0);
  });

  it("keys are independent", () => {
    const store = new ExpectationStore(1000);
    store.expect("ns/a", { kind: "present", resource: "pods", name: "a-0" }, 0);
    expect(store.check("ns/b", () => undefined, 0).pending).toEqual([]);
    store.forget("ns/a");
    expect(store.check("ns/a", () => undefined, 0).pending).toEqual([]);
  });
});
