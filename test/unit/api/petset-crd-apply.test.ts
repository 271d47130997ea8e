/**
 * What keeps `kubectl apply` of an unchanged PetSet manifest `unchanged`: kubectl sends a
 * JSON merge patch for custom resources, so a default the server writes inside a list item
 * (`ports[].protocol: TCP`) would make every apply `configured`. The end-to-end check with
 * the real kubectl is test/integration/apply-wording.test.ts.
 */
import { describe, expect, it } from "vitest";
import { withoutListItemDefaults } from "../../../hack/crd/list-defaults.js";
import type { Schema } from "../../../hack/crd/structural.js";
import { generateCrds } from "../../../hack/gen-crds.js";

/** Paths of every `default` inside array items, `[]` marking an item. */
function listItemDefaults(node: Schema, path: string, inItem: boolean): string[] {
  const found = inItem && node.default !== undefined ? [path] : [];
  const props = (node.properties ?? {}) as Record<string, Schema>;
  for (const [key, child] of Object.entries(props))
    found.push(...listItemDefaults(child, `${path}.${key}`, inItem));
  if (typeof node.additionalProperties === "object")
    found.push(...listItemDefaults(node.additionalProperties as Schema, `${path}.*`, inItem));
  if (node.items) found.push(...listItemDefaults(node.items as Schema, `${path}[]`, true));
  return found;
}

function specSchema(file = "petsets.petset.dev.yaml"): Schema {
  const crd = generateCrds().find((c) => c.file === file);
  if (!crd) throw new Error(`${file} not generated`);
  const { versions } = crd.object.spec as { versions: Array<{ schema: { openAPIV3Schema: Schema } }> };
  const root = versions[0]?.schema.openAPIV3Schema.properties as Record<string, Schema>;
  return root.spec as Schema;
}

describe("the PetSet CRD and client-side apply", () => {
  it.each(["petsets.petset.dev.yaml", "petsetversions.petset.dev.yaml"])(
    "%s declares no default inside any list item of the spec",
    (file) => {
      expect(listItemDefaults(specSchema(file), "spec", false)).toEqual([]);
    },
  );

  it("keeps containers a list-map keyed by name; container ports become an atomic list", () => {
    const template = (specSchema().properties as Record<string, Schema>).template as Schema;
    const podSpec = (template.properties as Record<string, Schema>).spec as Schema;
    const containers = (podSpec.properties as Record<string, Schema>).containers as Schema;
    expect(containers).toMatchObject({
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
    });
    const ports = ((containers.items as Schema).properties as Record<string, Schema>).ports as Schema;
    expect(ports["x-kubernetes-list-type"]).toBe("atomic");
    expect(ports).not.toHaveProperty("x-kubernetes-list-map-keys");
  });

  it("turns a list-map atomic only when a key lost its default, not when keys are required", () => {
    const listMap = (required: string[]): Schema => ({
      type: "array",
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["port", "protocol"],
      items: {
        type: "object",
        required,
        properties: { port: { type: "integer" }, protocol: { type: "string", default: "TCP" } },
      },
    });
    const defaulted = withoutListItemDefaults({ type: "object", properties: { ports: listMap(["port"]) } });
    expect(defaulted).toEqual({
      type: "object",
      properties: {
        ports: {
          type: "array",
          "x-kubernetes-list-type": "atomic",
          items: {
            type: "object",
            required: ["port"],
            properties: { port: { type: "integer" }, protocol: { type: "string" } },
          },
        },
      },
    });
    const keyed = withoutListItemDefaults(listMap(["port", "protocol"]));
    expect(keyed).toMatchObject({
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["port", "protocol"],
    });
  });

  it("keeps defaults outside list items (spec.replicas)", () => {
    const props = specSchema().properties as Record<string, Schema>;
    expect(props.replicas?.default).toBe(1);
  });
});
