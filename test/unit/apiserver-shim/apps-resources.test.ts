/**
 * apps/v1 StatefulSets and ControllerRevisions in the embedded server: kube's defaults,
 * validation and immutability, the status and scale subresources, printer columns.
 * (test/conformance compares the same requests with a real kube-apiserver.)
 */
import { describe, expect, it } from "vitest";
import { getScale, updateScale } from "../../../src/apiserver-shim/crd/scale.js";
import { ApiError } from "../../../src/apiserver-shim/errors.js";
import { controllerRevisionTable, statefulSetTable } from "../../../src/apiserver-shim/tables/apps-tables.js";
import type { KubeObject } from "../../../src/apiserver-shim/types.js";
import { testCore } from "./fixtures.js";

type Obj = Record<string, unknown>;

function invalidMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError && e.code === 422) return e.message;
    throw e;
  }
  throw new Error("expected 422 Invalid");
}

function statefulSet(name = "web", spec: Obj = {}): Obj {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name },
    spec: {
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [{ name: "app", image: "registry.k8s.io/pause:3.9", ports: [{ containerPort: 80 }] }],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: "data" },
          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
        },
      ],
      ...spec,
    },
  };
}

function setup() {
  const core = testCore();
  return {
    core,
    sts: core.def("apps", "v1", "statefulsets"),
    crs: core.def("apps", "v1", "controllerrevisions"),
  };
}

describe("apps/v1 StatefulSets", () => {
  it("fills kube's defaults: policy, strategy, retention, replicas, history limit, template and claim templates", () => {
    const { core, sts } = setup();
    const created = core.store.create(sts, "default", statefulSet(), core.ctx());
    const spec = created.spec as Obj;
    expect(spec.podManagementPolicy).toBe("OrderedReady");
    expect(spec.updateStrategy).toEqual({ type: "RollingUpdate", rollingUpdate: { partition: 0 } });
    expect(spec.persistentVolumeClaimRetentionPolicy).toEqual({
      whenDeleted: "Retain",
      whenScaled: "Retain",
    });
    expect(spec.replicas).toBe(1);
    expect(spec.revisionHistoryLimit).toBe(10);
    const template = spec.template as { metadata: Obj; spec: Obj & { containers: Obj[] } };
    expect(template.metadata.creationTimestamp).toBeNull();
    expect(template.spec.restartPolicy).toBe("Always");
    expect(template.spec.dnsPolicy).toBe("ClusterFirst");
    expect(template.spec.containers[0]?.imagePullPolicy).toBe("IfNotPresent");
    expect(template.spec.containers[0]?.ports).toEqual([{ containerPort: 80, protocol: "TCP" }]);
    // Defaulting, not admission: nothing a pod gets from admission plugins.
    expect(template.spec.priority).toBeUndefined();
    expect(template.spec.tolerations).toBeUndefined();
    expect(template.spec.enableServiceLinks).toBeUndefined(); // SetDefaults_Pod's, not a template's
    const claim = (spec.volumeClaimTemplates as Obj[])[0] as Obj;
    expect(claim).toMatchObject({
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      spec: { volumeMode: "Filesystem" },
      status: { phase: "Pending" },
    });
    expect(created.metadata.generation).toBe(1);
    expect(created.status).toEqual({ replicas: 0, availableReplicas: 0 });
  });

  it("keeps an OnDelete strategy without rollingUpdate and an explicit partition", () => {
    const { core, sts } = setup();
    const onDelete = core.store.create(
      sts,
      "default",
      statefulSet("a", { updateStrategy: { type: "OnDelete" } }),
      core.ctx(),
    );
    expect((onDelete.spec as Obj).updateStrategy).toEqual({ type: "OnDelete" });
    const partitioned = core.store.create(
      sts,
      "default",
      statefulSet("b", { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 2 } } }),
      core.ctx(),
    );
    expect((partitioned.spec as Obj).updateStrategy).toEqual({
      type: "RollingUpdate",
      rollingUpdate: { partition: 2 },
    });
  });

  it("refuses a selector that does not match the template, an empty selector, and bad enumerations", () => {
    const { core, sts } = setup();
    const mismatch = statefulSet();
    ((mismatch.spec as Obj).selector as Obj).matchLabels = { app: "other" };
    expect(invalidMessage(() => core.store.create(sts, "default", mismatch, core.ctx()))).toBe(
      'StatefulSet.apps "web" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
    );
    expect(
      invalidMessage(() =>
        core.store.create(sts, "default", statefulSet("web", { selector: {} }), core.ctx()),
      ),
    ).toContain(
      "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for statefulset",
    );
    const bad = statefulSet("web", {
      podManagementPolicy: "Sometimes",
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Keep" },
      replicas: -1,
    });
    const message = invalidMessage(() => core.store.create(sts, "default", bad, core.ctx()));
    expect(message).toContain(
      "spec.podManagementPolicy: Invalid value: \"Sometimes\": must be 'OrderedReady' or 'Parallel'",
    );
    expect(message).toContain(
      'spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": supported values: "Retain", "Delete"',
    );
    expect(message).toContain("spec.replicas: Invalid value: -1: must be greater than or equal to 0");
    const noSelector = statefulSet();
    delete (noSelector.spec as Obj).selector;
    expect(invalidMessage(() => core.store.create(sts, "default", noSelector, core.ctx()))).toContain(
      "spec.selector: Required value",
    );
  });

  it("lets an update change the template, replicas and strategy but not selector, serviceName, claim templates or policy", () => {
    const { core, sts } = setup();
    const created = core.store.create(sts, "default", statefulSet(), core.ctx());
    const spec = created.spec as Obj;
    const updated = core.store.update(
      sts,
      "default",
      "web",
      { ...created, spec: { ...spec, replicas: 3, updateStrategy: { type: "OnDelete" } } },
      core.ctx(),
    );
    expect(updated.metadata.generation).toBe(2);
    for (const change of [
      { serviceName: "other" },
      { podManagementPolicy: "Parallel" },
      { volumeClaimTemplates: [] },
      {
        selector: { matchLabels: { app: "web", tier: "x" } },
        template: { ...(spec.template as Obj), metadata: { labels: { app: "web", tier: "x" } } },
      },
    ])
      expect(
        invalidMessage(() =>
          core.store.update(
            sts,
            "default",
            "web",
            { ...updated, spec: { ...(updated.spec as Obj), ...change } },
            core.ctx(),
          ),
        ),
      ).toContain(
        "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      );
  });

  it("writes status only through /status, validated; scales through /scale", () => {
    const { core, sts } = setup();
    const created = core.store.create(sts, "default", statefulSet("web", { replicas: 3 }), core.ctx());
    const ignored = core.store.update(
      sts,
      "default",
      "web",
      { ...created, status: { replicas: 3 } },
      core.ctx(),
    );
    expect((ignored.status as Obj).replicas).toBe(0);
    const status = {
      replicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      currentRevision: "web-1",
      updateRevision: "web-1",
      observedGeneration: 1,
    };
    const written = core.store.update(
      sts,
      "default",
      "web",
      { ...ignored, status },
      core.ctx({ subresource: "status" }),
    );
    expect(written.status).toMatchObject(status);
    expect(
      invalidMessage(() =>
        core.store.update(
          sts,
          "default",
          "web",
          { ...written, status: { replicas: 1, readyReplicas: 2 } },
          core.ctx({ subresource: "status" }),
        ),
      ),
    ).toContain("status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas");

    expect(getScale(core.store, sts, "default", "web")).toMatchObject({
      kind: "Scale",
      apiVersion: "autoscaling/v1",
      spec: { replicas: 3 },
      status: { replicas: 3, selector: "app=web" },
    });
    updateScale(core.store, sts, "default", "web", { scale: { spec: { replicas: 5 } } }, core.ctx());
    expect((core.store.get(sts, "default", "web").spec as Obj).replicas).toBe(5);
  });

  it("prints READY and AGE (containers and images when wide)", () => {
    const now = new Date("2025-01-01T00:05:00Z");
    const obj: KubeObject = {
      ...(statefulSet("web", { replicas: 3 }) as KubeObject),
      metadata: { name: "web", creationTimestamp: "2025-01-01T00:00:00Z" },
      status: { replicas: 3, readyReplicas: 2 },
    };
    expect(statefulSetTable.columns.map((c) => `${c.name}:${c.priority}`)).toEqual([
      "Name:0",
      "Ready:0",
      "Age:0",
      "Containers:1",
      "Images:1",
    ]);
    expect(statefulSetTable.cells(obj, now)).toEqual([
      "web",
      "2/3",
      "5m",
      "app",
      "registry.k8s.io/pause:3.9",
    ]);
  });
});

