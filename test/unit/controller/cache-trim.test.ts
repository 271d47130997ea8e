import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dropManagedFields, trimPetSetManagedFields } from "../../../src/controller/cache-trim.js";
import { changedBy } from "../../../src/versions/describe.js";
import { petSet } from "../versions/fixtures.js";

const kubectlEntry = {
  manager: "kubectl",
  operation: "Update",
  apiVersion: "petset.dev/v1alpha1",
  time: "2026-01-01T00:00:00Z",
  fieldsType: "FieldsV1",
  fieldsV1: {
    "f:metadata": { "f:labels": { ".": {}, "f:app": {} } },
    "f:spec": {
      "f:replicas": {},
      "f:template": { "f:spec": { "f:containers": { 'k:{"name":"app"}': {} } } },
    },
  },
};

describe("dropManagedFields (pods, claims, versions)", () => {
  it("drops managedFields and keeps everything else", () => {
    const pod = {
      metadata: { name: "web-0", labels: { app: "web" }, managedFields: [kubectlEntry] },
    };
    dropManagedFields(pod);
    expect(pod).toEqual({ metadata: { name: "web-0", labels: { app: "web" } } });
  });

  it("leaves an object without managedFields alone", () => {
    const pod = { metadata: { name: "web-0" } };
    dropManagedFields(pod);
    expect(pod).toEqual({ metadata: { name: "web-0" } });
  });
});

describe("trimPetSetManagedFields", () => {
  it("keeps the entry's identity and only the content ownership of its fieldsV1", () => {
    const ps = {
      metadata: {
        name: "web",
        managedFields: [
          structuredClone(kubectlEntry),
          { manager: "hpa", operation: "Update", fieldsV1: { "f:spec": { "f:replicas": {} } } },
          { manager: "petset-controller", subresource: "status", fieldsV1: { "f:status": { ".": {} } } },
        ],
      },
    };
    trimPetSetManagedFields(ps);
    expect(ps.metadata.managedFields).toEqual([
      { ...kubectlEntry, fieldsV1: { "f:spec": { "f:template": {} } } },
      { manager: "hpa", operation: "Update", fieldsV1: {} },
      { manager: "petset-controller", subresource: "status", fieldsV1: {} },
    ]);
  });

  // Whatever the entries, the cache's trimmed PetSet names the same author (describe.ts).
  it("never changes who changedBy names", () => {
    const owned = fc.constantFrom(
      {},
      { "f:replicas": {} },
      { "f:template": { "f:spec": {} } },
      { "f:volumeClaimTemplates": {} },
      { "f:template": {}, "f:volumeClaimTemplates": {}, "f:replicas": {} },
    );
    const entry = fc.record(
      {
        manager: fc.constantFrom("kubectl", "argocd", "helm", "petset-controller"),
        subresource: fc.constantFrom("", "status", "scale"),
        time: fc.constantFrom("2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z", "not a time"),
        fieldsV1: fc.oneof(
          owned.map((spec) => ({ "f:metadata": { "f:labels": {} }, "f:spec": spec })),
          fc.constant("malformed"),
          fc.constant(null),
        ),
      },
      { requiredKeys: ["manager"] },
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 6 }), (managedFields) => {
        const before = petSet({ metadata: { managedFields } });
        const trimmed = structuredClone(before);
        trimPetSetManagedFields(trimmed);
        expect(changedBy(trimmed)).toBe(changedBy(before));
      }),
      { seed: 13, numRuns: 500 },
    );
  });
});
