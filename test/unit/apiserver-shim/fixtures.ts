/** A shim core with a controllable clock and manual reconciliation, plus request contexts. */
import { createShimCore, type ShimCore } from "../../../src/apiserver-shim/core.js";
import type { RequestContext, ResourceDefinition } from "../../../src/apiserver-shim/registry/resource.js";
import type { Clock } from "../../../src/apiserver-shim/time.js";

export class FakeClock implements Clock {
  constructor(private t = Date.parse("2025-01-01T00:00:00Z")) {}
  now(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export interface TestCore extends ShimCore {
  clock: FakeClock;
  def(group: string, version: string, resource: string): ResourceDefinition;
  ctx(overrides?: Partial<RequestContext>): RequestContext;
}

export function testCore(): TestCore {
  const clock = new FakeClock();
  const core = createShimCore({ clock, autoReconcile: false });
  return {
    ...core,
    clock,
    def(group, version, resource) {
      const d = core.registry.get(group, version, resource);
      if (!d) throw new Error(`no resource ${group}/${version}/${resource}`);
      return d;
    },
    ctx: (o = {}) => ({
      fieldManager: "test",
      dryRun: false,
      now: clock.now(),
      warnings: [],
      fieldValidation: "Warn",
      ...o,
    }),
  };
}

export const WIDGET_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com" },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: {
          status: {},
          scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" },
        },
        additionalPrinterColumns: [{ name: "Replicas", type: "integer", jsonPath: ".spec.replicas" }],
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: {
                  replicas: { type: "integer", minimum: 0, default: 1 },
                  color: { type: "string" },
                },
              },
              status: {
                type: "object",
                properties: { replicas: { type: "integer" }, phase: { type: "string" } },
              },
            },
          },
        },
      },
    ],
  },
};
