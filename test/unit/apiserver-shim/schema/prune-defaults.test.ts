import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyDefaults, pruneUnknownFields } from "../../../../src/apiserver-shim/schema/index.js";

type Schema = Record<string, unknown>;
const pruned = (schema: Schema, obj: unknown): unknown => {
  const copy = structuredClone(obj);
  pruneUnknownFields(schema, copy);
  return copy;
};
const defaulted = (schema: Schema, obj: unknown): unknown => {
  const copy = structuredClone(obj);
  applyDefaults(schema, copy);
  return copy;
};

describe("pruneUnknownFields (kube's pruning algorithm)", () => {
  const cases: Array<[string, Schema, unknown, unknown]> = [
    [
      "keeps apiVersion, kind, metadata at the root",
      { type: "object" },
      { apiVersion: "a/v1", kind: "K", metadata: { name: "x" }, junk: 1 },
      { apiVersion: "a/v1", kind: "K", metadata: { name: "x" } },
    ],
    ["drops a non-string kind", { type: "object" }, { kind: 1 }, {}],
    [
      "drops unknown nested fields",
      { type: "object", properties: { spec: { type: "object", properties: { a: { type: "string" } } } } },
      { spec: { a: "x", b: "y" } },
      { spec: { a: "x" } },
    ],
    [
      "walks array items",
      {
        type: "object",
        properties: {
          l: { type: "array", items: { type: "object", properties: { a: { type: "integer" } } } },
        },
      },
      { l: [{ a: 1, b: 2 }, { c: 3 }] },
      { l: [{ a: 1 }, {}] },
    ],
    [
      "keeps map values under additionalProperties and prunes inside them",
      {
        type: "object",
        properties: {
          m: {
            type: "object",
            additionalProperties: { type: "object", properties: { a: { type: "string" } } },
          },
        },
      },
      { m: { x: { a: "1", b: "2" } } },
      { m: { x: { a: "1" } } },
    ],
    [
      "preserve-unknown-fields keeps unknown fields but prunes declared subtrees",
      {
        type: "object",
        properties: {
          p: {
            type: "object",
            "x-kubernetes-preserve-unknown-fields": true,
            properties: { known: { type: "object", properties: { a: { type: "string" } } } },
          },
        },
      },
      { p: { free: { any: 1 }, known: { a: "x", b: "y" } } },
      { p: { free: { any: 1 }, known: { a: "x" } } },
    ],
    [
      "embedded resources keep apiVersion, kind and metadata",
      {
        type: "object",
        properties: {
          e: {
            type: "object",
            "x-kubernetes-embedded-resource": true,
            properties: { spec: { type: "object" } },
          },
        },
      },
      { e: { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { x: 1 }, junk: 1 } },
      { e: { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: {} } },
    ],
    [
      "leaves int-or-string values alone",
      { type: "object", properties: { v: { "x-kubernetes-int-or-string": true } } },
      { v: "25%" },
      { v: "25%" },
    ],
  ];
  it.each(cases)("%s", (_name, schema, input, expected) => {
    expect(pruned(schema, input)).toEqual(expected);
  });
});

describe("applyDefaults (kube's structural defaulting)", () => {
  const schema: Schema = {
    type: "object",
    properties: {
      spec: {
        type: "object",
        properties: {
          replicas: { type: "integer", default: 1 },
          strategy: {
            type: "object",
            default: {},
            properties: {
              type: { type: "string", default: "RollingUpdate" },
              partition: { type: "integer", default: 0 },
            },
          },
          nullableWithDefault: { type: "string", nullable: true, default: "d" },
          notNullable: { type: "string", default: "n" },
          noDefault: { type: "string" },
          items: {
            type: "array",
            items: { type: "object", properties: { protocol: { type: "string", default: "TCP" } } },
          },
          byName: {
            type: "object",
            additionalProperties: { type: "object", properties: { on: { type: "boolean", default: true } } },
          },
        },
      },
    },
  };
  const cases: Array<[string, unknown, unknown]> = [
    [
      "fills missing fields, and the children of defaulted objects",
      { spec: {} },
      {
        spec: {
          replicas: 1,
          strategy: { type: "RollingUpdate", partition: 0 },
          notNullable: "n",
          nullableWithDefault: "d",
        },
      },
    ],
    [
      "keeps given values",
      { spec: { replicas: 3, strategy: { type: "OnDelete" } } },
      {
        spec: {
          replicas: 3,
          strategy: { type: "OnDelete", partition: 0 },
          notNullable: "n",
          nullableWithDefault: "d",
        },
      },
    ],
    [
      "replaces null of a non-nullable field with its default",
      { spec: { notNullable: null } },
      {
        spec: {
          replicas: 1,
          strategy: { type: "RollingUpdate", partition: 0 },
          notNullable: "n",
          nullableWithDefault: "d",
        },
      },
    ],
    [
      "keeps null of a nullable field",
      { spec: { nullableWithDefault: null } },
      {
        spec: {
          replicas: 1,
          strategy: { type: "RollingUpdate", partition: 0 },
          notNullable: "n",
          nullableWithDefault: null,
        },
      },
    ],
    [
      "drops null of a non-nullable field without default",
      { spec: { noDefault: null, replicas: 2, strategy: {}, notNullable: "x", nullableWithDefault: "y" } },
      {
        spec: {
          replicas: 2,
          strategy: { type: "RollingUpdate", partition: 0 },
          notNullable: "x",
          nullableWithDefault: "y",
        },
      },
    ],
    [
      "defaults inside array items and map values",
      { spec: { items: [{}, { protocol: "UDP" }], byName: { a: {} } } },
      {
        spec: {
          replicas: 1,
          strategy: { type: "RollingUpdate", partition: 0 },
          notNullable: "n",
          nullableWithDefault: "d",
          items: [{ protocol: "TCP" }, { protocol: "UDP" }],
          byName: { a: { on: true } },
        },
      },
    ],
  ];
  it.each(cases)("%s", (_name, input, expected) => {
    expect(defaulted(schema, input)).toEqual(expected);
  });

  it("never shares a default between objects", () => {
    const a = defaulted(schema, { spec: {} }) as { spec: { strategy: { partition: number } } };
    a.spec.strategy.partition = 5;
    expect((defaulted(schema, { spec: {} }) as typeof a).spec.strategy.partition).toBe(0);
  });
});

