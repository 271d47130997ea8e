import { describe, expect, it } from "vitest";
import { judgeClaims } from "../../support/claim-invariant-rules.js";
import { makeVersion } from "../controller/planner/fixtures.js";

const v1 = makeVersion(1, "app:1", {
  volumeClaimTemplates: [
    { metadata: { name: "data" }, spec: { resources: { requests: { storage: "1Gi" } } } },
  ],
});
const v2 = makeVersion(2, "app:1", {
  volumeClaimTemplates: [
    {
      metadata: { name: "data", labels: { tier: "gold" } },
      spec: { resources: { requests: { storage: "2Gi" } } },
    },
  ],
});
const pod = (rv: number, hash: string) => ({ rv, name: "web-0", ordinal: 0, hash, terminating: false });
const claim = (rv: number, request: string, labels: Record<string, string> = {}) => ({
  rv,
  name: "data-web-0",
  request,
  labels,
});

describe("issue 26: the claims invariant (test/support/claim-invariant-rules.ts)", () => {
  it.each([
    [
      "claim grown and labelled before the relabel",
      [pod(1, v1.spec.hash), pod(5, v2.spec.hash)],
      [claim(0, "1Gi"), claim(4, "2Gi", { tier: "gold" })],
      0,
    ],
    [
      "relabelled before the claim grew",
      [pod(1, v1.spec.hash), pod(3, v2.spec.hash)],
      [claim(0, "1Gi"), claim(4, "2Gi", { tier: "gold" })],
      1,
    ],
    ["grown but without the template's labels", [pod(5, v2.spec.hash)], [claim(4, "2Gi")], 1],
    ["a pod before its claim exists", [pod(1, v1.spec.hash)], [claim(2, "1Gi")], 1],
    ["a claim left larger by a rollback", [pod(9, v1.spec.hash)], [claim(4, "2Gi", { tier: "gold" })], 0],
    // CI 2026-12-05: the monitor started after version 1 rolled out; its list gave web-1 at rv 58
    // and data-web-1 at a later rv (bound since): "missing" was the monitor's blind spot.
    [
      "a claim first seen in a list, later than the pod's listed state (history unknown)",
      [pod(1, v1.spec.hash)],
      [{ ...claim(2, "1Gi"), listed: true }],
      0,
    ],
    [
      "a claim first seen in a list, then a pod labelled before the claim grew",
      [pod(1, v1.spec.hash), pod(3, v2.spec.hash)],
      [{ ...claim(2, "1Gi"), listed: true }, claim(4, "2Gi", { tier: "gold" })],
      1,
    ],
  ])("%s", (_name, pods, claims, violations) => {
    expect(judgeClaims("web", [v1, v2], pods, claims)).toHaveLength(violations);
  });
});
