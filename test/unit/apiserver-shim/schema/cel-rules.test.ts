import { describe, expect, it } from "vitest";
import {
  maxUnavailableNotZero,
  selectorImmutable,
  selectorMatchesTemplate,
  versionSpecImmutable,
} from "../../../../hack/crd/rules.js";
import { validateObject } from "../../../../src/apiserver-shim/schema/index.js";

type Schema = Record<string, unknown>;
const labels = { type: "object", additionalProperties: { type: "string" } };
const petSetSchema: Schema = {
  type: "object",
  properties: {
    apiVersion: { type: "string" },
    kind: { type: "string" },
    metadata: { type: "object" },
    spec: {
      type: "object",
      required: ["selector", "template"],
      "x-kubernetes-validations": selectorMatchesTemplate,
      properties: {
        selector: {
          type: "object",
          "x-kubernetes-validations": [selectorImmutable],
          properties: {
            matchLabels: labels,
            matchExpressions: {
              type: "array",
              items: {
                type: "object",
                required: ["key", "operator"],
                properties: {
                  key: { type: "string" },
                  operator: { type: "string" },
                  values: { type: "array", items: { type: "string" } },
                },
              },
            },
          },
        },
        template: { type: "object", properties: { metadata: { type: "object", properties: { labels } } } },
        updateStrategy: {
          type: "object",
          properties: {
            rollingUpdate: {
              type: "object",
              "x-kubernetes-validations": [maxUnavailableNotZero],
              properties: {
                maxUnavailable: {
                  "x-kubernetes-int-or-string": true,
                  anyOf: [{ type: "integer" }, { type: "string" }],
                },
              },
            },
          },
        },
      },
    },
  },
};
const petSet = (spec: Schema): Schema => ({
  apiVersion: "petset.dev/v1alpha1",
  kind: "PetSet",
  metadata: { name: "web" },
  spec,
});
const withLabels = (l: Record<string, string> | undefined, selector: Schema, extra: Schema = {}): Schema =>
  petSet({ selector, template: l ? { metadata: { labels: l } } : {}, ...extra });
const messages = (schema: Schema, obj: unknown, old?: unknown): string[] =>
  validateObject(schema, obj, old).map((e) => e.message);
const NO_MATCH =
  'spec.template.metadata.labels: Invalid value: "object": selector does not match template labels';

describe("PetSet selector rules", () => {
  const expr = (key: string, operator: string, values?: string[]): Schema => ({
    matchExpressions: [{ key, operator, ...(values ? { values } : {}) }],
  });
  const cases: Array<[string, Record<string, string> | undefined, Schema, string[]]> = [
    ["matchLabels match", { app: "web", tier: "x" }, { matchLabels: { app: "web" } }, []],
    ["matchLabels differ", { app: "db" }, { matchLabels: { app: "web" } }, [NO_MATCH]],
    ["matchLabels missing label", {}, { matchLabels: { app: "web" } }, [NO_MATCH]],
    ["no template labels", undefined, { matchLabels: { app: "web" } }, [NO_MATCH]],
    [
      "empty selector",
      { app: "web" },
      {},
      ['spec.selector: Invalid value: "object": empty selector is invalid for a PetSet'],
    ],
    ["In matches", { app: "web" }, expr("app", "In", ["web", "db"]), []],
    ["In does not match", { app: "x" }, expr("app", "In", ["web"]), [NO_MATCH]],
    ["NotIn matches", { app: "x" }, expr("app", "NotIn", ["web"]), []],
    ["NotIn does not match", { app: "web" }, expr("app", "NotIn", ["web"]), [NO_MATCH]],
    ["NotIn with label absent", {}, expr("app", "NotIn", ["web"]), []],
    ["Exists", { app: "web" }, expr("app", "Exists"), []],
    ["Exists absent", { other: "web" }, expr("app", "Exists"), [NO_MATCH]],
    ["DoesNotExist", { other: "web" }, expr("app", "DoesNotExist"), []],
    ["DoesNotExist present", { app: "web" }, expr("app", "DoesNotExist"), [NO_MATCH]],
  ];
  it.each(cases)("%s", (_name, l, selector, expected) => {
    expect(messages(petSetSchema, withLabels(l, selector))).toEqual(expected);
  });

  it("makes the selector immutable (a transition rule, only on update)", () => {
    const before = withLabels({ app: "web" }, { matchLabels: { app: "web" } });
    const after = withLabels({ app: "web", v: "2" }, { matchLabels: { app: "web", v: "2" } });
    expect(messages(petSetSchema, after)).toEqual([]);
    expect(messages(petSetSchema, after, before)).toEqual([
      'spec.selector: Invalid value: "object": field is immutable',
    ]);
  });
});