describe("apps/v1 ControllerRevisions", () => {
  const revision = (data: unknown, rev = 1): Obj => ({
    apiVersion: "apps/v1",
    kind: "ControllerRevision",
    metadata: {
      name: "web-abc",
      ownerReferences: [
        { apiVersion: "apps/v1", kind: "StatefulSet", name: "web", uid: "u1", controller: true },
      ],
    },
    data,
    revision: rev,
  });

  it("requires a JSON object as data, refuses a negative revision", () => {
    const { core, crs } = setup();
    expect(
      invalidMessage(() => core.store.create(crs, "default", revision(undefined), core.ctx())),
    ).toContain("data: Required value: data is mandatory");
    expect(invalidMessage(() => core.store.create(crs, "default", revision([1]), core.ctx()))).toContain(
      "data: Required value: data must be a valid JSON object",
    );
    expect(invalidMessage(() => core.store.create(crs, "default", revision({}, -1), core.ctx()))).toContain(
      "revision: Invalid value: -1: must be greater than or equal to 0",
    );
  });

  it("never changes data; revision may change (a controller renumbers a reused revision)", () => {
    const { core, crs } = setup();
    const data = { spec: { template: { $patch: "replace", metadata: { labels: { app: "web" } } } } };
    const created = core.store.create(crs, "default", revision(data), core.ctx());
    expect(created.data).toEqual(data);
    const renumbered = core.store.update(crs, "default", "web-abc", { ...created, revision: 3 }, core.ctx());
    expect(renumbered.revision).toBe(3);
    expect(
      invalidMessage(() =>
        core.store.update(crs, "default", "web-abc", { ...renumbered, data: { spec: {} } }, core.ctx()),
      ),
    ).toBe(
      'ControllerRevision.apps "web-abc" is invalid: data: Invalid value: runtime.RawExtension{Raw:[]uint8{0x7b, 0x22, 0x73, 0x70, 0x65, 0x63, 0x22, 0x3a, 0x7b, 0x7d, 0x7d}, Object:runtime.Object(nil)}: field is immutable',
    );
  });

  it("prints CONTROLLER and REVISION", () => {
    const now = new Date("2025-01-01T00:00:30Z");
    const obj = { ...(revision({}, 2) as KubeObject) };
    obj.metadata = { ...obj.metadata, creationTimestamp: "2025-01-01T00:00:00Z" };
    expect(controllerRevisionTable.columns.map((c) => c.name)).toEqual([
      "Name",
      "Controller",
      "Revision",
      "Age",
    ]);
    expect(controllerRevisionTable.cells(obj, now)).toEqual(["web-abc", "statefulset.apps/web", 2, "30s"]);
    expect(controllerRevisionTable.cells({ ...obj, metadata: { name: "x" } }, now)[1]).toBe("<none>");
  });
});
