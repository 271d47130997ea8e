import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PetSetStatus } from "../../../src/api/index.js";
import { canonicalStatus, sameStatus } from "../../../src/controller/status-compare.js";

const status = (s: Record<string, unknown>): PetSetStatus => s as PetSetStatus;

/** The same status as the API would store it, written differently (keys, undefined, times). */
function equivalent(v: unknown, inArray = false): unknown {
  if (v === undefined && inArray) return null;
  if (typeof v === "string" && v.endsWith(":00Z")) return v.replace(/Z$/, ".5Z");
  if (Array.isArray(v)) return v.map((x) => equivalent(x, true));
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).reverse()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = equivalent(x);
    }
    return out;
  }
  return v;
}

describe("sameStatus: what canonicalStatus equality says, without building strings", () => {
  it.each([
    ["keys in another order", { replicas: 1, ready: "1/1" }, { ready: "1/1", replicas: 1 }, true],
    ["an undefined key and an absent one", { replicas: 1, selector: undefined }, { replicas: 1 }, true],
    ["a changed count", { replicas: 1 }, { replicas: 2 }, false],
    ["an extra key", { replicas: 1 }, { replicas: 1, readyReplicas: 0 }, false],
    [
      "times with and without fractions",
      { conditions: [{ type: "A", lastTransitionTime: "2026-12-06T12:00:00.250Z" }] },
      { conditions: [{ type: "A", lastTransitionTime: "2026-12-06T12:00:00Z" }] },
      true,
    ],
    [
      "a Date and its string",
      { conditions: [{ type: "A", lastTransitionTime: new Date("2026-12-06T12:00:00.900Z") }] },
      { conditions: [{ type: "A", lastTransitionTime: "2026-12-06T12:00:00Z" }] },
      true,
    ],
    [
      "conditions in another order",
      { conditions: [{ type: "A" }, { type: "B" }] },
      { conditions: [{ type: "B" }, { type: "A" }] },
      false,
    ],
    ["an array and an object", { hooks: [] }, { hooks: {} }, false],
    ["null and absent", { hooks: null }, {}, false],
  ])("%s", (_, a, b, want) => {
    expect(canonicalStatus(status(a)) === canonicalStatus(status(b))).toBe(want);
    expect(sameStatus(status(a), status(b))).toBe(want);
    expect(sameStatus(status(b), status(a))).toBe(want);
  });

  it("agrees with canonicalStatus on generated statuses", () => {
    const time = fc.constantFrom("2026-12-06T12:00:00Z", "2026-12-06T12:00:00.5Z", "2026-12-06T12:00:01Z");
    const leaf = fc.oneof(
      fc.integer({ min: 0, max: 2 }),
      fc.constantFrom("a", "b", "True"),
      time,
      fc.constant(undefined),
      fc.constant(null),
      fc.boolean(),
    );
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: "small" }, leaf, tie("array"), tie("object")),
      array: fc.array(tie("node"), { maxLength: 3 }),
      object: fc.dictionary(fc.constantFrom("replicas", "ready", "conditions", "type", "x"), tie("node"), {
        maxKeys: 4,
      }),
    }));
    const pair = fc.oneof(
      fc.tuple(value.object, value.object),
      value.object.map((o) => [o, structuredClone(o)] as const),
      value.object.map((o) => [o, equivalent(o)] as const),
    );
    fc.assert(
      fc.property(pair, ([a, b]) => {
        const s = status(a as Record<string, unknown>);
        const t = status(b as Record<string, unknown>);
        expect(sameStatus(s, t)).toBe(canonicalStatus(s) === canonicalStatus(t));
      }),
      { seed: 29, numRuns: 2000 },
    );
  });
});
