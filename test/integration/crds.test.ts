/**
 * The CRDs as a user meets them, through the real kubectl, on every backend: they install,
 * `kubectl explain` shows the embedded Kubernetes schema, the examples apply (server dry run),
 * and malformed PetSets are refused with the field named in kubectl's error.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startTestCluster, type TestCluster } from "../support/cluster.js";

let cluster: TestCluster;
let ns: string;

beforeAll(async () => {
  cluster = await startTestCluster();
  ns = await cluster.namespace("crds");
});
afterAll(async () => {
  await cluster?.stop();
});

const petSet = (spec: Record<string, unknown>, name = "web") => ({
  apiVersion: "petset.dev/v1alpha1",
  kind: "PetSet",
  metadata: { name },
  spec: {
    selector: { matchLabels: { app: "web" } },
    template: {
      metadata: { labels: { app: "web" } },
      spec: { containers: [{ name: "nginx", image: "nginx:1.27" }] },
    },
    ...spec,
  },
});

describe("the CRDs", () => {
  it("pass kubectl's client-side validation", async () => {
    const r = await cluster.kubectl(["apply", "--dry-run=client", "-f", "crds/"]);
    expect(r.stdout).toContain("customresourcedefinition.apiextensions.k8s.io/petsets.petset.dev");
    expect(r.stdout).toContain("customresourcedefinition.apiextensions.k8s.io/petsetversions.petset.dev");
  });

  it("let kubectl explain the embedded pod template", async () => {
    const r = await cluster.kubectl(["explain", "petset.spec.template.spec.containers.image"]);
    expect(r.stdout).toContain("FIELD: image <string>");
    expect(r.stdout).toMatch(/Container image name/);
    const psv = await cluster.kubectl(["explain", "petsetversions.spec.rollbackOf"]);
    expect(psv.stdout).toContain("rollbackOf <integer>");
  });

  it("accept the examples (server-side dry run)", async () => {
    const r = await cluster.kubectl(["apply", "-n", ns, "--dry-run=server", "-f", "examples/"]);
    expect(r.stdout).toContain("petset.petset.dev/web created (server dry run)");
    expect(r.stdout).toContain("petset.petset.dev/db created (server dry run)");
    expect(r.stdout).toContain("petset.petset.dev/workers created (server dry run)");
  });

  it("fill in the documented defaults", async () => {
    await cluster.kubectl(["apply", "-n", ns, "-f", "-"], {
      input: stringify(petSet({ replicas: 0 }, "defaults")),
    });
    const r = await cluster.kubectl(["get", "-n", ns, "petset", "defaults", "-o", "jsonpath={.spec}"]);
    const spec = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(spec).toMatchObject({
      podManagementPolicy: "OrderedReady",
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      paused: false,
      autoRollback: false,
      ordinals: { start: 0 },
      updateStrategy: { type: "RollingUpdate" },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain" },
    });
  });

  const malformed: [string, Record<string, unknown>, string][] = [
    [
      "selector not matching the template",
      { selector: { matchLabels: { app: "db" } } },
      "spec.template.metadata.labels",
    ],
    [
      "maxUnavailable 0",
      { updateStrategy: { rollingUpdate: { maxUnavailable: 0 } } },
      "spec.updateStrategy.rollingUpdate.maxUnavailable",
    ],
    ["negative replicas", { replicas: -1 }, "spec.replicas"],
    ["unknown update strategy", { updateStrategy: { type: "Sometimes" } }, "spec.updateStrategy.type"],
    ["unknown pod management policy", { podManagementPolicy: "Random" }, "spec.podManagementPolicy"],
    [
      "container without an image name",
      { template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ image: "nginx" }] } } },
      "spec.template.spec.containers[0].name",
    ],
  ];

  it.each(malformed)("refuse %s, naming the field", async (_name, spec, field) => {
    const r = await cluster.kubectl(["apply", "-n", ns, "--dry-run=server", "-f", "-"], {
      input: stringify(petSet(spec, "bad")),
      allowFail: true,
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('The PetSet "bad" is invalid');
    expect(r.stderr).toContain(field);
  });
});
