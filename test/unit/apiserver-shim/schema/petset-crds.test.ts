import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  applyDefaults,
  crdToOpenApiV3,
  pruneUnknownFields,
  validateCrdSchema,
  validateObject,
} from "../../../../src/apiserver-shim/schema/index.js";

type Obj = Record<string, unknown>;
const load = (file: string): Obj =>
  parse(readFileSync(new URL(`../../../../crds/${file}`, import.meta.url), "utf8")) as Obj;
const schemaOf = (crd: Obj): Obj => {
  const versions = (crd.spec as { versions: Array<{ schema: { openAPIV3Schema: Obj } }> }).versions;
  return versions[0]?.schema.openAPIV3Schema ?? {};
};
const petSets = load("petsets.petset.dev.yaml");
const versions = load("petsetversions.petset.dev.yaml");

const petSet = (): Obj => ({
  apiVersion: "petset.dev/v1alpha1",
  kind: "PetSet",
  metadata: { name: "web", namespace: "default" },
  spec: {
    selector: { matchLabels: { app: "web" } },
    template: {
      metadata: { labels: { app: "web" } },
      spec: {
        containers: [
          {
            name: "app",
            image: "nginx:1.27",
            ports: [{ containerPort: 80 }],
            resources: { limits: { cpu: "500m", memory: 1024 } },
          },
        ],
      },
    },
  },
});

describe("the generated petset CRDs", () => {
  it("are structural and their rules compile", () => {
    expect(validateCrdSchema(petSets)).toEqual([]);
    expect(validateCrdSchema(versions)).toEqual([]);
  });

  it("accept a PetSet after pruning and defaulting, and reject a mismatched selector", () => {
    const schema = schemaOf(petSets);
    const obj = petSet();
    pruneUnknownFields(schema, obj);
    applyDefaults(schema, obj);
    expect(validateObject(schema, obj)).toEqual([]);
    const bad = petSet();
    (bad.spec as { selector: Obj }).selector = { matchLabels: { app: "db" } };
    expect(validateObject(schema, bad).map((e) => e.message)).toContain(
      'spec.template.metadata.labels: Invalid value: "object": selector does not match template labels',
    );
  });

  it("validates a full PodTemplateSpec fast (compiled once, cached)", () => {
    const schema = schemaOf(petSets);
    validateObject(schema, petSet());
    const start = performance.now();
    for (let i = 0; i < 200; i++) validateObject(schema, petSet(), petSet());
    const perCall = (performance.now() - start) / 200;
    expect(perCall).toBeLessThan(20);
  });

  it("publish an OpenAPI v3 document for kubectl explain", () => {
    const doc = crdToOpenApiV3(petSets, "v1alpha1") as { components: { schemas: Record<string, Obj> } };
    expect(Object.keys(doc.components.schemas)).toContain("dev.petset.v1alpha1.PetSet");
  });
});
