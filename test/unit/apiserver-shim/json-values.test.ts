/**
 * deepClone and deepEqual walk JSON values directly (they were a JSON round trip and a
 * comparison of two canonical serializations, the embedded server's largest costs): they
 * must keep exactly the old semantics, checked against those definitions on generated values.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, deepClone, deepEqual } from "../../../src/apiserver-shim/types.js";

const member = fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom("__proto__", "constructor", "a", "b"));
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.double(),
    fc.string({ maxLength: 6 }),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(member, tie("value"), { maxKeys: 4 }),
  ),
})).value;
/** Values as a program builds them: members set to undefined and arrays holding it. */
const withUndefined = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    json,
    fc.constant(undefined),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(member, tie("value"), { maxKeys: 3 }),
  ),
})).value;

describe("deepClone", () => {
  it("equals the JSON round trip, including __proto__ members kept as data", () => {
    fc.assert(
      fc.property(fc.dictionary(member, withUndefined, { maxKeys: 5 }), (v) => {
        const copy = deepClone(v);
        expect(JSON.stringify(copy)).toBe(JSON.stringify(v));
        expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
      }),
    );
  });

  it("shares nothing with the original", () => {
    const v = { a: { b: [1, { c: 2 }] } };
    const copy = deepClone(v);
    (copy.a.b[1] as { c: number }).c = 3;
    expect(v.a.b[1]).toEqual({ c: 2 });
  });
});

describe("deepEqual", () => {
  it("agrees with comparing canonical JSON", () => {
    fc.assert(
      fc.property(json, json, (a, b) => {
        expect(deepEqual(a, b)).toBe(canonicalJson(a) === canonicalJson(b));
        expect(deepEqual(a, deepClone(a))).toBe(true);
      }),
    );
  });

  it("ignores key order and undefined members", () => {
    expect(deepEqual({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1, d: undefined })).toBe(true);
    expect(deepEqual({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(deepEqual([1, 2], [2, 1])).toBe(false);
  });
});
