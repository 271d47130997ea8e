/**
 * Issue 28: in-place resize on the embedded server. The pods/resize subresource with kube's
 * ValidatePodResize rules (builtin/pod-resize.ts), and the simulated kubelet's resize
 * (kubelet/resize.ts): Infeasible, Deferred, admitted, applied, RestartContainer.
 */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../../../src/apiserver-shim/errors.js";
import type { Pod } from "../../../../src/apiserver-shim/kubelet/objects.js";
import { planResize, type ResizeNode } from "../../../../src/apiserver-shim/kubelet/resize.js";
import type { KubeObject } from "../../../../src/apiserver-shim/types.js";
import { testCore } from "../fixtures.js";

type Obj = Record<string, unknown>;
const T = Date.parse("2026-12-05T10:00:00Z");

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError && e.code === 422) return e.message;
    throw e;
  }
  throw new Error("expected 422 Invalid");
}

describe("issue 28: pods/resize on the embedded server (kube's ValidatePodResize)", () => {
  const core = testCore();
  const pods = core.def("", "v1", "pods");
  const resize = core.ctx({ subresource: "resize" });
  let n = 0;
  /** A running pod whose container reports resources (a node that supports resize). */
  function running(resources: Obj, extra: Obj = {}): string {
    const name = `p${n++}`;
    core.store.create(
      pods,
      "default",
      { metadata: { name }, spec: { containers: [{ name: "app", image: "a:1", resources, ...extra }] } },
      core.ctx(),
    );
    const pod = core.store.get(pods, "default", name) as KubeObject;
    core.store.update(
      pods,
      "default",
      name,
      {
        ...pod,
        status: {
          phase: "Running",
          containerStatuses: [
            {
              name: "app",
              image: "a:1",
              imageID: "",
              ready: true,
              restartCount: 0,
              state: { running: {} },
              resources,
            },
          ],
        },
      },
      core.ctx({ subresource: "status" }),
    );
    return name;
  }
  const put = (name: string, containers: Obj[], labels?: Record<string, string>) => {
    const pod = core.store.get(pods, "default", name) as KubeObject;
    return core.store.update(
      pods,
      "default",
      name,
      {
        ...pod,
        metadata: { ...pod.metadata, ...(labels ? { labels } : {}) },
        spec: { ...(pod.spec as Obj), containers },
      },
      resize,
    );
  };

  it("changes only the containers' resources: other fields and metadata of the write are dropped", () => {
    const name = running({ requests: { cpu: "100m" } });
    const out = put(name, [{ name: "app", image: "b:2", resources: { requests: { cpu: "200m" } } }], {
      x: "y",
    });
    const c = (out.spec as { containers: Obj[] }).containers[0];
    expect(c).toMatchObject({ image: "a:1", resources: { requests: { cpu: "200m" } } });
    expect(out.metadata.labels?.x).toBeUndefined();
  });

  it("the main pod resource still refuses a resources change", () => {
    const name = running({ requests: { cpu: "100m" } });
    const pod = core.store.get(pods, "default", name) as KubeObject;
    const spec = pod.spec as { containers: Obj[] };
    const containers = [{ ...spec.containers[0], resources: { requests: { cpu: "200m" } } }];
    expect(
      refusal(() =>
        core.store.update(pods, "default", name, { ...pod, spec: { ...spec, containers } }, core.ctx()),
      ),
    ).toMatch(/pod updates may not change fields other than/);
  });

  it.each([
    [
      "a request removed",
      { requests: { cpu: "100m", memory: "64Mi" } },
      { requests: { cpu: "200m" } },
      {},
      /spec.containers\[0\].resources.requests: Forbidden: resource requests cannot be removed/,
    ],
    [
      "QoS Guaranteed to Burstable",
      { requests: { cpu: "1", memory: "1Gi" }, limits: { cpu: "1", memory: "1Gi" } },
      { requests: { cpu: "500m", memory: "1Gi" }, limits: { cpu: "1", memory: "1Gi" } },
      {},
      /Pod QOS Class may not change as a result of resizing/,
    ],
    [
      "memory limit decreased without RestartContainer",
      { requests: { memory: "64Mi" }, limits: { memory: "256Mi" } },
      { requests: { memory: "64Mi" }, limits: { memory: "128Mi" } },
      {},
      /memory limits cannot be decreased unless resizePolicy is RestartContainer/,
    ],
    [
      "ephemeral-storage changed",
      { requests: { cpu: "1", "ephemeral-storage": "1Gi" } },
      { requests: { cpu: "2", "ephemeral-storage": "2Gi" } },
      {},
      /only cpu and memory resources are mutable/,
    ],
  ])("refuses %s", (_, from, to, extra, message) => {
    const name = running(from, extra);
    expect(refusal(() => put(name, [{ name: "app", image: "a:1", resources: to, ...extra }]))).toMatch(
      message,
    );
  });

  it("allows a memory limit decrease with resizePolicy memory RestartContainer", () => {
    const policy = { resizePolicy: [{ resourceName: "memory", restartPolicy: "RestartContainer" }] };
    const name = running({ requests: { memory: "64Mi" }, limits: { memory: "256Mi" } }, policy);
    expect(() =>
      put(name, [
        {
          name: "app",
          image: "a:1",
          resources: { requests: { memory: "64Mi" }, limits: { memory: "128Mi" } },
          ...policy,
        },
      ]),
    ).not.toThrow();
  });
});

