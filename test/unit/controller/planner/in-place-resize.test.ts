import { describe, expect, it } from "vitest";
import type { PetSetVersion } from "../../../../src/api/index.js";
import {
  inPlaceChanges,
  qosClass,
  resizeOutstanding,
} from "../../../../src/controller/planner/in-place-resize.js";
import type { PatchPodImagesStep } from "../../../../src/controller/planner/index.js";
import type { PodView } from "../../../../src/controller/planner/views.js";
import { makePod, makeVersion, template } from "./fixtures.js";
import { at, moves, NOW, plan, policies, progressing, v1, withPolicy } from "./plan-helpers.js";

type Obj = Record<string, unknown>;

/** A version whose one container `app` runs `image` with these resources (and resizePolicy). */
function sized(n: number, image: string, resources: Obj, extra: Obj = {}): PetSetVersion {
  const t = template(image);
  t.spec.containers = [{ name: "app", image, resources, ...extra }];
  return makeVersion(n, image, { template: t, createdAt: NOW - 1000 * (10 - n) });
}

const cpu = (req: string, lim?: string): Obj => ({
  requests: { cpu: req },
  ...(lim !== undefined ? { limits: { cpu: lim } } : {}),
});
const memRestart = { resizePolicy: [{ resourceName: "memory", restartPolicy: "RestartContainer" }] };

describe("issue 28 in-place resize: which version changes can be applied in place (kube's ValidatePodResize)", () => {
  const cases: [string, PetSetVersion, PetSetVersion, string | { images: number; resources: number }][] = [
    [
      "cpu request up",
      sized(1, "a:1", cpu("100m")),
      sized(2, "a:1", cpu("200m")),
      { images: 0, resources: 1 },
    ],
    ["image and cpu", sized(1, "a:1", cpu("100m")), sized(2, "a:2", cpu("0.2")), { images: 1, resources: 1 }],
    [
      "same amount spelled differently is no change",
      sized(1, "a:1", cpu("100m")),
      sized(2, "a:2", cpu("0.1")),
      { images: 1, resources: 0 },
    ],
    [
      "memory limit up without a restart policy",
      sized(1, "a:1", { requests: { memory: "64Mi" }, limits: { memory: "128Mi" } }),
      sized(2, "a:1", { requests: { memory: "64Mi" }, limits: { memory: "256Mi" } }),
      { images: 0, resources: 1 },
    ],
    [
      "memory limit down without RestartContainer",
      sized(1, "a:1", { requests: { memory: "64Mi" }, limits: { memory: "256Mi" } }),
      sized(2, "a:1", { requests: { memory: "64Mi" }, limits: { memory: "128Mi" } }),
      "spec.template.spec.containers[app].resources.limits.memory: a memory limit can be decreased or added in place only with resizePolicy memory RestartContainer",
    ],
    [
      "memory limit down with RestartContainer",
      sized(1, "a:1", { requests: { memory: "64Mi" }, limits: { memory: "256Mi" } }, memRestart),
      sized(2, "a:1", { requests: { memory: "64Mi" }, limits: { memory: "128Mi" } }, memRestart),
      { images: 0, resources: 1 },
    ],
    [
      "a request removed",
      sized(1, "a:1", { requests: { cpu: "100m", memory: "64Mi" } }),
      sized(2, "a:1", { requests: { cpu: "100m" } }),
      "spec.template.spec.containers[app].resources.requests.memory: resources cannot be removed in place",
    ],
    [
      "QoS Guaranteed to Burstable",
      sized(1, "a:1", { requests: { cpu: "1", memory: "1Gi" }, limits: { cpu: "1", memory: "1Gi" } }),
      sized(2, "a:1", { requests: { cpu: "500m", memory: "1Gi" }, limits: { cpu: "1", memory: "1Gi" } }),
      "spec.template.spec.containers: the pod's QoS class would change (Guaranteed to Burstable)",
    ],
    [
      "QoS BestEffort to Burstable",
      sized(1, "a:1", {}),
      sized(2, "a:1", cpu("100m")),
      "spec.template.spec.containers: the pod's QoS class would change (BestEffort to Burstable)",
    ],
    [
      "ephemeral-storage is not resizable",
      sized(1, "a:1", { requests: { cpu: "1", "ephemeral-storage": "1Gi" } }),
      sized(2, "a:1", { requests: { cpu: "2", "ephemeral-storage": "2Gi" } }),
      "spec.template.spec.containers[app].resources.requests.ephemeral-storage changed (only images and cpu/memory resources change in place)",
    ],
    [
      "env changed",
      sized(1, "a:1", cpu("1")),
      sized(2, "a:1", cpu("2"), { env: [{ name: "X", value: "1" }] }),
      "spec.template.spec.containers[app].env changed (only images and cpu/memory resources change in place)",
    ],
    [
      "resizePolicy changed",
      sized(1, "a:1", cpu("1")),
      sized(2, "a:1", cpu("2"), memRestart),
      "spec.template.spec.containers[app].resizePolicy changed (only images and cpu/memory resources change in place)",
    ],
    [
      "pod-level field changed",
      makeVersion(1, "a:1"),
      makeVersion(2, "a:1", { template: template("a:1", { hostNetwork: true }) }),
      "spec.template.spec.hostNetwork changed",
    ],
  ];
  it.each(cases)("%s", (_, from, to, want) => {
    const got = inPlaceChanges(from, to);
    if (typeof want === "string") expect(got).toEqual({ inPlace: false, why: want });
    else expect(got.inPlace && { images: got.images.length, resources: got.resources.length }).toEqual(want);
  });

  it.each([
    [[{ resources: {} }], "BestEffort"],
    [[{ resources: { limits: { cpu: "1", memory: "1Gi" } } }], "Guaranteed"],
    [
      [{ resources: { limits: { cpu: "1", memory: "1Gi" } } }, { resources: { requests: { cpu: "1" } } }],
      "Burstable",
    ],
  ] as const)("QoS class of %j is %s", (containers, want) => {
    expect(qosClass(containers as unknown as Obj[])).toBe(want);
  });
});

