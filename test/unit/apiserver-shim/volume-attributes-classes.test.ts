/**
 * Issue 26: storage.k8s.io/v1beta1 VolumeAttributesClasses on the embedded server, as
 * kube-apiserver 1.33 serves them (test/conformance compares the two: volumeattributesclass/crud).
 */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/apiserver-shim/errors.js";
import type { KubeObject } from "../../../src/apiserver-shim/types.js";
import { testCore } from "./fixtures.js";

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return `${e.code} ${e.message}`;
    throw e;
  }
  throw new Error("expected the API server to refuse");
}

const vac = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "storage.k8s.io/v1beta1",
  kind: "VolumeAttributesClass",
  metadata: { name },
  driverName: "csi.petset.dev",
  parameters: { iops: "3000" },
  ...extra,
});

describe("issue 26: VolumeAttributesClasses on the embedded server", () => {
  it("a created class carries the vac-protection finalizer; driverName and parameters are immutable", () => {
    const core = testCore();
    const def = core.def("storage.k8s.io", "v1beta1", "volumeattributesclasses");
    const created = core.store.create(def, undefined, vac("gold"), core.ctx());
    expect(created.metadata.finalizers).toEqual(["kubernetes.io/vac-protection"]);
    const update = (o: KubeObject) => () => core.store.update(def, undefined, "gold", o, core.ctx());
    expect(refusal(update({ ...created, driverName: "other.example.com" }))).toBe(
      '422 VolumeAttributesClass.storage.k8s.io "gold" is invalid: driverName: Forbidden: updates to driverName are forbidden.',
    );
    expect(refusal(update({ ...created, parameters: { iops: "1" } }))).toBe(
      '422 VolumeAttributesClass.storage.k8s.io "gold" is invalid: parameters: Forbidden: updates to parameters are forbidden.',
    );
    const labelled = core.store.update(
      def,
      undefined,
      "gold",
      { ...created, metadata: { ...created.metadata, labels: { tier: "gold" } } },
      core.ctx(),
    );
    expect(labelled.metadata.labels).toEqual({ tier: "gold" });
    expect(
      refusal(() => core.store.create(def, undefined, vac("empty", { parameters: {} }), core.ctx())),
    ).toBe(
      '422 VolumeAttributesClass.storage.k8s.io "empty" is invalid: parameters: Required value: must contain at least one key/value pair',
    );
  });
});
