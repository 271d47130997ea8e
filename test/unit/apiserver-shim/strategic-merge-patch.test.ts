import { describe, expect, it } from "vitest";
import { builtinTypeRoot } from "../../../src/apiserver-shim/builtin/openapi-docs.js";
import { applyMergePatch } from "../../../src/apiserver-shim/patch/merge-patch.js";
import { applyStrategicMergePatch } from "../../../src/apiserver-shim/patch/strategic-merge-patch.js";

const podType = builtinTypeRoot("api/v1", "io.k8s.api.core.v1.Pod");
const pod = {
  metadata: { labels: { a: "1", b: "2" }, finalizers: ["x"] },
  spec: {
    containers: [
      { name: "app", image: "app:1", env: [{ name: "A", value: "1" }] },
      { name: "side", image: "side:1" },
    ],
    tolerations: [{ key: "k", operator: "Exists" }],
  },
};

describe("strategic merge patch (built-ins, merge keys from OpenAPI)", () => {
  it("merges containers by name and env by name", () => {
    const out = applyStrategicMergePatch(
      pod,
      { spec: { containers: [{ name: "app", image: "app:2", env: [{ name: "B", value: "2" }] }] } },
      podType(),
    );
    expect(out).toMatchObject({
      spec: {
        containers: [
          {
            name: "app",
            image: "app:2",
            env: [
              { name: "A", value: "1" },
              { name: "B", value: "2" },
            ],
          },
          { name: "side", image: "side:1" },
        ],
      },
    });
  });

  it("deletes list items and map keys, replaces atomic lists", () => {
    const out = applyStrategicMergePatch(
      pod,
      {
        metadata: { labels: { a: null } },
        spec: {
          containers: [{ name: "side", $patch: "delete" }],
          tolerations: [{ key: "z", operator: "Exists" }],
        },
      },
      podType(),
    ) as typeof pod;
    expect(out.metadata.labels).toEqual({ b: "2" });
    expect(out.spec.containers.map((c) => c.name)).toEqual(["app"]);
    expect(out.spec.tolerations).toEqual([{ key: "z", operator: "Exists" }]);
  });

  it("honours $setElementOrder and $deleteFromPrimitiveList", () => {
    const out = applyStrategicMergePatch(
      pod,
      {
        metadata: { "$deleteFromPrimitiveList/finalizers": ["x"] },
        spec: { "$setElementOrder/containers": [{ name: "side" }, { name: "app" }] },
      },
      podType(),
    ) as typeof pod;
    expect(out.spec.containers.map((c) => c.name)).toEqual(["side", "app"]);
    expect(out.metadata.finalizers).toEqual([]);
  });
});

describe("JSON merge patch", () => {
  it("follows RFC 7386", () => {
    expect(applyMergePatch({ a: { b: 1, c: 2 }, l: [1, 2] }, { a: { b: null, d: 3 }, l: [3] })).toEqual({
      a: { c: 2, d: 3 },
      l: [3],
    });
  });
});
