import { describe, expect, it } from "vitest";
import { validateObject } from "../../../../src/apiserver-shim/schema/index.js";

type Schema = Record<string, unknown>;
const inSpec = (props: Schema, extra: Schema = {}): Schema => ({
  type: "object",
  properties: { spec: { type: "object", properties: props, ...extra } },
});
const messages = (schema: Schema, obj: unknown, old?: unknown): string[] =>
  validateObject(schema, obj, old).map((e) => e.message);
const BLOCKED =
  '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

describe("OpenAPI keywords, with kube-apiserver's messages", () => {
  const cases: Array<[string, Schema, Schema, string[]]> = [
    [
      "minimum",
      { replicas: { type: "integer", minimum: 0 } },
      { replicas: -1 },
      ["spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0"],
    ],
    [
      "exclusiveMinimum",
      { n: { type: "integer", minimum: 0, exclusiveMinimum: true } },
      { n: 0 },
      ["spec.n: Invalid value: 0: spec.n in body should be greater than 0"],
    ],
    [
      "maximum",
      { n: { type: "number", maximum: 1.5 } },
      { n: 2.5 },
      ["spec.n: Invalid value: 2.5: spec.n in body should be less than or equal to 1.5"],
    ],
    [
      "exclusiveMaximum",
      { n: { type: "integer", maximum: 3, exclusiveMaximum: true } },
      { n: 3 },
      ["spec.n: Invalid value: 3: spec.n in body should be less than 3"],
    ],
    [
      "multipleOf",
      { n: { type: "integer", multipleOf: 5 } },
      { n: 7 },
      ["spec.n: Invalid value: 7: spec.n in body should be a multiple of 5"],
    ],
    [
      "type string",
      { name: { type: "string" } },
      { name: 5 },
      ['spec.name: Invalid value: "integer": spec.name in body must be of type string: "integer"', BLOCKED],
    ],
    [
      "type integer",
      { n: { type: "integer" } },
      { n: "5" },
      ['spec.n: Invalid value: "string": spec.n in body must be of type integer: "string"', BLOCKED],
    ],
    [
      "type integer with float",
      { n: { type: "integer" } },
      { n: 1.5 },
      ['spec.n: Invalid value: "number": spec.n in body must be of type integer: "number"', BLOCKED],
    ],
    [
      // kube decodes numbers beyond int64 as float64 (fuzz finding: maxUnavailable 1e300)
      "type integer with a number beyond int64",
      { n: { type: "integer" } },
      { n: 1e300 },
      ['spec.n: Invalid value: "number": spec.n in body must be of type integer: "number"', BLOCKED],
    ],
    [
      "int-or-string with a number beyond int64",
      { v: { "x-kubernetes-int-or-string": true } },
      { v: 2 ** 64 },
      ['spec.v: Invalid value: "number": spec.v in body must be of type integer,string: "number"', BLOCKED],
    ],
    ["type number accepts integers", { n: { type: "number" } }, { n: 1 }, []],
    [
      "type object",
      { o: { type: "object" } },
      { o: [] },
      ['spec.o: Invalid value: "array": spec.o in body must be of type object: "array"', BLOCKED],
    ],
    [
      "type boolean",
      { b: { type: "boolean" } },
      { b: "yes" },
      ['spec.b: Invalid value: "string": spec.b in body must be of type boolean: "string"', BLOCKED],
    ],
    [
      "null",
      { s: { type: "string" } },
      { s: null },
      ['spec.s: Invalid value: "null": spec.s in body must be of type string: "null"', BLOCKED],
    ],
    ["nullable", { s: { type: "string", nullable: true } }, { s: null }, []],
    [
      "enum",
      { p: { type: "string", enum: ["A", "B"] } },
      { p: "X" },
      ['spec.p: Unsupported value: "X": supported values: "A", "B"', BLOCKED],
    ],
    [
      "enum of integers",
      { p: { type: "integer", enum: [1, 2] } },
      { p: 3 },
      ['spec.p: Unsupported value: 3: supported values: "1", "2"', BLOCKED],
    ],
    [
      "pattern",
      { name: { type: "string", pattern: "^[a-z]+$" } },
      { name: "ABC" },
      ["spec.name: Invalid value: \"ABC\": spec.name in body should match '^[a-z]+$'"],
    ],
    [
      "maxLength",
      { name: { type: "string", maxLength: 3 } },
      { name: "abcd" },
      ["spec.name: Too long: may not be more than 3 bytes", BLOCKED],
    ],
    [
      "minLength",
      { name: { type: "string", minLength: 2 } },
      { name: "a" },
      ['spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long'],
    ],
    ["maxLength counts characters", { name: { type: "string", maxLength: 2 } }, { name: "éé" }, []],
    [
      "maxItems",
      { l: { type: "array", maxItems: 1, items: { type: "string" } } },
      { l: ["a", "b"] },
      ["spec.l: Too many: 2: must have at most 1 items", BLOCKED],
    ],
    [
      "minItems",
      { l: { type: "array", minItems: 1, items: { type: "string" } } },
      { l: [] },
      ["spec.l: Invalid value: 0: spec.l in body should have at least 1 items"],
    ],
    [
      "item paths",
      { l: { type: "array", items: { type: "object", properties: { image: { type: "string" } } } } },
      { l: [{ image: "a" }, { image: 1 }] },
      [
        'spec.l[1].image: Invalid value: "integer": spec.l[1].image in body must be of type string: "integer"',
        BLOCKED,
      ],
    ],
    [
      "maxProperties",
      { m: { type: "object", maxProperties: 1, additionalProperties: { type: "string" } } },
      { m: { a: "1", b: "2" } },
      ["spec.m: Too many: 2: must have at most 1 items", BLOCKED],
    ],
    [
      "minProperties",
      { m: { type: "object", minProperties: 1, additionalProperties: { type: "string" } } },
      { m: {} },
      ["spec.m: Invalid value: 0: spec.m in body should have at least 1 properties"],
    ],
    [
      "additionalProperties schema",
      { m: { type: "object", additionalProperties: { type: "string" } } },
      { m: { a: 1 } },
      ['spec.m.a: Invalid value: "integer": spec.m.a in body must be of type string: "integer"', BLOCKED],
    ],
    [
      "format date-time",
      { t: { type: "string", format: "date-time" } },
      { t: "yesterday" },
      ['spec.t: Invalid value: "yesterday": spec.t in body must be of type date-time: "yesterday"', BLOCKED],
    ],
    [
      "format date-time ok",
      { t: { type: "string", format: "date-time" } },
      { t: "2024-05-01T10:00:00Z" },
      [],
    ],
    ["unknown formats are ignored", { t: { type: "string", format: "k8s-unknown" } }, { t: "x" }, []],
    ["int32 range is not enforced by kube", { n: { type: "integer", format: "int32" } }, { n: 2 ** 40 }, []],
    [
      "int-or-string int",
      { v: { "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] } },
      { v: 3 },
      [],
    ],
    ["int-or-string string", { v: { "x-kubernetes-int-or-string": true } }, { v: "30%" }, []],
    [
      "int-or-string bool",
      { v: { "x-kubernetes-int-or-string": true } },
      { v: true },
      ['spec.v: Invalid value: "boolean": spec.v in body must be of type integer,string: "boolean"', BLOCKED],
    ],
    [
      "oneOf",
      { v: { type: "integer", oneOf: [{ minimum: 0 }, { maximum: 10 }] } },
      { v: 5 },
      [
        '<nil>: Invalid value: "": "spec.v" must validate one and only one schema (oneOf). Found 2 valid alternatives',
      ],
    ],
    [
      "not",
      { v: { type: "string", not: { enum: ["x"] } } },
      { v: "x" },
      ['<nil>: Invalid value: "": "spec.v" must not validate the schema (not)'],
    ],
  ];
  it.each(cases)("%s", (_name, props, spec, expected) => {
    expect(messages(inSpec(props), { spec })).toEqual(expected);
  });

  it("reports missing required fields and keeps going", () => {
    const schema = inSpec({ a: { type: "string" }, b: { type: "integer", minimum: 1 } }, { required: ["a"] });
    expect(validateObject(schema, { spec: { b: 0 } })).toEqual([
      expect.objectContaining({ type: "FieldValueInvalid", field: "spec.b" }),
      { type: "FieldValueRequired", field: "spec.a", message: "spec.a: Required value" },
      expect.objectContaining({ field: "<nil>" }),
    ]);
  });

  it("reports field error types and bad values", () => {
    const [err] = validateObject(inSpec({ p: { type: "string", enum: ["A"] } }), { spec: { p: "B" } });
    expect(err).toEqual({
      type: "FieldValueNotSupported",
      field: "spec.p",
      badValue: "B",
      message: 'spec.p: Unsupported value: "B": supported values: "A"',
    });
  });

  it("checks list-type set and map uniqueness", () => {
    const schema = inSpec({
      tags: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
      ports: {
        type: "array",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name", "protocol"],
        items: { type: "object", properties: { name: { type: "string" }, protocol: { type: "string" } } },
      },
    });
    expect(
      messages(schema, {
        spec: {
          tags: ["a", "b", "a", "a"],
          ports: [
            { name: "http", protocol: "TCP" },
            { name: "http", protocol: "UDP" },
            { protocol: "TCP", name: "http" },
          ],
        },
      }),
    ).toEqual([
      'spec.tags[2]: Duplicate value: "a"',
      'spec.ports[2]: Duplicate value: map[string]interface {}{"name":"http", "protocol":"TCP"}',
    ]);
  });

  it("ratchets errors of unchanged values on update", () => {
    const schema = inSpec({ a: { type: "string", maxLength: 2 }, b: { type: "string", maxLength: 2 } });
    const old = { spec: { a: "toolong", b: "ok" } };
    expect(messages(schema, { spec: { a: "toolong", b: "ok" } }, old)).toEqual([]);
    expect(messages(schema, { spec: { a: "toolong", b: "toolong" } }, old)).toEqual([
      "spec.b: Too long: may not be more than 2 bytes",
      BLOCKED,
    ]);
  });
});
