/** Issue 26: what `kubectl petset diff/history` say a version change does to claims, and `status`'s claim lines. */
import { describe, expect, it } from "vitest";
import type { ClaimTemplate } from "../../../src/api/index.js";
import { claimChanges, claimStatusLines } from "../../../src/cli/plugin/format-claims.js";

const t = (name: string, storage: string, spec: Record<string, unknown> = {}): ClaimTemplate => ({
  metadata: { name },
  spec: {
    accessModes: ["ReadWriteOnce"],
    storageClassName: "standard",
    resources: { requests: { storage } },
    ...spec,
  },
});

describe("issue 26: claim changes in the plugin", () => {
  it.each([
    [
      "growth",
      [t("data", "1Gi")],
      [t("data", "2Gi")],
      "InPlace",
      ["claim data: storage 1Gi -> 2Gi: existing claims follow as each pet moves (InPlace)"],
    ],
    ["same size, other spelling", [t("data", "1Gi")], [t("data", "1024Mi")], "InPlace", []],
    [
      "shrink",
      [t("data", "2Gi")],
      [t("data", "1Gi")],
      "InPlace",
      [expect.stringContaining("refused under InPlace (a claim cannot shrink)")],
    ],
    [
      "class",
      [t("data", "1Gi")],
      [t("data", "1Gi", { storageClassName: "fast" })],
      "InPlace",
      [expect.stringContaining("storageClassName standard -> fast: refused")],
    ],
    [
      "OnClaimDelete",
      [t("data", "1Gi")],
      [t("data", "2Gi")],
      "OnClaimDelete",
      [expect.stringContaining("applies to claims created from now on")],
    ],
    [
      "added",
      [t("data", "1Gi")],
      [t("data", "1Gi"), t("logs", "1Gi")],
      "InPlace",
      [expect.stringContaining("claim logs: added")],
    ],
    [
      "removed",
      [t("data", "1Gi"), t("logs", "1Gi")],
      [t("data", "1Gi")],
      "InPlace",
      ["claim logs: removed: claims are kept, new pods stop mounting them"],
    ],
  ] as const)("%s", (_name, from, to, policy, lines) => {
    expect(claimChanges(from, to, policy)).toEqual(lines);
  });

  it("status lines per claim template", () => {
    const status = {
      replicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      currentReplicas: 3,
      updatedReplicas: 3,
      conditions: [],
      volumeClaimTemplates: [
        {
          name: "data",
          compatibleReplicas: 3,
          updatingReplicas: 0,
          overSizedReplicas: 3,
          totalCapacity: "6Gi",
        },
      ],
    };
    expect(claimStatusLines(status, 3)).toEqual([
      "claims data: 3/3 compatible, 0 resizing, 3 oversized (larger than the template: never shrunk), total 6Gi",
    ]);
  });
});