/** A pod of `version` at `ordinal` as the kubelet reports it mid-resize. */
function resizing(
  ordinal: number,
  version: PetSetVersion,
  state: Partial<PodView>,
  applied?: string,
): PodView {
  const pod = makePod(ordinal, version, { targetVersion: version.spec.version });
  const c = version.spec.template.spec.containers[0] as Obj;
  const want = ((c.resources as Obj).requests as Record<string, string>).cpu ?? "";
  const canonical = want.endsWith("m") ? String(Number(want.slice(0, -1)) / 1000) : want;
  return {
    ...pod,
    containers: [
      {
        name: "app",
        image: String(c.image),
        resources: { requests: { cpu: canonical } },
        statusResources: { requests: { cpu: applied ?? canonical } },
      },
    ],
    ...state,
  };
}

describe("issue 28 in-place resize: when it is done", () => {
  const v2 = sized(2, "a:1", cpu("200m"));
  it.each([
    ["applied, no conditions", resizing(0, v2, {}), undefined],
    ["status resources still old", resizing(0, v2, {}, "0.1"), "container app: resources not applied yet"],
    ["PodResizeInProgress", resizing(0, v2, { resizeInProgress: true }), "PodResizeInProgress"],
    [
      "PodResizePending",
      resizing(0, v2, { resizePending: { reason: "Deferred" } }),
      "PodResizePending (Deferred)",
    ],
    ["a kubelet that reports no resources", makePod(0, v2), undefined],
  ])("%s", (_, pod, want) => {
    expect(resizeOutstanding(pod)).toBe(want);
  });
});