describe("maxUnavailable (int-or-string, dynamic in CEL)", () => {
  const ru = (maxUnavailable: unknown): Schema =>
    withLabels(
      { app: "web" },
      { matchLabels: { app: "web" } },
      { updateStrategy: { rollingUpdate: { maxUnavailable } } },
    );
  const BAD =
    'spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "object": must be a positive integer or a percentage greater than 0%';
  it.each([
    [1, []],
    ["25%", []],
    [0, [BAD]],
    ["0%", [BAD]],
    ["00%", [BAD]],
    ["abc", [BAD]],
  ])("%s", (value, expected) => {
    expect(messages(petSetSchema, ru(value))).toEqual(expected);
  });
});

describe("CEL rule semantics", () => {
  const node = (
    rules: Schema[],
    props: Schema = { n: { type: "integer" }, s: { type: "string" } },
  ): Schema => ({
    type: "object",
    properties: { spec: { type: "object", properties: props, "x-kubernetes-validations": rules } },
  });
  it("uses 'failed rule: <rule>' without a message", () => {
    expect(messages(node([{ rule: "self.n > 1" }]), { spec: { n: 1 } })).toEqual([
      'spec: Invalid value: "object": failed rule: self.n > 1',
    ]);
  });
  it("uses messageExpression, falling back to message when it fails", () => {
    expect(
      messages(node([{ rule: "self.n > 1", messageExpression: "'n is ' + string(self.n)" }]), {
        spec: { n: 1 },
      }),
    ).toEqual(['spec: Invalid value: "object": n is 1']);
    expect(
      messages(node([{ rule: "self.n > 1", message: "m", messageExpression: "self.s" }]), { spec: { n: 1 } }),
    ).toEqual(['spec: Invalid value: "object": m']);
  });
  it("maps reasons and fieldPath", () => {
    const rules = [
      { rule: "self.n > 1", message: "too small", reason: "FieldValueForbidden", fieldPath: ".n" },
      { rule: "self.n > 1", message: "needed", reason: "FieldValueRequired" },
      { rule: "self.n > 1", reason: "FieldValueDuplicate" },
    ];
    expect(messages(node(rules), { spec: { n: 1 } })).toEqual([
      "spec.n: Forbidden: too small",
      "spec: Required value: needed",
      'spec: Duplicate value: "object"',
    ]);
  });
  it("reports evaluation errors like cel-go", () => {
    expect(messages(node([{ rule: "self.s == 'x'" }]), { spec: { n: 1 } })).toEqual([
      "spec: Invalid value: \"object\": no such key: s evaluating rule: self.s == 'x'",
    ]);
    expect(messages(node([{ rule: "self.n / 0 == 1", message: "div" }]), { spec: { n: 1 } })).toEqual([
      'spec: Invalid value: "object": division by zero evaluating rule: div',
    ]);
  });
  it("reports rules that do not compile", () => {
    expect(messages(node([{ rule: "self.nope == 1" }]), { spec: { n: 1 } })[0]).toMatch(
      /^spec: Invalid value: "object": rule compile error: compilation failed: ERROR: <input>:1:5: undefined field 'nope'/,
    );
  });
  it("supports the standard macros and string and list functions", () => {
    const props = { l: { type: "array", items: { type: "integer" } }, s: { type: "string" } };
    const ok = [
      "self.l.all(x, x > 0) && self.l.exists(x, x == 2) && self.l.exists_one(x, x == 3)",
      "self.l.map(x, x * 2) == [2, 4, 6] && self.l.filter(x, x > 1).size() == 2 && 2 in self.l",
      "self.l.isSorted() && self.l.sum() == 6 && self.l.min() == 1 && self.l.max() == 3 && self.l.indexOf(2) == 1",
      "self.s.startsWith('ab') && self.s.endsWith('yz') && self.s.contains('c') && self.s.matches('^[a-z-]+$')",
      "self.s.upperAscii() == 'ABC-XYZ' && self.s.replace('-', '_') == 'abc_xyz' && self.s.split('-') == ['abc', 'xyz']",
      "self.s.indexOf('-') == 3 && self.s.substring(4) == 'xyz' && size(self.s) == 7 && type(self.s) == string",
      "int('5') == 5 && string(5) == '5' && has(self.s) && !has(self.x)",
      "self.s.find('[x-z]+') == 'xyz'",
    ];
    const schema = node(
      ok.map((rule) => ({ rule })),
      { ...props, x: { type: "string" } },
    );
    expect(messages(schema, { spec: { l: [1, 2, 3], s: "abc-xyz" } })).toEqual([]);
  });
  it("skips rules on null values and runs rules of list items and map values", () => {
    const schema: Schema = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: {
            items: {
              type: "array",
              items: { type: "string", "x-kubernetes-validations": [{ rule: "self != 'bad'" }] },
            },
            byName: {
              type: "object",
              additionalProperties: { type: "integer", "x-kubernetes-validations": [{ rule: "self >= 0" }] },
            },
          },
        },
      },
    };
    expect(messages(schema, { spec: { items: ["ok", "bad"], byName: { a: 1, b: -1 } } })).toEqual([
      "spec.items[1]: Invalid value: \"string\": failed rule: self != 'bad'",
      'spec.byName[b]: Invalid value: "integer": failed rule: self >= 0',
    ]);
  });
  it("correlates list-type map items by key for transition rules", () => {
    const schema: Schema = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: {
            ports: {
              type: "array",
              "x-kubernetes-list-type": "map",
              "x-kubernetes-list-map-keys": ["name"],
              items: {
                type: "object",
                required: ["name"],
                properties: {
                  name: { type: "string" },
                  port: {
                    type: "integer",
                    "x-kubernetes-validations": [{ rule: "self == oldSelf", message: "immutable" }],
                  },
                },
              },
            },
            atomic: {
              type: "array",
              items: { type: "integer", "x-kubernetes-validations": [{ rule: "self == oldSelf" }] },
            },
          },
        },
      },
    };
    const old = {
      spec: {
        ports: [
          { name: "a", port: 1 },
          { name: "b", port: 2 },
        ],
        atomic: [1],
      },
    };
    const now = {
      spec: {
        ports: [
          { name: "b", port: 2 },
          { name: "a", port: 9 },
          { name: "c", port: 3 },
        ],
        atomic: [2],
      },
    };
    expect(messages(schema, now, old)).toEqual(['spec.ports[1].port: Invalid value: "integer": immutable']);
  });
  it("supports optionalOldSelf", () => {
    const rule = {
      rule: "!oldSelf.hasValue() || self.n >= oldSelf.value().n",
      message: "n may not decrease",
      optionalOldSelf: true,
    };
    const schema = node([rule]);
    expect(messages(schema, { spec: { n: 1 } })).toEqual([]);
    expect(messages(schema, { spec: { n: 1 } }, { spec: { n: 2 } })).toEqual([
      'spec: Invalid value: "object": n may not decrease',
    ]);
  });
  it("protects a PetSetVersion spec (transition rule at spec)", () => {
    const schema: Schema = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          "x-kubernetes-preserve-unknown-fields": true,
          "x-kubernetes-validations": [versionSpecImmutable],
        },
      },
    };
    const old = { spec: { version: 1, template: { spec: { containers: [{ name: "a", image: "x:1" }] } } } };
    expect(messages(schema, structuredClone(old), old)).toEqual([]);
    const changed = structuredClone(old);
    changed.spec.template.spec.containers[0] = { name: "a", image: "x:2" };
    expect(validateObject(schema, changed, old)).toEqual([
      {
        type: "FieldValueForbidden",
        field: "spec",
        message:
          "spec: Forbidden: spec is immutable: a PetSetVersion records one observed version and never changes",
      },
    ]);
  });
  it("does not run CEL when the object has blocking errors", () => {
    const schema = node([{ rule: "self.n > 1" }]);
    expect(messages(schema, { spec: { n: "x" } })).toEqual([
      'spec.n: Invalid value: "string": spec.n in body must be of type integer: "string"',
      '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    ]);
  });
});
