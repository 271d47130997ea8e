import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateCrds } from "../../../hack/gen-crds.js";

interface Spec {
  spec: {
    versions: {
      schema: { openAPIV3Schema: { properties: { spec: { properties: { template: unknown } } } } };
    }[];
  };
}

describe("crds/", () => {
  const generated = generateCrds();

  it.each(generated.map((c) => [c.file, c] as const))("%s is what `make crds` generates", (file, crd) => {
    const committed = readFileSync(join("crds", file), "utf8");
    // A failure here means src/api or hack/crd changed without `make crds`.
    expect(committed).toBe(crd.yaml);
  });

  it("embeds the full Kubernetes PodTemplateSpec schema, so kubectl explain shows container fields", () => {
    const petsets = generated.find((c) => c.file === "petsets.petset.dev.yaml");
    if (!petsets) throw new Error("petsets CRD not generated");
    const yaml = petsets.yaml;
    for (const field of [
      "livenessProbe:",
      "securityContext:",
      "topologySpreadConstraints:",
      "imagePullPolicy:",
    ]) {
      expect(yaml).toContain(field);
    }
    const template = (petsets.object as unknown as Spec).spec.versions[0]?.schema.openAPIV3Schema.properties
      .spec.properties.template;
    // Structural all the way down: nothing in the template escapes validation.
    expect(JSON.stringify(template)).not.toContain("x-kubernetes-preserve-unknown-fields");
  });
});
