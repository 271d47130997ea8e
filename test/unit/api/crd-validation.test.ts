/**
 * The CRDs as the API server applies them (pruning, defaulting, OpenAPI + CEL validation, via
 * the same schema module the embedded server uses): the examples are valid, malformed
 * PetSets are rejected naming the field, and the CRD defaults equal the controller's.
 * The integration suite repeats the rejections through kubectl on both backends.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { parsePetSet } from "../../../src/api/index.js";
import { validateScaleReplicas } from "../../../src/apiserver-shim/crd/custom-resource.js";
import {
  applyDefaults,
  pruneUnknownFields,
  validateObject,
} from "../../../src/apiserver-shim/schema/index.js";
import type { KubeObject } from "../../../src/apiserver-shim/types.js";

type Obj = Record<string, unknown>;
const crd = parse(readFileSync("crds/petsets.petset.dev.yaml", "utf8")) as {
  spec: { versions: { schema: { openAPIV3Schema: Obj } }[] };
};
const schema = crd.spec.versions[0]?.schema.openAPIV3Schema ?? {};

function admit(obj: Obj, old?: Obj): { obj: Obj; errors: string[] } {
  const copy = structuredClone(obj);
  pruneUnknownFields(schema, copy);
  applyDefaults(schema, copy);
  return { obj: copy, errors: validateObject(schema, copy, old).map((e) => e.message) };
}

const base = (): Obj => ({
  apiVersion: "petset.dev/v1alpha1",
  kind: "PetSet",
  metadata: { name: "web", namespace: "default" },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: "web" } },
    template: {
      metadata: { labels: { app: "web" } },
      spec: { containers: [{ name: "nginx", image: "nginx:1.27" }] },
    },
  },
});

function withSpec(
  mutate: (spec: Obj & { template: { spec: { containers: Obj[] }; metadata: Obj } }) => void,
): Obj {
  const ps = base();
  mutate(ps.spec as Obj & { template: { spec: { containers: Obj[] }; metadata: Obj } });
  return ps;
}

describe("examples/", () => {
  const docs = readdirSync("examples")
    .filter((f) => f.endsWith(".yaml"))
    .flatMap((f) =>
      parseAllDocuments(readFileSync(`examples/${f}`, "utf8")).map((d) => [f, d.toJS() as Obj] as const),
    )
    .filter(([, o]) => o.kind === "PetSet");

  it("has PetSets to check", () => expect(docs.length).toBeGreaterThanOrEqual(3));

  it.each(docs.map(([f, o]) => [`${f}: ${(o.metadata as Obj).name}`, o] as const))("%s is valid", (_n, o) => {
    expect(admit(o).errors).toEqual([]);
  });
});

describe("malformed PetSets are rejected, naming the field", () => {
  const cases: [string, Obj, string][] = [
    [
      "selector not matching labels",
      withSpec((s) => (s.selector = { matchLabels: { app: "db" } })),
      "spec.template.metadata.labels",
    ],
    [
      "matchExpressions In not satisfied",
      withSpec((s) => (s.selector = { matchExpressions: [{ key: "app", operator: "In", values: ["db"] }] })),
      "spec.template.metadata.labels",
    ],
    ["empty selector", withSpec((s) => (s.selector = {})), "spec.selector"],
    ["missing selector", withSpec((s) => delete s.selector), "spec.selector"],
    ["missing template", withSpec((s) => delete (s as Obj).template), "spec.template"],
    [
      "maxUnavailable 0",
      withSpec((s) => (s.updateStrategy = { rollingUpdate: { maxUnavailable: 0 } })),
      "spec.updateStrategy.rollingUpdate.maxUnavailable",
    ],
    [
      "maxUnavailable 0%",
      withSpec((s) => (s.updateStrategy = { rollingUpdate: { maxUnavailable: "0%" } })),
      "spec.updateStrategy.rollingUpdate.maxUnavailable",
    ],
    [
      "maxUnavailable not a percent",
      withSpec((s) => (s.updateStrategy = { rollingUpdate: { maxUnavailable: "half" } })),
      "spec.updateStrategy.rollingUpdate.maxUnavailable",
    ],
    [
      "a step with both pets and pause",
      withSpec((s) => (s.updateStrategy = { rollingUpdate: { steps: [{ pets: 1, pause: {} }] } })),
      "spec.updateStrategy.rollingUpdate.steps[0]",
    ],
    [
      "an empty step",
      withSpec((s) => (s.updateStrategy = { rollingUpdate: { steps: [{}] } })),
      "spec.updateStrategy.rollingUpdate.steps[0]",
    ],
    [
      "a pause duration without a unit",
      withSpec((s) => (s.updateStrategy = { rollingUpdate: { steps: [{ pause: { duration: "10" } }] } })),
      "spec.updateStrategy.rollingUpdate.steps[0].pause.duration",
    ],
    [
      "pets not a percent",
      withSpec((s) => (s.updateStrategy = { rollingUpdate: { steps: [{ pets: "half" }] } })),
      "spec.updateStrategy.rollingUpdate.steps[0].pets",
    ],
    [
      "negative pets",
      withSpec((s) => (s.updateStrategy = { rollingUpdate: { steps: [{ pets: -1 }] } })),
      "spec.updateStrategy.rollingUpdate.steps[0].pets",
    ],
    [
      "more than 20 steps",
      withSpec(
        (s) =>
          (s.updateStrategy = {
            rollingUpdate: { steps: Array.from({ length: 21 }, () => ({ pause: {} })) },
          }),
      ),
      "spec.updateStrategy.rollingUpdate.steps",
    ],
    [
      "steps with pauseAfterEachPet",
      withSpec(
        (s) => (s.updateStrategy = { rollingUpdate: { steps: [{ pets: 1 }], pauseAfterEachPet: true } }),
      ),
      "spec.updateStrategy.rollingUpdate.pauseAfterEachPet",
    ],
    [
      "negative partition",
      withSpec((s) => (s.updateStrategy = { rollingUpdate: { partition: -2 } })),
      "spec.updateStrategy.rollingUpdate.partition",
    ],
    [
      "unknown update strategy",
      withSpec((s) => (s.updateStrategy = { type: "Sometimes" })),
      "spec.updateStrategy.type",
    ],
    [
      "unknown pod management policy",
      withSpec((s) => (s.podManagementPolicy = "Random")),
      "spec.podManagementPolicy",
    ],
    [
      "unknown podUpdatePolicy",
      withSpec((s) => (s.updateStrategy = { rollingUpdate: { podUpdatePolicy: "Magic" } })),
      "spec.updateStrategy.rollingUpdate.podUpdatePolicy",
    ],
    [
      "container without a name",
      withSpec((s) => delete s.template.spec.containers[0]?.name),
      "spec.template.spec.containers[0].name",
    ],
    ["replicas as a string", withSpec((s) => (s.replicas = "three")), "spec.replicas"],
    ["negative ordinals.start", withSpec((s) => (s.ordinals = { start: -1 })), "spec.ordinals.start"],
    [
      "bad resource quantity",
      withSpec((s) => {
        const c = s.template.spec.containers[0];
        if (c) c.resources = { limits: { cpu: "lots" } };
      }),
      "spec.template.spec.containers[0].resources.limits.cpu",
    ],
    [
      "unknown retention policy",
      withSpec((s) => (s.persistentVolumeClaimRetentionPolicy = { whenScaled: "Keep" })),
      "spec.persistentVolumeClaimRetentionPolicy.whenScaled",
    ],
    [
      "name too long for pod names",
      { ...base(), metadata: { name: "a".repeat(53), namespace: "default" } },
      "metadata.name",
    ],
  ];

  it.each(cases)("%s", (_name, obj, field) => {
    const { errors } = admit(obj);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.some((e) => e.startsWith(field))).toBe(true);
  });

  // The schema leaves replicas' bounds to the scale subresource (specReplicasPath), which the
  // API server checks anyway: a schema bound too reported the one field twice.
  it("issue 31 item 4: a negative replicas gets one message, from the scale subresource check", () => {
    const obj = withSpec((s) => (s.replicas = -1));
    const scale = (crd.spec.versions[0] as { subresources?: { scale?: { specReplicasPath?: string } } })
      .subresources?.scale?.specReplicasPath;
    const errors = [
      ...admit(obj).errors,
      ...validateScaleReplicas(obj as unknown as KubeObject, scale).map((e) => e.message),
    ];
    expect(errors).toEqual([".spec.replicas: Invalid value: -1: should be a non-negative integer"]);
  });

  it("the selector cannot change after creation", () => {
    const old = admit(base()).obj;
    const changed = withSpec((s) => {
      s.selector = { matchLabels: { app: "web", tier: "front" } };
      s.template.metadata.labels = { app: "web", tier: "front" };
    });
    expect(admit(changed, old).errors.some((e) => e.startsWith("spec.selector"))).toBe(true);
  });
});

describe("CRD defaults and controller defaults are the same", () => {
  const inputs: [string, Obj][] = [
    ["minimal", base()],
    ["rollingUpdate present", withSpec((s) => (s.updateStrategy = { rollingUpdate: {} }))],
    ["OnDelete", withSpec((s) => (s.updateStrategy = { type: "OnDelete" }))],
    [
      "partial retention",
      withSpec((s) => (s.persistentVolumeClaimRetentionPolicy = { whenDeleted: "Delete" })),
    ],
    ["ordinals present", withSpec((s) => (s.ordinals = {}))],
  ];

  it.each(inputs)("%s", (_name, obj) => {
    const byServer = admit(obj).obj;
    const byController = parsePetSet(obj);
    // The controller's defaults add nothing the server did not, and vice versa.
    expect(byController.spec).toEqual(parsePetSet(byServer).spec);
    expect(parsePetSet(byServer).spec).toEqual(byServer.spec);
  });
});
