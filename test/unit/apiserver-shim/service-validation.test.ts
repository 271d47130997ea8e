import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/apiserver-shim/errors.js";
import { testCore } from "./fixtures.js";

function invalidMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError && e.code === 422) return e.message;
    throw e;
  }
  throw new Error("expected 422 Invalid");
}

describe("Service validation", () => {
  it("refuses ports out of range with kube's messages (targetPort defaults to port)", () => {
    const core = testCore();
    const svcs = core.def("", "v1", "services");
    expect(
      invalidMessage(() =>
        core.store.create(
          svcs,
          "default",
          { metadata: { name: "s" }, spec: { ports: [{ port: 70000 }] } },
          core.ctx(),
        ),
      ),
    ).toBe(
      'Service "s" is invalid: [spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive, spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive]',
    );
    expect(
      invalidMessage(() =>
        core.store.create(
          svcs,
          "default",
          {
            metadata: { name: "s" },
            spec: { ports: [{ port: 80 }, { port: 81, name: "b", targetPort: "Web_1" }] },
          },
          core.ctx(),
        ),
      ),
    ).toContain("spec.ports[0].name: Required value");
  });

  it("keeps an allocated cluster IP: changing the singular field is a clusterIPs[0] change", () => {
    const core = testCore();
    const svcs = core.def("", "v1", "services");
    const created = core.store.create(
      svcs,
      "default",
      { metadata: { name: "s" }, spec: { ports: [{ port: 80 }] } },
      core.ctx(),
    );
    const changed = { ...created, spec: { ...(created.spec as object), clusterIP: "10.0.0.99" } };
    expect(invalidMessage(() => core.store.update(svcs, "default", "s", changed, core.ctx()))).toBe(
      'Service "s" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.0.0.99"}: may not change once set',
    );
  });
});
