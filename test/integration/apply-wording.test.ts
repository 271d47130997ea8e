/**
 * `kubectl apply` of an unchanged manifest says `unchanged`, as it does for a StatefulSet:
 * CI pipelines and people read that word. Real kubectl against the test backend; no
 * controller is needed (the wording is the API server's and kubectl's business), so nothing
 * else writes to the objects between applies.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startTestCluster, type TestCluster } from "../support/cluster.js";

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster();
});
afterAll(async () => {
  await cluster?.stop();
});

/**
 * A Service and a PetSet as users write them: ports without `protocol`, init containers,
 * probes, env, resources, pull secrets and a claim template, so every list the schema
 * could default into is there.
 */
function manifests(name: string, image: string): string {
  const service = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, labels: { app: name } },
    spec: { clusterIP: "None", selector: { app: name }, ports: [{ name: "http", port: 80 }] },
  };
  const petSet = {
    apiVersion: "petset.dev/v1alpha1",
    kind: "PetSet",
    metadata: { name, annotations: { "kubernetes.io/change-cause": "first deploy" } },
    spec: {
      replicas: 2,
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          imagePullSecrets: [{ name: "registry" }],
          initContainers: [{ name: "init", image: "busybox:1.36", ports: [{ containerPort: 9000 }] }],
          containers: [
            {
              name: "app",
              image,
              ports: [
                { name: "http", containerPort: 80 },
                { name: "dns", containerPort: 53, protocol: "UDP" },
              ],
              env: [{ name: "MODE", value: "primary" }],
              resources: { requests: { cpu: "100m", memory: "64Mi" } },
              readinessProbe: { httpGet: { path: "/", port: 80 } },
              volumeMounts: [{ name: "www", mountPath: "/usr/share/nginx/html" }],
            },
          ],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: "www" },
          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
        },
      ],
    },
  };
  return `${stringify(service)}---\n${stringify(petSet)}`;
}

describe("kubectl apply of an unchanged manifest", () => {
  it("client-side: `unchanged` for the Service and the PetSet, and kubectl diff is empty", async () => {
    const ns = await cluster.namespace("apply-csa");
    const text = manifests("web", "nginx:1.27");
    const apply = () => cluster.kubectl(["apply", "-n", ns, "-f", "-"], { input: text });
    expect((await apply()).stdout).toBe("service/web created\npetset.petset.dev/web created\n");
    const before = await cluster.kubectl([
      "get",
      "-n",
      ns,
      "petset/web",
      "-o",
      "jsonpath={.metadata.resourceVersion}",
    ]);
    expect((await apply()).stdout).toBe("service/web unchanged\npetset.petset.dev/web unchanged\n");
    expect((await apply()).stdout).toBe("service/web unchanged\npetset.petset.dev/web unchanged\n");
    const after = await cluster.kubectl([
      "get",
      "-n",
      ns,
      "petset/web",
      "-o",
      "jsonpath={.metadata.resourceVersion}",
    ]);
    expect(after.stdout).toBe(before.stdout);
    expect(
      await cluster.kubectl(["diff", "-n", ns, "-f", "-"], { input: text, allowFail: true }),
    ).toMatchObject({
      code: 0,
      stdout: "",
    });

    // A real change is still `configured`, and only the PetSet's.
    const changed = manifests("web", "nginx:1.28");
    expect((await cluster.kubectl(["apply", "-n", ns, "-f", "-"], { input: changed })).stdout).toBe(
      "service/web unchanged\npetset.petset.dev/web configured\n",
    );
  });

  it("server-side: a repeated apply stores nothing new and kubectl diff --server-side is empty", async () => {
    const ns = await cluster.namespace("apply-ssa");
    const text = manifests("db", "postgres:16");
    const apply = () => cluster.kubectl(["apply", "--server-side", "-n", ns, "-f", "-"], { input: text });
    expect((await apply()).stdout).toBe(
      "service/db serverside-applied\npetset.petset.dev/db serverside-applied\n",
    );
    const rv = () =>
      cluster.kubectl([
        "get",
        "-n",
        ns,
        "petset/db",
        "service/db",
        "-o",
        "jsonpath={.items[*].metadata.resourceVersion}",
      ]);
    const before = (await rv()).stdout;
    await apply();
    expect((await rv()).stdout).toBe(before);
    expect(
      await cluster.kubectl(["diff", "--server-side", "-n", ns, "-f", "-"], { input: text, allowFail: true }),
    ).toMatchObject({ code: 0, stdout: "" });
    // Client-side diff against the server-side applied objects is clean too.
    expect(
      await cluster.kubectl(["diff", "-n", ns, "-f", "-"], { input: text, allowFail: true }),
    ).toMatchObject({
      code: 0,
      stdout: "",
    });
  });
});
