/**
 * Differences the conformance suite (test/conformance) found between the embedded server and
 * kube-apiserver 1.33, fixed in the shim (issue 24, "Also"): kube's Event validation, read
 * from its source (pkg/apis/core/validation/events.go), so it fails here without the cluster
 * the conformance suite needs.
 */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/apiserver-shim/errors.js";
import { testCore } from "./fixtures.js";

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected an ApiError");
}

describe("issue 24 conformance: Event validation (pkg/apis/core/validation/events.go)", () => {
  const regarding = { kind: "ConfigMap", name: "c1", namespace: "default", apiVersion: "v1" };

  it("refuses an events.k8s.io/v1 Event kube refuses, with kube's causes in kube's order, naming the core Event", () => {
    const c = testCore();
    const events = c.def("events.k8s.io", "v1", "events");
    const body = { metadata: { name: "e3" }, reason: "Tested", type: "Sometimes" };
    const err = refusal(() => c.store.create(events, "default", body, c.ctx()));
    expect(err.status).toMatchObject({
      code: 422,
      reason: "Invalid",
      message:
        'Event "e3" is invalid: [eventTime: Required value, type: Invalid value: "": has invalid value: Sometimes]',
      details: { name: "e3", kind: "Event" },
    });
    expect(err.status.details).not.toHaveProperty("group");
    c.store.create(c.def("", "v1", "namespaces"), undefined, { metadata: { name: "ns1" } }, c.ctx());
    const inNs = refusal(() => c.store.create(events, "ns1", { ...body, metadata: { name: "e3" } }, c.ctx()));
    expect(inNs.status.details?.causes?.map((x) => x.field)).toEqual([
      "involvedObject.namespace",
      "eventTime",
      "type",
    ]);
  });

  it("requires reportingController, reportingInstance and action with eventTime, and no deprecated fields", () => {
    const c = testCore();
    const events = c.def("events.k8s.io", "v1", "events");
    const err = refusal(() =>
      c.store.create(
        events,
        "default",
        {
          metadata: { name: "e4" },
          eventTime: "2025-01-01T00:00:00.000000Z",
          reason: "Tested",
          type: "Normal",
          regarding,
          deprecatedCount: 3,
        },
        c.ctx(),
      ),
    );
    expect(err.status.details?.causes?.map((x) => `${x.field}: ${x.message}`)).toEqual([
      "reportingController: Required value",
      'reportingController: Invalid value: "": name part must be non-empty',
      "reportingController: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      "reportingInstance: Required value",
      "action: Required value",
      'count: Invalid value: "": needs to be unset',
    ]);
  });

  it("accepts a complete events.k8s.io/v1 Event and a legacy core/v1 one, refuses a core/v1 namespace mismatch", () => {
    const c = testCore();
    c.store.create(
      c.def("events.k8s.io", "v1", "events"),
      "default",
      {
        metadata: { name: "e2" },
        eventTime: "2025-01-01T00:00:00.000000Z",
        reportingController: "petset.dev/conformance",
        reportingInstance: "conformance-1",
        action: "Testing",
        reason: "Tested",
        regarding,
        type: "Warning",
      },
      c.ctx(),
    );
    const core = c.def("", "v1", "events");
    c.store.create(
      core,
      "default",
      { metadata: { name: "e1" }, involvedObject: regarding, reason: "R" },
      c.ctx(),
    );
    const err = refusal(() =>
      c.store.create(
        core,
        "default",
        { metadata: { name: "e5" }, involvedObject: { ...regarding, namespace: "elsewhere" }, reason: "R" },
        c.ctx(),
      ),
    );
    expect(err.status.message).toBe(
      'Event "e5" is invalid: involvedObject.namespace: Invalid value: "elsewhere": does not match event.namespace',
    );
  });
});
