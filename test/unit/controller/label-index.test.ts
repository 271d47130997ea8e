import type { KubernetesObject } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { LabelIndex } from "../../../src/controller/label-index.js";

const obj = (ns: string, name: string, petSet?: string): KubernetesObject => ({
  metadata: { namespace: ns, name, ...(petSet ? { labels: { "petset.dev/petset": petSet } } : {}) },
});
const names = (objs: readonly KubernetesObject[]) => objs.map((o) => o.metadata?.name).sort();

describe("LabelIndex", () => {
  it("lists the objects of one namespace with one label value", () => {
    const index = new LabelIndex("petset.dev/petset");
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
    const index = new LabelIndex("petset.dev/petset");
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
