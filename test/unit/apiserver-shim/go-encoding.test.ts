import { describe, expect, it } from "vitest";
import { goEncode, goZeroObject } from "../../../src/apiserver-shim/registry/go-encoding.js";
import type { KubeObject } from "../../../src/apiserver-shim/types.js";
import { testCore, WIDGET_CRD } from "./fixtures.js";

describe("Go encoding of built-in kinds", () => {
  it("drops what omitempty drops and prints zero values kube prints", () => {
    const cm = goEncode({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c", labels: {}, annotations: {} },
      data: {},
      immutable: false,
    });
    // empty maps are omitted, a pointer to false is not; an unset metav1.Time (a struct) is null.
    expect(cm).toEqual({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c", creationTimestamp: null },
      immutable: false,
    });

    const event = goEncode({ apiVersion: "v1", kind: "Event", metadata: { name: "e" }, reason: "R" });
    expect(event).toMatchObject({
      involvedObject: {},
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      eventTime: null,
      reportingComponent: "",
      reportingInstance: "",
    });
    expect(event).not.toHaveProperty("count");
    expect(event).not.toHaveProperty("series"); // a pointer: omitted when nil
  });

  it("fills nested structs, keeps pointers to zero values, and leaves unknown kinds alone", () => {
    const pod = goEncode({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      spec: { containers: [{ name: "c", ports: [{ containerPort: 80, hostPort: 0 }] }], priority: 0 },
      status: { conditions: [{ type: "Ready", status: "True" }] },
    });
    expect(pod.spec).toEqual({
      containers: [{ name: "c", ports: [{ containerPort: 80 }], resources: {} }],
      priority: 0,
    });
    expect(pod.status).toEqual({
      conditions: [{ type: "Ready", status: "True", lastProbeTime: null, lastTransitionTime: null }],
    });
    const svc = goEncode({ apiVersion: "v1", kind: "Service", metadata: { name: "s" } });
    expect(svc.status).toEqual({ loadBalancer: {} });
    const cr: KubeObject = {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w" },
      spec: {},
    };
    expect(goEncode(cr)).toBe(cr);
    expect(goZeroObject("example.com/v1", "Widget")).toBeUndefined();
    expect(goZeroObject("v1", "Pod")).toEqual({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { creationTimestamp: null },
      spec: { containers: null },
      status: {},
    });
  });
});

describe("managedFields as kube's field manager computes them", () => {
  const fieldsOf = (o: KubeObject, i = 0) =>
    o.metadata.managedFields?.[i]?.fieldsV1 as Record<string, unknown>;

  it("does not own struct fields of a create, nor what admission and the strategy set", () => {
    const core = testCore();
    const pods = core.def("", "v1", "pods");
    const created = core.store.create(
      pods,
      "default",
      { metadata: { name: "p" }, spec: { containers: [{ name: "app", image: "nginx:1.27" }] } },
      core.ctx(),
    );
    const spec = fieldsOf(created)["f:spec"] as Record<string, unknown>;
    expect(spec["."]).toBeUndefined();
    expect(spec["f:containers"]).toEqual({
      'k:{"name":"app"}': {
        ".": {},
        "f:image": {},
        "f:imagePullPolicy": {},
        "f:name": {},
        "f:resources": {},
        "f:terminationMessagePath": {},
        "f:terminationMessagePolicy": {},
      },
    });
    // scheme defaults belong to the writer; admission (priority, tolerations, service account) to no one.
    expect(spec["f:restartPolicy"]).toEqual({});
    for (const k of ["f:priority", "f:preemptionPolicy", "f:tolerations", "f:serviceAccountName"])
      expect(spec[k], k).toBeUndefined();
    expect(created.spec).toMatchObject({ priority: 0, serviceAccountName: "default" });

    const svc = core.store.create(
      core.def("", "v1", "services"),
      "default",
      { metadata: { name: "s" }, spec: { ports: [{ port: 80 }] } },
      core.ctx(),
    );
    const svcSpec = fieldsOf(svc)["f:spec"] as Record<string, unknown>;
    expect(Object.keys(svcSpec).sort()).toEqual([
      "f:internalTrafficPolicy",
      "f:ports",
      "f:sessionAffinity",
      "f:type",
    ]);

    const ns = core.store.create(
      core.def("", "v1", "namespaces"),
      undefined,
      { metadata: { name: "n" } },
      core.ctx(),
    );
    expect(fieldsOf(ns)).toEqual({
      "f:metadata": { "f:labels": { ".": {}, "f:kubernetes.io/metadata.name": {} } },
    });
  });

  it("tracks a custom resource's finalizers and ownerReferences item by item", () => {
    const core = testCore();
    core.store.create(
      core.def("apiextensions.k8s.io", "v1", "customresourcedefinitions"),
      undefined,
      WIDGET_CRD,
      core.ctx(),
    );
    core.settle();
    const w = core.store.create(
      core.def("example.com", "v1", "widgets"),
      "default",
      {
        apiVersion: "example.com/v1",
        kind: "Widget",
        metadata: {
          name: "w",
          finalizers: ["example.com/keep"],
          ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "o", uid: "u1" }],
        },
      },
      core.ctx(),
    );
    expect(fieldsOf(w)["f:metadata"] as Record<string, unknown>).toEqual({
      "f:finalizers": { ".": {}, 'v:"example.com/keep"': {} },
      "f:ownerReferences": {
        ".": {},
        'k:{"uid":"u1"}': {},
      },
    });
  });

  it("orders entries as kube: Apply first, then by time, manager", () => {
    const core = testCore();
    const cms = core.def("", "v1", "configmaps");
    core.store.create(
      cms,
      "default",
      { metadata: { name: "c" }, data: { a: "1" } },
      core.ctx({ fieldManager: "zed" }),
    );
    core.clock.advance(2000);
    const cm = core.store.get(cms, "default", "c");
    core.store.update(
      cms,
      "default",
      "c",
      { ...cm, data: { a: "1", b: "2" } },
      core.ctx({ fieldManager: "amy" }),
    );
    const after = core.store.get(cms, "default", "c");
    expect(after.metadata.managedFields?.map((e) => `${e.operation} ${e.manager}`)).toEqual([
      "Update zed",
      "Update amy",
    ]);
  });
});