/** A random structural schema of a few levels and a random object (mostly) shaped by it. */
const leaf = fc.oneof(
  fc.record(
    { type: fc.constant("string"), default: fc.option(fc.string({ maxLength: 4 }), { nil: undefined }) },
    { requiredKeys: ["type"] },
  ),
  fc.record(
    { type: fc.constant("integer"), default: fc.option(fc.integer({ min: -5, max: 5 }), { nil: undefined }) },
    { requiredKeys: ["type"] },
  ),
  fc.record(
    {
      type: fc.constant("boolean"),
      nullable: fc.boolean(),
      default: fc.option(fc.boolean(), { nil: undefined }),
    },
    { requiredKeys: ["type"] },
  ),
);
const schemaArb: fc.Arbitrary<Schema> = fc.letrec<{ node: Schema }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.record({ type: fc.constant("array"), items: tie("node") }),
    fc.record({ type: fc.constant("object"), additionalProperties: tie("node") }),
    fc.record(
      {
        type: fc.constant("object"),
        properties: fc.dictionary(fc.constantFrom("a", "b", "c", "d"), tie("node"), { maxKeys: 3 }),
        default: fc.constant({}),
      },
      { requiredKeys: ["type", "properties"] },
    ),
  ),
})).node;

const valueFor = (s: Schema, depth = 0): fc.Arbitrary<unknown> => {
  const noise = fc.oneof(fc.constant(null), fc.integer(), fc.string({ maxLength: 3 }));
  switch (s.type) {
    case "string":
      return fc.oneof(fc.string({ maxLength: 4 }), fc.constant(null));
    case "integer":
      return fc.integer({ min: -9, max: 9 });
    case "boolean":
      return fc.oneof(fc.boolean(), fc.constant(null));
    case "array":
      return depth > 4 ? fc.constant([]) : fc.array(valueFor(s.items as Schema, depth + 1), { maxLength: 3 });
    default: {
      if (depth > 4) return fc.constant({});
      const props = (s.properties ?? {}) as Record<string, Schema>;
      const known = fc.record(
        Object.fromEntries(Object.entries(props).map(([k, p]) => [k, valueFor(p, depth + 1)])),
        { requiredKeys: [] },
      );
      const extra = s.additionalProperties
        ? fc.dictionary(fc.constantFrom("x", "y"), valueFor(s.additionalProperties as Schema, depth + 1), {
            maxKeys: 2,
          })
        : fc.dictionary(fc.constantFrom("unknown1", "unknown2"), noise, { maxKeys: 2 });
      return fc.tuple(known, extra).map(([k, e]) => ({ ...e, ...k }));
    }
  }
};

const objectSchema = schemaArb.map((s): Schema => ({ type: "object", properties: { spec: s } }));

describe("properties", () => {
  it("defaulting is idempotent", () => {
    fc.assert(
      fc.property(
        objectSchema.chain((s) => fc.tuple(fc.constant(s), valueFor(s))),
        ([schema, obj]) => {
          const once = defaulted(schema, obj);
          expect(defaulted(schema, once)).toEqual(once);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("pruning never removes a field the schema declares", () => {
    const declaredPaths = (s: Schema | undefined, v: unknown, path: string, out: string[]): void => {
      if (!s || v === null || typeof v !== "object") return;
      if (Array.isArray(v)) {
        v.forEach((x, i) => {
          declaredPaths(s.items as Schema, x, `${path}[${i}]`, out);
        });
        return;
      }
      const props = (s.properties ?? {}) as Record<string, Schema>;
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        const sub = props[k] ?? (s.additionalProperties as Schema | undefined);
        if (!sub) continue;
        out.push(`${path}.${k}`);
        declaredPaths(sub, x, `${path}.${k}`, out);
      }
    };
    fc.assert(
      fc.property(
        objectSchema.chain((s) => fc.tuple(fc.constant(s), valueFor(s))),
        ([schema, obj]) => {
          const before: string[] = [];
          declaredPaths(schema, obj, "", before);
          const after: string[] = [];
          declaredPaths(schema, pruned(schema, obj), "", after);
          expect(after).toEqual(before);
        },
      ),
      { numRuns: 300 },
    );
  });
});
