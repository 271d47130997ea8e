import { describe, expect, it } from "vitest";
import { crdToOpenApiV3, validateCrdSchema } from "../../../../src/apiserver-shim/schema/index.js";

type Schema = Record<string, unknown>;
const crd = (openAPIV3Schema: Schema, extra: Schema = {}): Schema => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "petsets.petset.dev" },
  spec: {
    group: "petset.dev",
    scope: "Namespaced",
    names: { kind: "PetSet", listKind: "PetSetList", plural: "petsets", singular: "petset" },
    versions: [{ name: "v1alpha1", served: true, storage: true, schema: { openAPIV3Schema }, ...extra }],
  },
});
const ROOT = "spec.versions[0].schema.openAPIV3Schema";

describe("validateCrdSchema", () => {
  it("accepts a structural schema with compiling rules", () => {
    const schema = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          "x-kubernetes-validations": [
            { rule: "self.replicas >= 0" },
            { rule: "self == oldSelf", message: "immutable" },
          ],
          properties: {
            replicas: { type: "integer" },
            v: { "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] },
          },
        },
      },
    };
    expect(validateCrdSchema(crd(schema))).toEqual([]);
  });

  it("rejects non-structural schemas with kube's messages", () => {
    const schema = {
      type: "object",
      properties: {
        spec: { properties: { a: { type: "string" } } },
        list: { type: "array" },
        both: {
          type: "object",
          properties: { a: { type: "string" } },
          additionalProperties: { type: "string" },
        },
        any: { type: "object", anyOf: [{ type: "object", default: {} }] },
      },
    };
    expect(validateCrdSchema(crd(schema)).map((e) => e.message)).toEqual([
      `${ROOT}.properties[spec].type: Required value: must not be empty for specified object fields`,
      `${ROOT}.properties[list].items: Required value: must be specified`,
      `${ROOT}.properties[both].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
      `${ROOT}.properties[any].anyOf[0].type: Forbidden: must be empty to be structural`,
      `${ROOT}.properties[any].anyOf[0].default: Forbidden: must be empty to be structural`,
    ]);
  });

  it("rejects rules that do not compile", () => {
    const schema = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: { a: { type: "string" } },
          "x-kubernetes-validations": [{ rule: "self.b == 'x'" }],
        },
      },
    };
    const [err] = validateCrdSchema(crd(schema));
    expect(err?.field).toBe(`${ROOT}.properties[spec].x-kubernetes-validations[0].rule`);
    expect(err?.message).toBe(
      `${ROOT}.properties[spec].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.b == 'x'", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:5: undefined field 'b'\n | self.b == 'x'\n | ....^`,
    );
  });

  it("rejects transition rules under lists that do not correlate", () => {
    const schema = {
      type: "object",
      properties: {
        l: {
          type: "array",
          items: { type: "string", "x-kubernetes-validations": [{ rule: "self == oldSelf" }] },
        },
      },
    };
    expect(validateCrdSchema(crd(schema)).map((e) => e.message)).toEqual([
      `${ROOT}.properties[l].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${ROOT}.properties[l].items`,
    ]);
  });
});

describe("crdToOpenApiV3", () => {
  const schema = {
    type: "object",
    properties: {
      spec: {
        type: "object",
        description: "The desired state.",
        properties: { replicas: { type: "integer", default: 1 } },
      },
    },
  };
  const doc = crdToOpenApiV3(crd(schema, { subresources: { status: {}, scale: {} } }), "v1alpha1") as {
    paths: Record<string, Record<string, { parameters?: Array<{ name: string }> }>>;
    components: { schemas: Record<string, Record<string, unknown>> };
  };

  it("publishes the kind and list schemas under the reversed group name", () => {
    const kind = doc.components.schemas["dev.petset.v1alpha1.PetSet"] ?? {};
    expect(kind["x-kubernetes-group-version-kind"]).toEqual([
      { group: "petset.dev", kind: "PetSet", version: "v1alpha1" },
    ]);
    expect((kind.properties as Schema).metadata).toEqual({
      allOf: [{ $ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" }],
      description: expect.stringContaining("Standard object's metadata"),
    });
    expect((kind.properties as Schema).spec).toEqual(schema.properties.spec);
    const list = doc.components.schemas["dev.petset.v1alpha1.PetSetList"] ?? {};
    expect((list.properties as Record<string, Schema>).items?.items).toEqual({
      $ref: "#/components/schemas/dev.petset.v1alpha1.PetSet",
    });
  });

  it("includes every referenced component", () => {
    const refs = new Set<string>();
    JSON.stringify(doc, (k, v) => {
      if (k === "$ref" && typeof v === "string") refs.add(v.replace("#/components/schemas/", ""));
      return v;
    });
    for (const ref of refs) expect(doc.components.schemas[ref], ref).toBeDefined();
  });

  it("publishes the resource paths with fieldValidation", () => {
    const base = "/apis/petset.dev/v1alpha1/namespaces/{namespace}/petsets";
    expect(Object.keys(doc.paths)).toEqual([
      base,
      `${base}/{name}`,
      `${base}/{name}/status`,
      `${base}/{name}/scale`,
      "/apis/petset.dev/v1alpha1/petsets",
    ]);
    expect(doc.paths[`${base}/{name}`]?.patch?.parameters?.map((p) => p.name)).toContain("fieldValidation");
  });
});
