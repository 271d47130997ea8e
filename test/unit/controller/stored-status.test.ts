import { describe, expect, it } from "vitest";
import { type PetSet, PetSetSchema, PetSetStatusSchema } from "../../../src/api/index.js";
import { canonicalStatus } from "../../../src/controller/status-compare.js";
import { storedStatus } from "../../../src/controller/stored-status.js";

function petSet(status?: unknown): PetSet {
  const parsed = PetSetSchema.parse({
    apiVersion: "petset.dev/v1alpha1",
    kind: "PetSet",
    metadata: { name: "web", namespace: "default" },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "a", image: "x" }] } },
    },
  });
  // A status that does not parse reaches the cache too (the API server does not check it).
  return { ...parsed, ...(status !== undefined ? { status: status as PetSet["status"] } : {}) };
}

describe("stored status of a cached PetSet (issue 29, CPU per pet)", () => {
  it.each([
    ["no status: the defaults, as a parse of {}", undefined, PetSetStatusSchema.parse({})],
    [
      "a stored status: parsed",
      { replicas: 3, readyReplicas: 2 },
      PetSetStatusSchema.parse({ replicas: 3, readyReplicas: 2 }),
    ],
    ["a status that does not parse: none", { replicas: "three" }, undefined],
  ])("%s", (_, status, want) => {
    const s = storedStatus(petSet(status));
    expect(s.status).toEqual(want);
    expect(s.canonical()).toBe(want === undefined ? undefined : canonicalStatus(want));
  });

  it("is computed once per PetSet object and never shared between objects", () => {
    const a = petSet({ replicas: 3 });
    const b = petSet({ replicas: 4 });
    expect(storedStatus(a)).toBe(storedStatus(a));
    expect(storedStatus(b).status?.replicas).toBe(4);
    expect(storedStatus(a).status?.replicas).toBe(3);
  });
});
