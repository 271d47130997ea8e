/**
 * Issue 26: StorageClasses and the checks kube-apiserver 1.33 applies when a claim changes
 * (ValidatePersistentVolumeClaimUpdate, PersistentVolumeClaimResize, DefaultStorageClass),
 * with kube's messages.
 */
import { describe, expect, it } from "vitest";
import { compareQuantities } from "../../../src/apiserver-shim/builtin/claim-update-validation.js";
import { ApiError } from "../../../src/apiserver-shim/errors.js";
import type { KubeObject } from "../../../src/apiserver-shim/types.js";
import { type TestCore, testCore } from "./fixtures.js";

type Obj = Record<string, unknown>;

function refusal(fn: () => unknown): { code: number; message: string } {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error("expected the API server to refuse");
}

/** A claim of `cls` (undefined: none named), optionally Bound at its requested size. */
function claim(
  core: TestCore,
  name: string,
  cls: string | undefined,
  bound: boolean,
  size = "1Gi",
): KubeObject {
  const pvcs = core.def("", "v1", "persistentvolumeclaims");
  const spec: Obj = { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: size } } };
  if (cls !== undefined) spec.storageClassName = cls;
  const created = core.store.create(pvcs, "default", { metadata: { name }, spec }, core.ctx());
  if (!bound) return created;
  return core.store.update(
    pvcs,
    "default",
    name,
    { ...created, status: { phase: "Bound", accessModes: ["ReadWriteOnce"], capacity: { storage: size } } },
    core.ctx({ subresource: "status" }),
  );
}

function resize(core: TestCore, pvc: KubeObject, storage: string): KubeObject {
  const pvcs = core.def("", "v1", "persistentvolumeclaims");
  const spec = { ...(pvc.spec as Obj), resources: { requests: { storage } } };
  return core.store.update(pvcs, "default", pvc.metadata.name!, { ...pvc, spec }, core.ctx());
}

describe("issue 26: StorageClasses on the embedded server", () => {
  it("starts with the test cluster's classes: standard (default, expandable), fixed-size and csi", () => {
    const core = testCore();
    const classes = core.store.list(core.def("storage.k8s.io", "v1", "storageclasses"), undefined, {}).items;
    expect(
      classes.map((c) => [
        c.metadata.name,
        c.metadata.annotations?.["storageclass.kubernetes.io/is-default-class"] ?? "",
        c.allowVolumeExpansion,
        c.reclaimPolicy,
        c.volumeBindingMode,
      ]),
    ).toEqual([
      ["csi", "", true, "Delete", "Immediate"],
      ["fixed-size", "", false, "Delete", "Immediate"],
      ["standard", "true", true, "Delete", "Immediate"],
    ]);
  });

  it("a claim without a class gets the default class (DefaultStorageClass admission)", () => {
    const core = testCore();
    expect((claim(core, "c", undefined, false).spec as Obj).storageClassName).toBe("standard");
    expect((claim(core, "e", "", false).spec as Obj).storageClassName).toBe("");
  });

  it("parameters, provisioner and reclaimPolicy are immutable; allowVolumeExpansion may change", () => {
    const core = testCore();
    const scs = core.def("storage.k8s.io", "v1", "storageclasses");
    const sc = core.store.create(
      scs,
      undefined,
      { metadata: { name: "x" }, provisioner: "example.com/p", parameters: { a: "1" } },
      core.ctx(),
    );
    expect(sc.reclaimPolicy).toBe("Delete");
    const expandable = core.store.update(
      scs,
      undefined,
      "x",
      { ...sc, allowVolumeExpansion: true },
      core.ctx(),
    );
    expect(expandable.allowVolumeExpansion).toBe(true);
    expect(
      refusal(() =>
        core.store.update(
          scs,
          undefined,
          "x",
          { ...expandable, parameters: { a: "2" }, provisioner: "example.com/q" },
          core.ctx(),
        ),
      ),
    ).toEqual({
      code: 422,
      message:
        'StorageClass.storage.k8s.io "x" is invalid: [parameters: Forbidden: updates to parameters are forbidden., provisioner: Forbidden: updates to provisioner are forbidden.]',
    });
    expect(
      refusal(() => core.store.create(scs, undefined, { metadata: { name: "y" } }, core.ctx())).message,
    ).toBe('StorageClass.storage.k8s.io "y" is invalid: provisioner: Required value');
  });
});

