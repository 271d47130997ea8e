import type { V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import {
  claimViewFromV1,
  isAvailable,
  isBroken,
  podViewFromV1Pod,
  resolveMaxUnavailable,
} from "../../../../src/controller/planner/index.js";

const pod: V1Pod = {
  metadata: {
    name: "web-3",
    uid: "u1",
    resourceVersion: "42",
    creationTimestamp: new Date(1000),
    labels: { "petset.dev/version": "2", "petset.dev/hash": "abc", "petset.dev/pod-index": "3" },
    annotations: { "petset.dev/target-version": "5" },
  },
  spec: { containers: [{ name: "app", image: "nginx:1.27" }] },
  status: {
    phase: "Running",
    conditions: [{ type: "Ready", status: "True", lastTransitionTime: new Date(5000) }],
    containerStatuses: [
      {
        name: "app",
        image: "docker.io/library/nginx:1.27",
        imageID: "",
        ready: true,
        restartCount: 2,
        state: { running: {} },
      },
    ],
  },
};

describe("podViewFromV1Pod", () => {
  it("reads identity, version, readiness and times", () => {
    expect(podViewFromV1Pod(pod)).toMatchObject({
      name: "web-3",
      ordinal: 3,
      uid: "u1",
      resourceVersion: "42",
      version: 2,
      hash: "abc",
      targetVersion: 5,
      phase: "Running",
      ready: true,
      readySince: 5000,
      createdAt: 1000,
      restartCount: 2,
      containers: [{ name: "app", image: "nginx:1.27", runningImage: "docker.io/library/nginx:1.27" }],
    });
  });

  it("regression (clock skew): a Ready pod is available at once without minReadySeconds, even Ready 'in the future'", () => {
    // The controller's clock 30 s behind the kubelet's: the Ready time is ahead of `now`.
    const view = podViewFromV1Pod(pod);
    const readyAt = view.readySince ?? view.createdAt;
    expect(isAvailable(view, 0, readyAt - 30_000)).toBe(true);
    expect(isAvailable(view, 10_000, readyAt - 30_000)).toBe(false);
  });

  it("treats a normalised running image as the same image (not an in-place update)", () => {
    expect(isAvailable(podViewFromV1Pod(pod), 0, 6000)).toBe(true);
    expect(isAvailable(podViewFromV1Pod(pod), 10_000, 6000)).toBe(false);
  });

  it("reads terminating pods, failing containers and ordinals from the name", () => {
    const view = podViewFromV1Pod({
      metadata: {
        name: "web-7",
        deletionTimestamp: new Date(40_000),
        deletionGracePeriodSeconds: 30,
        creationTimestamp: new Date(0),
      },
      spec: { containers: [{ name: "app", image: "x" }] },
      status: {
        phase: "Running",
        containerStatuses: [
          {
            name: "app",
            image: "x",
            imageID: "",
            ready: false,
            restartCount: 4,
            state: { waiting: { reason: "CrashLoopBackOff" } },
          },
        ],
      },
    });
    expect(view).toMatchObject({
      ordinal: 7,
      deletionTimestamp: 40_000,
      deletionRequestedAt: 10_000,
      failing: "CrashLoopBackOff",
      ready: false,
    });
    expect(isBroken({ ...view, deletionTimestamp: undefined }, 1, 600_000)).toBe(true);
  });
});

describe("claimViewFromV1", () => {
  it("reads name, uid, resourceVersion and deletion", () => {
    expect(
      claimViewFromV1({
        metadata: { name: "data-web-0", uid: "c", resourceVersion: "3", deletionTimestamp: new Date(9) },
        spec: {},
      }),
    ).toEqual({ name: "data-web-0", uid: "c", resourceVersion: "3", labels: {}, deletionTimestamp: 9 });
  });
});

describe("resolveMaxUnavailable", () => {
  it.each([
    [1, 10, 1],
    [3, 10, 3],
    [0, 10, 1],
    ["50%", 10, 5],
    ["25%", 10, 2],
    ["10%", 5, 1],
    ["100%", 3, 3],
    ["0%", 3, 1],
  ] as const)("%s of %i replicas is %i", (value, replicas, expected) => {
    expect(resolveMaxUnavailable(value, replicas)).toBe(expected);
  });
});
