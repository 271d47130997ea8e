/**
 * issue 28: spec.reserveOrdinals and spec.scaleStrategy in the PetSet CRD (schema + CEL, through
 * the schema module the embedded server uses): valid lists pass, a bad entry is refused naming
 * the field, and the zod schema agrees with the CRD.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { PetSetSpecSchema } from "../../../src/api/index.js";
import {
  applyDefaults,
  pruneUnknownFields,
  validateObject,
} from "../../../src/apiserver-shim/schema/index.js";

type Obj = Record<string, unknown>;
const crd = parse(readFileSync("crds/petsets.petset.dev.yaml", "utf8")) as {
  spec: { versions: { schema: { openAPIV3Schema: Obj } }[] };
};
const schema = crd.spec.versions[0]?.schema.openAPIV3Schema ?? {};

function admit(spec: Obj): { obj: Obj; errors: string[] } {
  const obj: Obj = {
    apiVersion: "petset.dev/v1alpha1",
    kind: "PetSet",
    metadata: { name: "web", namespace: "default" },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "a", image: "a:1" }] } },
      ...spec,
    },
  };
  pruneUnknownFields(schema, obj);
  applyDefaults(schema, obj);
  return { obj, errors: validateObject(schema, obj, undefined).map((e) => `${e.field}: ${e.message}`) };
}

describe("issue 28: reserveOrdinals and scaleStrategy in the CRD", () => {
  it.each([[[1]], [[1, "3-5"]], [["0-1", "1-2"]], [["7"]], [[]]])("accepts reserveOrdinals %j", (list) => {
    const { obj, errors } = admit({ reserveOrdinals: list });
    expect(errors).toEqual([]);
    expect((obj.spec as Obj).reserveOrdinals).toEqual(list);
    expect(PetSetSpecSchema.safeParse(obj.spec as Obj).success).toBe(true);
  });

  it.each([[[-1]], [["a"]], [["1-"]], [["-2"]], [["12345678901"]]])(
    "the API server refuses reserveOrdinals %j naming the field",
    (list) => {
      const { errors } = admit({ reserveOrdinals: list });
      expect(errors.join("\n")).toMatch(/spec\.reserveOrdinals\[0\]/);
      expect(
        PetSetSpecSchema.safeParse({ ...(admit({}).obj.spec as Obj), reserveOrdinals: list }).success,
      ).toBe(false);
    },
  );

  it("a reversed range passes the CRD (no CEL: cost budget) and the controller refuses it naming the field", () => {
    expect(admit({ reserveOrdinals: ["5-3"] }).errors).toEqual([]);
    const parsed = PetSetSpecSchema.safeParse({ ...(admit({}).obj.spec as Obj), reserveOrdinals: ["5-3"] });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`)).toContain(
      'reserveOrdinals.0: a range "a-b" needs a <= b',
    );
  });

  it("keeps scaleStrategy.maxUnavailable and refuses 0", () => {
    expect(admit({ scaleStrategy: { maxUnavailable: 2 } }).errors).toEqual([]);
    expect(admit({ scaleStrategy: { maxUnavailable: "50%" } }).obj.spec).toMatchObject({
      scaleStrategy: { maxUnavailable: "50%" },
    });
    expect(admit({ scaleStrategy: { maxUnavailable: 0 } }).errors.join("\n")).toMatch(
      /spec\.scaleStrategy\.maxUnavailable/,
    );
  });
});