describe("issue 26: claim resize admission (kube 1.33 with RecoverVolumeExpansionFailure)", () => {
  it("a Bound claim of an expandable class may grow", () => {
    const core = testCore();
    const grown = resize(core, claim(core, "c", "standard", true), "2Gi");
    expect((grown.spec as { resources: { requests: Obj } }).resources.requests.storage).toBe("2Gi");
  });

  it("growth is refused with kube's message when the class does not allow expansion", () => {
    const core = testCore();
    expect(refusal(() => resize(core, claim(core, "c", "fixed-size", true), "2Gi"))).toEqual({
      code: 403,
      message:
        'persistentvolumeclaims "c" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
    });
    expect(refusal(() => resize(core, claim(core, "d", "missing", true), "2Gi")).code).toBe(403);
  });

  it("growth of a claim that is not Bound is refused as a spec change", () => {
    const core = testCore();
    const r = refusal(() => resize(core, claim(core, "c", "standard", false), "2Gi"));
    expect(r.code).toBe(422);
    expect(r.message).toMatch(
      /^PersistentVolumeClaim "c" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n/,
    );
  });

  it("a shrink to or below status.capacity is refused; back down to above it is allowed (recovery)", () => {
    const core = testCore();
    const c = claim(core, "c", "standard", true);
    expect(refusal(() => resize(core, c, "500Mi"))).toEqual({
      code: 422,
      message:
        'PersistentVolumeClaim "c" is invalid: spec.resources.requests.storage: Forbidden: field can not be less than status.capacity',
    });
    const grown = resize(core, c, "3Gi");
    expect(refusal(() => resize(core, grown, "1Gi")).code).toBe(422);
    expect(((resize(core, grown, "2Gi").spec as Obj).resources as { requests: Obj }).requests.storage).toBe(
      "2Gi",
    );
  });

  it("storageClassName and accessModes stay immutable", () => {
    const core = testCore();
    const pvcs = core.def("", "v1", "persistentvolumeclaims");
    const c = claim(core, "c", "standard", true);
    for (const change of [{ storageClassName: "fixed-size" }, { accessModes: ["ReadWriteMany"] }]) {
      const r = refusal(() =>
        core.store.update(
          pvcs,
          "default",
          "c",
          { ...c, spec: { ...(c.spec as Obj), ...change } },
          core.ctx(),
        ),
      );
      expect(r.code).toBe(422);
      expect(r.message).toContain("spec: Forbidden: spec is immutable after creation");
    }
  });

  it("volumeAttributesClassName may be set or changed on a Bound claim, never unset", () => {
    const core = testCore();
    const pvcs = core.def("", "v1", "persistentvolumeclaims");
    const c = claim(core, "c", "standard", true);
    const withVac = core.store.update(
      pvcs,
      "default",
      "c",
      { ...c, spec: { ...(c.spec as Obj), volumeAttributesClassName: "gold" } },
      core.ctx(),
    );
    expect((withVac.spec as Obj).volumeAttributesClassName).toBe("gold");
    const { volumeAttributesClassName: _v, ...unset } = withVac.spec as Obj;
    expect(
      refusal(() => core.store.update(pvcs, "default", "c", { ...withVac, spec: unset }, core.ctx())).message,
    ).toContain("spec.volumeAttributesClassName: Forbidden: update from non-nil value to nil is forbidden");
    const pending = claim(core, "p", "standard", false);
    expect(
      refusal(() =>
        core.store.update(
          pvcs,
          "default",
          "p",
          { ...pending, spec: { ...(pending.spec as Obj), volumeAttributesClassName: "gold" } },
          core.ctx(),
        ),
      ).code,
    ).toBe(422);
  });

  it("compares quantities by value", () => {
    expect(compareQuantities("1Gi", "1024Mi")).toBe(0);
    expect(compareQuantities("1G", "1Gi")).toBe(-1);
    expect(compareQuantities("1.5Gi", "1Gi")).toBe(1);
    expect(compareQuantities("500m", "1")).toBe(-1);
  });
});