describe.each(policies)("issue 28 in-place resize in planRollout, %s", (policy) => {
  const base = withPolicy(policy);
  const r1 = sized(1, "a:1", cpu("100m"));
  const r2 = sized(2, "a:1", cpu("200m"));
  const ifPossible = { updateStrategy: { rollingUpdate: { podUpdatePolicy: "InPlaceIfPossible" as const } } };
  const only = { updateStrategy: { rollingUpdate: { podUpdatePolicy: "InPlaceOnly" as const } } };

  it("a resources-only version resizes the highest pet in place (no delete)", () => {
    const p = plan(
      base({ spec: ifPossible, versions: [r1, r2], status: { currentVersion: 1 }, pods: at(r1, [0, 1, 2]) }),
    );
    expect(moves(p)).toEqual(["patch web-2@v2"]);
    const step = p.steps.find((s): s is PatchPodImagesStep => s.kind === "patchPodImages");
    expect(step?.resources).toEqual([{ container: "app", requests: { cpu: "200m" } }]);
    expect(step?.images).toEqual([]);
  });

  it("a pet whose resize is in progress is not available: the next one waits", () => {
    const pods = [...at(r1, [0, 1]), resizing(2, r2, { resizeInProgress: true })];
    const p = plan(base({ spec: ifPossible, versions: [r1, r2], status: { currentVersion: 1 }, pods }));
    expect(moves(p)).toEqual([]);
    const done = plan(
      base({
        spec: ifPossible,
        versions: [r1, r2],
        status: { currentVersion: 1 },
        pods: [...at(r1, [0, 1]), resizing(2, r2, {})],
      }),
    );
    expect(moves(done)).toEqual(["patch web-1@v2"]);
  });

  it("issue 28: an Infeasible resize falls back to recreating that pet, with a Warning Event", () => {
    const pending = {
      resizePending: { reason: "Infeasible", message: "Node didn't have enough capacity: cpu", since: NOW },
    };
    const pods = [...at(r1, [0, 1]), resizing(2, r2, pending, "0.1")];
    const p = plan(base({ spec: ifPossible, versions: [r1, r2], status: { currentVersion: 1 }, pods }));
    expect(moves(p)).toEqual(["delete web-2 (update)"]);
    expect(p.events).toContainEqual(
      expect.objectContaining({
        type: "Warning",
        reason: "ResizeFallback",
        object: "web-2",
        message: expect.stringContaining("Infeasible"),
      }),
    );
  });

  it.each([
    ["Deferred shorter than the timeout waits and asks to be woken", 119_000, [], 1000],
    ["Deferred for the timeout falls back", 120_000, ["delete web-2 (update)"], undefined],
  ] as const)("issue 28: %s", (_, deferredFor, want, wake) => {
    const pods = [
      ...at(r1, [0, 1]),
      resizing(2, r2, { resizePending: { reason: "Deferred", since: NOW - deferredFor } }, "0.1"),
    ];
    const p = plan(base({ spec: ifPossible, versions: [r1, r2], status: { currentVersion: 1 }, pods }));
    expect(moves(p)).toEqual(want);
    if (wake !== undefined) expect(p.requeueAfterMs).toBeLessThanOrEqual(wake);
  });

  it("rollingUpdate.inPlaceResizeTimeoutSeconds sets the Deferred budget", () => {
    const spec = {
      updateStrategy: {
        rollingUpdate: { podUpdatePolicy: "InPlaceIfPossible" as const, inPlaceResizeTimeoutSeconds: 5 },
      },
    };
    const pods = [
      ...at(r1, [0, 1]),
      resizing(2, r2, { resizePending: { reason: "Deferred", since: NOW - 5000 } }, "0.1"),
    ];
    expect(moves(plan(base({ spec, versions: [r1, r2], status: { currentVersion: 1 }, pods })))).toEqual([
      "delete web-2 (update)",
    ]);
  });

  it("issue 28 InPlaceOnly: a version that cannot be applied in place is refused (Progressing message, Warning Event naming the field)", () => {
    const env = sized(2, "a:1", cpu("100m"), { env: [{ name: "X", value: "1" }] });
    const p = plan(
      base({ spec: only, versions: [r1, env], status: { currentVersion: 1 }, pods: at(r1, [0, 1, 2]) }),
    );
    expect(moves(p)).toEqual([]);
    expect(progressing(p)?.message).toContain("spec.template.spec.containers[app].env changed");
    expect(p.events).toContainEqual(
      expect.objectContaining({ type: "Warning", reason: "InPlaceUpdateRefused", object: "web-2" }),
    );
    // Said once: the next pass with the message in status records no second Event.
    const again = plan(base({ spec: only, versions: [r1, env], status: p.status, pods: at(r1, [0, 1, 2]) }));
    expect(again.events.filter((e) => e.reason === "InPlaceUpdateRefused")).toEqual([]);
  });

  it("InPlaceOnly still resizes what can be resized, and does not recreate an Infeasible one", () => {
    expect(
      moves(
        plan(
          base({ spec: only, versions: [r1, r2], status: { currentVersion: 1 }, pods: at(r1, [0, 1, 2]) }),
        ),
      ),
    ).toEqual(["patch web-2@v2"]);
    const pods = [...at(r1, [0, 1]), resizing(2, r2, { resizePending: { reason: "Infeasible" } }, "0.1")];
    const p = plan(base({ spec: only, versions: [r1, r2], status: { currentVersion: 1 }, pods }));
    expect(moves(p)).toEqual([]);
    expect(progressing(p)?.message).toContain("InPlaceOnly does not recreate it");
  });

  it("Recreate ignores resize conditions (no fallback decisions)", () => {
    const pods = [...at(r1, [0, 1]), resizing(2, r2, { resizePending: { reason: "Infeasible" } }, "0.1")];
    const p = plan(base({ versions: [r1, r2], status: { currentVersion: 1 }, pods }));
    expect(moves(p)).not.toContain("delete web-2 (update)");
  });

  it("Failed pods are recreated under InPlaceOnly (not a version move)", () => {
    const pods = [...at(v1, [0, 1]), makePod(2, v1, { phase: "Failed", ready: false })];
    const p = plan(base({ spec: only, versions: [v1], status: { currentVersion: 1 }, pods }));
    expect(moves(p)).toEqual(["delete web-2 (recreate)"]);
  });
});