function pod(spec: Obj, status: Obj, annotations: Record<string, string> = {}): Pod {
  return {
    metadata: { name: "p", namespace: "d", uid: "u", annotations },
    spec: { nodeName: "n0", ...spec },
    status: { phase: "Running", ...status },
  } as unknown as Pod;
}
const node = (used = { cpu: 0, memory: 0 }): ResizeNode => ({
  allocatable: { cpu: "4", memory: "8Gi" },
  used,
});
const statusOf = (cpu: string, extra: Obj = {}) => ({
  containerStatuses: [
    {
      name: "app",
      image: "a:1",
      ready: true,
      restartCount: 0,
      state: { running: { startedAt: "2026-12-05T09:00:00Z" } },
      resources: { requests: { cpu } },
      ...extra,
    },
  ],
  conditions: [{ type: "Ready", status: "True" }],
});
const spec = (cpu: string, extra: Obj = {}) => ({
  containers: [{ name: "app", image: "a:1", resources: { requests: { cpu } }, ...extra }],
});
const types = (s: Obj | undefined) =>
  ((s?.conditions ?? []) as { type: string; reason?: string }[]).map(
    (c) => `${c.type}${c.reason ? `/${c.reason}` : ""}`,
  );

describe("issue 28: the simulated kubelet plays resize (kubelet/resize.ts)", () => {
  it.each([
    ["nothing to do when status equals spec", spec("1"), statusOf("1"), node(), {}, undefined],
    [
      "fits: admitted (PodResizeInProgress)",
      spec("2"),
      statusOf("1"),
      node(),
      {},
      ["Ready", "PodResizeInProgress"],
    ],
    [
      "a request above allocatable: Infeasible",
      spec("8"),
      statusOf("1"),
      node(),
      {},
      ["Ready", "PodResizePending/Infeasible"],
    ],
    [
      "other pods leave too little: Deferred",
      spec("3"),
      statusOf("1"),
      node({ cpu: 2, memory: 0 }),
      {},
      ["Ready", "PodResizePending/Deferred"],
    ],
    [
      "the annotation forces Deferred",
      spec("2"),
      statusOf("1"),
      node(),
      { "kubelet.petset.dev/resize": "Deferred" },
      ["Ready", "PodResizePending/Deferred"],
    ],
  ] as const)("%s", (_, sp, st, nd, ann, want) => {
    const out = planResize(pod(sp, st, ann), nd, T);
    if (want === undefined) expect(out).toBeUndefined();
    else expect(types(out)).toEqual(want);
  });

  it("keeps a Deferred condition's lastTransitionTime and writes nothing when unchanged", () => {
    const first = planResize(pod(spec("3"), statusOf("1")), node({ cpu: 2, memory: 0 }), T) as Obj;
    const again = pod(spec("3"), { ...statusOf("1"), conditions: first.conditions });
    expect(planResize(again, node({ cpu: 2, memory: 0 }), T + 60_000)).toBeUndefined();
  });

  it("applies an admitted resize: status resources take the spec, no restart without RestartContainer", () => {
    const admitted = {
      ...statusOf("1"),
      conditions: [
        { type: "Ready", status: "True" },
        { type: "PodResizeInProgress", status: "True" },
      ],
    };
    const out = planResize(pod(spec("2"), admitted), node(), T) as { containerStatuses: Obj[] };
    expect(types(out as Obj)).toEqual(["Ready"]);
    expect(out.containerStatuses[0]).toMatchObject({
      resources: { requests: { cpu: "2" } },
      restartCount: 0,
    });
  });

  it("RestartContainer for the changed resource restarts that container only (restartCount + 1, lastState Resized)", () => {
    const restart = { resizePolicy: [{ resourceName: "cpu", restartPolicy: "RestartContainer" }] };
    const sp = {
      containers: [
        ...spec("2", restart).containers,
        { name: "side", image: "s:1", resources: { requests: { cpu: "1" } } },
      ],
    };
    const st = statusOf("1");
    st.containerStatuses.push({
      ...st.containerStatuses[0]!,
      name: "side",
      image: "s:1",
      resources: { requests: { cpu: "1" } },
    });
    const admitted = { ...st, conditions: [{ type: "PodResizeInProgress", status: "True" }] };
    const out = planResize(pod(sp, admitted), node(), T) as { containerStatuses: Obj[] };
    expect(out.containerStatuses.map((c) => c.restartCount)).toEqual([1, 0]);
    expect(out.containerStatuses[0]).toMatchObject({ lastState: { terminated: { reason: "Resized" } } });
  });
});
