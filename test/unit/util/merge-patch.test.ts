import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createMergePatch } from "../../../src/util/merge-patch.js";
import { applyMergePatch } from "../cli/fake-petset-api.js";

// JSON without nulls (a merge patch cannot set null) and with objects that may nest.
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.integer(),
    fc.string(),
    fc.boolean(),
    fc.array(tie("value"), { maxLength: 3 }),
    tie("object"),
  ),
  object: fc.dictionary(fc.constantFrom("a", "b", "c", "image", "labels"), tie("value"), { maxKeys: 4 }),
})).object;

describe("createMergePatch", () => {
  it("applied to current gives desired (property)", () => {
    fc.assert(
      fc.property(json, json, (current, desired) => {
        const patch = createMergePatch(current, desired);
        expect(patch === undefined ? current : applyMergePatch(current, patch)).toEqual(desired);
      }),
    );
  });

  it("deletes keys only the current object has and leaves equal ones out", () => {
    const current = {
      metadata: { annotations: { "petset.dev/restartedAt": "t", keep: "x" } },
      spec: { a: 1 },
    };
    const desired = { metadata: { annotations: { keep: "x" } }, spec: { a: 1 } };
    expect(createMergePatch(current, desired)).toEqual({
      metadata: { annotations: { "petset.dev/restartedAt": null } },
    });
    expect(createMergePatch(desired, structuredClone(desired))).toBeUndefined();
  });

  it("replaces lists whole", () => {
    expect(createMergePatch({ c: [{ name: "a", image: "1" }] }, { c: [{ name: "a", image: "2" }] })).toEqual({
      c: [{ name: "a", image: "2" }],
    });
  });
});
