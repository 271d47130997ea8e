import { describe, expect, it } from "vitest";
import { goJson, LAST_APPLIED_ANNOTATION, withLastApplied } from "../../../src/cli/last-applied.js";

describe("kubectl's last-applied annotation", () => {
  it("is what kubectl apply wrote for a ConfigMap it created (keys sorted, annotations {}, a newline)", () => {
    const manifest = {
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: { namespace: "default", name: "store-members" },
      data: { members: "store-0 store-1 store-2" },
    };
    const annotated = withLastApplied(manifest) as { metadata: { annotations: Record<string, string> } };
    // Read back from a ConfigMap created by `kubectl apply -f` (kubectl 1.33).
    expect(annotated.metadata.annotations[LAST_APPLIED_ANNOTATION]).toBe(
      '{"apiVersion":"v1","data":{"members":"store-0 store-1 store-2"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"store-members","namespace":"default"}}\n',
    );
    expect(manifest.metadata).toEqual({ namespace: "default", name: "store-members" });
  });

  it("keeps the other annotations and replaces an earlier last-applied one", () => {
    const annotated = withLastApplied({
      metadata: { name: "a", annotations: { "x/y": "1", [LAST_APPLIED_ANNOTATION]: "old" } },
    }) as { metadata: { annotations: Record<string, string> } };
    expect(annotated.metadata.annotations).toEqual({
      "x/y": "1",
      [LAST_APPLIED_ANNOTATION]: '{"metadata":{"annotations":{"x/y":"1"},"name":"a"}}\n',
    });
  });

  it.each([
    ["HTML-safe strings, as Go's encoder", { s: "a<b>&c\u2028" }, '{"s":"a\\u003cb\\u003e\\u0026c\\u2028"}'],
    ["keys in byte order", { b: 1, B: 2, a: [true, null, 0.5] }, '{"B":2,"a":[true,null,0.5],"b":1}'],
  ])("goJson: %s", (_what, value, expected) => {
    expect(goJson(value)).toBe(expected);
  });
});
