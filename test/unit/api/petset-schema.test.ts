import { describe, expect, it } from "vitest";
import { claimName, PetSetDefaults, parsePetSet, podName, versionName } from "../../../src/api/index.js";

const minimal = {
  apiVersion: "petset.dev/v1alpha1",
  kind: "PetSet",
  metadata: { name: "web", namespace: "default" },
  spec: {
    selector: { matchLabels: { app: "web" } },
    template: {
      metadata: { labels: { app: "web" } },
      spec: { containers: [{ name: "nginx", image: "nginx:1.27" }] },
    },
  },
};

describe("parsePetSet defaulting", () => {
  it("fills every omitted field with the documented default", () => {
    const ps = parsePetSet(minimal);
    expect(ps.spec).toMatchObject({
      replicas: PetSetDefaults.replicas,
      podManagementPolicy: "OrderedReady",
      ordinals: { start: 0 },
      updateStrategy: { type: "RollingUpdate" },
      minReadySeconds: 0,
      revisionHistoryLimit: 10,
      paused: false,
      progressDeadlineSeconds: 600,
      autoRollback: false,
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain" },
      volumeClaimTemplates: [],
    });
  });

  it.each([
    [
      "rollingUpdate given empty",
      { type: "RollingUpdate", rollingUpdate: {} },
      { partition: 0, maxUnavailable: 1, podUpdatePolicy: "Recreate", inPlaceResizeTimeoutSeconds: 120 },
    ],
    [
      "percent kept",
      { rollingUpdate: { maxUnavailable: "25%" } },
      { partition: 0, maxUnavailable: "25%", podUpdatePolicy: "Recreate", inPlaceResizeTimeoutSeconds: 120 },
    ],
    [
      "partition kept",
      { rollingUpdate: { partition: 3 } },
      { partition: 3, maxUnavailable: 1, podUpdatePolicy: "Recreate", inPlaceResizeTimeoutSeconds: 120 },
    ],
  ])("updateStrategy: %s", (_name, updateStrategy, rollingUpdate) => {
    const ps = parsePetSet({ ...minimal, spec: { ...minimal.spec, updateStrategy } });
    expect(ps.spec.updateStrategy.rollingUpdate).toEqual(rollingUpdate);
  });

  it("keeps template fields it does not model, verbatim", () => {
    const template = {
      metadata: { labels: { app: "web" }, annotations: { a: "b" } },
      spec: {
        containers: [{ name: "c", image: "i", ports: [{ containerPort: 80 }] }],
        terminationGracePeriodSeconds: 5,
      },
    };
    const ps = parsePetSet({ ...minimal, spec: { ...minimal.spec, template } });
    expect(ps.spec.template).toEqual(template);
  });

  it.each([
    ["negative replicas", { replicas: -1 }, "replicas"],
    ["unknown policy", { podManagementPolicy: "Sometimes" }, "podManagementPolicy"],
    [
      "bad maxUnavailable",
      { updateStrategy: { rollingUpdate: { maxUnavailable: "lots" } } },
      "maxUnavailable",
    ],
  ])("rejects %s naming the field", (_name, patch, field) => {
    expect(() => parsePetSet({ ...minimal, spec: { ...minimal.spec, ...patch } })).toThrow(field);
  });
});

describe("names", () => {
  it.each([
    [versionName("web", 3), "web-v3"],
    [podName("web", 0), "web-0"],
    [claimName("www", "web", 2), "www-web-2"],
  ])("%s", (actual, expected) => {
    expect(actual).toBe(expected);
  });
});
