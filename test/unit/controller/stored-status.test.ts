import { describe, expect, it } from "vitest";
import { type PetSet, PetSetSchema, PetSetStatusSchema } from "../../../src/api/index.js";
import { storedStatus } from "../../../src/controller/stored-status.js";

function petSet(status?: unknown): PetSet {
  return PetSetSchema.parse({
    apiVersion: "petset.dev/v1alpha1",
    kind: "PetSet",
    metadata: { name: "web", namespace: "default" },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "a", image: "x" }] } },
    },
    ...(status !== undefined ? { status } : {}),
  });
}

describe("stored status of a cached PetSet (issue 29)", () => {
  it("is the parsed PetSet's own status object, no copy kept beside it", () => {
    const p = petSet({ replicas: 3, readyReplicas: 2 });
    expect(storedStatus(p)).toBe(p.status);
    expect(storedStatus(p)).toEqual(PetSetStatusSchema.parse({ replicas: 3, readyReplicas: 2 }));
  });

  it("is the defaults, as a parse of {}, for a PetSet without status", () => {
    expect(storedStatus(petSet())).toEqual(PetSetStatusSchema.parse({}));
  });
});
