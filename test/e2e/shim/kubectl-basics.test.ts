import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { eventually, type ShimHarness, startHarness } from "./harness.js";

const CM = (value: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: demo
  labels: {app: demo, tier: web}
data:
  key: "${value}"
`;

describe("kubectl against the shim: built-in resources", () => {
  let h: ShimHarness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it("serves discovery (api-resources) and version", async () => {
    const r = await h.kubectl(["api-resources"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^pods\s+po\s+v1\s+true\s+Pod$/m);
    expect(r.stdout).toMatch(/^leases\s+coordination.k8s.io\/v1\s+true\s+Lease$/m);
    expect(r.stdout).toMatch(
      /^customresourcedefinitions\s+crd,crds\s+apiextensions.k8s.io\/v1\s+false\s+CustomResourceDefinition$/m,
    );
    const v = await h.kubectl(["version", "-o", "json"]);
    expect(JSON.parse(v.stdout).serverVersion).toMatchObject({ major: "1", minor: "33" });
  });

  it("has the default namespaces", async () => {
    const r = await h.kubectl(["get", "ns", "-o", "name"]);
    expect(r.stdout.split("\n").filter(Boolean).sort()).toEqual([
      "namespace/default",
      "namespace/kube-node-lease",
      "namespace/kube-public",
      "namespace/kube-system",
    ]);
  });

  it("applies a ConfigMap client-side: created, unchanged, configured", async () => {
    expect((await h.kubectl(["apply", "-f", "-"], CM("1"))).stdout).toContain("configmap/demo created");
    expect((await h.kubectl(["apply", "-f", "-"], CM("1"))).stdout).toContain("configmap/demo unchanged");
    expect((await h.kubectl(["apply", "-f", "-"], CM("2"))).stdout).toContain("configmap/demo configured");
    const got = parse((await h.kubectl(["get", "cm", "demo", "-o", "yaml"])).stdout);
    expect(got.data).toEqual({ key: "2" });
    expect(got.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]).toContain(
      '"key":"2"',
    );
  });

  it("applies server-side, reports conflicts with kube's message, and forces", async () => {
    const mine = await h.kubectl(["apply", "--server-side", "-f", "-"], CM("2"));
    expect(mine.stdout).toContain("configmap/demo serverside-applied");
    const other = await h.kubectl(["apply", "--server-side", "--field-manager=other", "-f", "-"], CM("3"));
    expect(other.code).not.toBe(0);
    expect(other.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl": .data.key');
    const forced = await h.kubectl(
      ["apply", "--server-side", "--field-manager=other", "--force-conflicts", "-f", "-"],
      CM("3"),
    );
    expect(forced.code).toBe(0);
    const got = parse((await h.kubectl(["get", "cm", "demo", "-o", "yaml", "--show-managed-fields"])).stdout);
    expect(got.data.key).toBe("3");
    const managers = got.metadata.managedFields.map(
      (m: { manager: string; operation: string }) => `${m.manager}/${m.operation}`,
    );
    expect(managers).toContain("other/Apply");
  });

  it("prints tables, yaml, and filters by label and field selectors", async () => {
    await h.kubectl(["apply", "-f", "-"], "apiVersion: v1\nkind: Namespace\nmetadata: {name: team-b}\n");
    await h.kubectl(
      ["apply", "-n", "team-b", "-f", "-"],
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other, labels: {app: other}}\ndata: {a: b, c: d}\n",
    );
    const table = await h.kubectl(["get", "cm", "demo"]);
    expect(table.stdout).toMatch(/^NAME\s+DATA\s+AGE\ndemo\s+1\s+\d+s\n$/);
    const all = await h.kubectl(["get", "cm", "-A", "-l", "app in (demo,other)"]);
    expect(all.stdout).toMatch(/NAMESPACE\s+NAME\s+DATA\s+AGE/);
    expect(all.stdout).toMatch(/default\s+demo\s+1/);
    expect(all.stdout).toMatch(/team-b\s+other\s+2/);
    const notDemo = await h.kubectl(["get", "cm", "-A", "-l", "app!=demo,app", "-o", "name"]);
    expect(notDemo.stdout.trim()).toBe("configmap/other");
    const byField = await h.kubectl([
      "get",
      "cm",
      "-A",
      "--field-selector",
      "metadata.namespace=team-b",
      "-o",
      "name",
    ]);
    expect(byField.stdout).toContain("configmap/other");
    expect(byField.stdout).not.toContain("configmap/demo");
    const bad = await h.kubectl(["get", "cm", "--field-selector", "spec.nope=1"]);
    expect(bad.stderr).toContain("field label not supported: spec.nope");
  });

  it("patches with json, merge and strategic merge patches", async () => {
    expect(
      (
        await h.kubectl([
          "patch",
          "cm",
          "demo",
          "--type=json",
          "-p",
          '[{"op":"add","path":"/data/j","value":"1"}]',
        ])
      ).code,
    ).toBe(0);
    expect((await h.kubectl(["patch", "cm", "demo", "--type=merge", "-p", '{"data":{"m":"2"}}'])).code).toBe(
      0,
    );
    expect((await h.kubectl(["patch", "cm", "demo", "-p", '{"data":{"s":"3"}}'])).code).toBe(0);
    const data = JSON.parse((await h.kubectl(["get", "cm", "demo", "-o", "jsonpath={.data}"])).stdout);
    expect(data).toMatchObject({ j: "1", m: "2", s: "3" });
    const pod = `apiVersion: v1
kind: Pod
metadata: {name: p1}
spec:
  containers:
  - {name: a, image: nginx:1.26}
  - {name: b, image: busybox:1.36}
`;
    await h.kubectl(["apply", "-f", "-"], pod);
    const smp = await h.kubectl([
      "patch",
      "pod",
      "p1",
      "-p",
      '{"spec":{"containers":[{"name":"b","image":"busybox:1.37"}]}}',
    ]);
    expect(smp.stderr).toBe("");
    const images = (await h.kubectl(["get", "pod", "p1", "-o", "jsonpath={.spec.containers[*].image}"]))
      .stdout;
    expect(images).toBe("nginx:1.26 busybox:1.37");
    const forbidden = await h.kubectl(["patch", "pod", "p1", "-p", '{"spec":{"restartPolicy":"Never"}}']);
    expect(forbidden.stderr).toContain(
      'The Pod "p1" is invalid: spec: Forbidden: pod updates may not change fields other than',
    );
  });

  it("validates fields strictly (kubectl's default) and drops unknown ones with --validate=warn", async () => {
    const pod =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: strict}\nspec:\n  containers: [{name: a, image: x, bogus: 1}]\n";
    const strict = await h.kubectl(["apply", "-f", "-"], pod);
    expect(strict.stderr).toContain(
      'Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containers[0].bogus"',
    );
    const warn = await h.kubectl(["apply", "--validate=warn", "-f", "-"], pod);
    expect(warn.stderr).toContain('Warning: unknown field "spec.containers[0].bogus"');
    const stored = parse((await h.kubectl(["get", "pod", "strict", "-o", "yaml"])).stdout);
    expect(stored.spec.containers[0].bogus).toBeUndefined();
    await h.kubectl(["delete", "pod", "strict"]);
  });

  it("returns 409 Conflict with kube's message on a stale update", async () => {
    const cm = parse((await h.kubectl(["get", "cm", "demo", "-o", "yaml"])).stdout);
    await h.kubectl(["patch", "cm", "demo", "--type=merge", "-p", '{"data":{"bump":"1"}}']);
    cm.data.stale = "x";
    const path = await h.file("stale.yaml", JSON.stringify(cm));
    const r = await h.kubectl(["replace", "-f", path]);
    expect(r.stderr).toContain(
      'Operation cannot be fulfilled on configmaps "demo": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it("reports NotFound and AlreadyExists like kube", async () => {
    expect((await h.kubectl(["get", "cm", "nope"])).stderr).toContain('configmaps "nope" not found');
    const again = await h.kubectl(["create", "-f", "-"], CM("1"));
    expect(again.stderr).toContain('configmaps "demo" already exists');
    const noNs = await h.kubectl(["apply", "-n", "missing", "-f", "-"], CM("1"));
    expect(noNs.stderr).toContain('namespaces "missing" not found');
  });

  it("accepts kubectl's protobuf bodies for typed creates", async () => {
    for (const args of [
      ["create", "ns", "proto"],
      ["create", "configmap", "pc", "-n", "proto", "--from-literal=a=b"],
      ["create", "secret", "generic", "ps", "-n", "proto", "--from-literal=p=q"],
      ["create", "serviceaccount", "bot", "-n", "proto"],
      ["create", "service", "clusterip", "web", "-n", "proto", "--tcp=80:8080"],
    ]) {
      const r = await h.kubectl(args);
      expect(r.stderr).toBe("");
    }
    expect((await h.kubectl(["get", "cm", "pc", "-n", "proto", "-o", "jsonpath={.data.a}"])).stdout).toBe(
      "b",
    );
    expect((await h.kubectl(["get", "secret", "ps", "-n", "proto", "-o", "jsonpath={.data.p}"])).stdout).toBe(
      "cQ==",
    );
    const svc = parse((await h.kubectl(["get", "svc", "web", "-n", "proto", "-o", "yaml"])).stdout);
    expect(svc.spec.ports).toEqual([{ name: "80-8080", port: 80, protocol: "TCP", targetPort: 8080 }]);
    expect(svc.spec.clusterIP).toMatch(/^10\.96\./);
  });

  it("serves apps/v1 StatefulSets and ControllerRevisions: get, scale, immutability; the embedded controller makes web-0", async () => {
    const sts = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  replicas: 2
  serviceName: web
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: "registry.k8s.io/pause:3.9"}]}
`;
    expect((await h.kubectl(["apply", "-f", "-"], sts)).stdout).toContain("statefulset.apps/web created");
    expect((await h.kubectl(["get", "sts", "web"])).stdout).toMatch(/NAME\s+READY\s+AGE\nweb\s+0\/2\s+\S+/);
    expect((await h.kubectl(["scale", "sts", "web", "--replicas=3"])).stdout).toContain(
      "statefulset.apps/web scaled",
    );
    expect((await h.kubectl(["get", "sts", "web", "-o", "jsonpath={.spec.replicas}"])).stdout).toBe("3");
    // No kubelet here: web-0 stays Pending, so OrderedReady makes no other pod.
    await eventually(async () => {
      const pods = (await h.kubectl(["get", "pods", "-l", "app=web", "-o", "name"])).stdout;
      return pods === "pod/web-0\n" ? pods : undefined;
    });
    const changed = await h.kubectl([
      "patch",
      "sts",
      "web",
      "--type=merge",
      "-p",
      '{"spec":{"serviceName":"other"}}',
    ]);
    expect(changed.stderr).toContain("updates to statefulset spec for fields other than");
    const revision = `apiVersion: apps/v1
kind: ControllerRevision
metadata:
  name: web-1
  ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: web, uid: UID, controller: true}]
data: {spec: {template: {metadata: {labels: {app: web}}}}}
revision: 1
`;
    const uid = (await h.kubectl(["get", "sts", "web", "-o", "jsonpath={.metadata.uid}"])).stdout;
    await h.kubectl(["create", "-f", "-"], revision.replace("UID", uid));
    expect((await h.kubectl(["get", "controllerrevisions"])).stdout).toMatch(
      /NAME\s+CONTROLLER\s+REVISION\s+AGE\n(.*\n)*web-1\s+statefulset.apps\/web\s+1\s+/,
    );
  });

  it("shows pod tables with wide columns", async () => {
    const r = await h.kubectl(["get", "pod", "p1", "-o", "wide"]);
    expect(r.stdout).toMatch(
      /NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES/,
    );
    expect(r.stdout).toMatch(/p1\s+0\/2\s+Pending\s+0\s+\S+\s+<none>\s+<none>/);
  });

  it("deletes with foreground cascading through ownerReferences", async () => {
    const owner = parse((await h.kubectl(["get", "cm", "demo", "-o", "yaml"])).stdout);
    const dep = `apiVersion: v1
kind: ConfigMap
metadata:
  name: dependent
  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: demo, uid: ${owner.metadata.uid}, blockOwnerDeletion: true}]
`;
    await h.kubectl(["apply", "-f", "-"], dep);
    const del = await h.kubectl(["delete", "cm", "demo", "--cascade=foreground"]);
    expect(del.stdout).toContain('configmap "demo" deleted');
    const left = await h.kubectl(["get", "cm", "-o", "name"]);
    expect(left.stdout).not.toContain("configmap/demo");
    expect(left.stdout).not.toContain("configmap/dependent");
  });

  it("deletes a namespace with its contents", async () => {
    expect((await h.kubectl(["delete", "ns", "team-b"])).code).toBe(0);
    const r = await h.kubectl(["get", "ns", "team-b"]);
    expect(r.stderr).toContain('namespaces "team-b" not found');
    expect((await h.kubectl(["delete", "ns", "default"])).stderr).toContain(
      'namespaces "default" is forbidden: this namespace may not be deleted',
    );
  });
});
