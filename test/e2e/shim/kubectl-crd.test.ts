import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { eventually, type ShimHarness, startHarness, WIDGET_CRD } from "./harness.js";

const WIDGET = (replicas: number, color = "red") => `apiVersion: example.com/v1
kind: Widget
metadata: {name: w1, labels: {app: w}}
spec: {replicas: ${replicas}, color: ${color}}
`;

describe("kubectl against the shim: CRDs and custom resources", () => {
  let h: ShimHarness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it("serves a CRD as soon as it is established", async () => {
    expect((await h.kubectl(["apply", "-f", "-"], WIDGET_CRD)).stdout).toContain(
      "customresourcedefinition.apiextensions.k8s.io/widgets.example.com created",
    );
    const wait = await h.kubectl([
      "wait",
      "--for",
      "condition=established",
      "crd/widgets.example.com",
      "--timeout=10s",
    ]);
    expect(wait.stdout).toContain("condition met");
    const res = await h.kubectl(["api-resources", "--api-group=example.com"]);
    expect(res.stdout).toMatch(/widgets\s+wd\s+example.com\/v1\s+true\s+Widget/);
  });

  it("applies a CR client-side and server-side, with printer columns", async () => {
    expect((await h.kubectl(["apply", "-f", "-"], WIDGET(2))).stdout).toContain(
      "widget.example.com/w1 created",
    );
    expect((await h.kubectl(["apply", "-f", "-"], WIDGET(2))).stdout).toContain(
      "widget.example.com/w1 unchanged",
    );
    // As in kube: the first server-side apply after client-side ones co-owns equal values and
    // kubectl then migrates ownership; changed values would conflict before that.
    expect((await h.kubectl(["apply", "--server-side", "-f", "-"], WIDGET(2))).stdout).toContain(
      "serverside-applied",
    );
    expect((await h.kubectl(["apply", "--server-side", "-f", "-"], WIDGET(3, "blue"))).stdout).toContain(
      "serverside-applied",
    );
    const table = await h.kubectl(["get", "widgets"]);
    expect(table.stdout).toMatch(/^NAME\s+REPLICAS\s+PHASE\s+AGE\nw1\s+3\s+\d+s\n$/);
    const obj = parse((await h.kubectl(["get", "wd", "w1", "-o", "yaml"])).stdout);
    expect(obj.spec).toEqual({ replicas: 3, color: "blue" });
    expect(obj.metadata.generation).toBe(2);
  });

  it("rejects strategic merge patch for custom resources with 415", async () => {
    const r = await h.kubectl(["patch", "wd", "w1", "--type=strategic", "-p", '{"spec":{"color":"green"}}']);
    expect(r.stderr).toContain(
      "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
    );
  });

  it("scales through the scale subresource", async () => {
    expect((await h.kubectl(["scale", "widget", "w1", "--replicas=5"])).stdout).toContain(
      "widget.example.com/w1 scaled",
    );
    expect((await h.kubectl(["get", "wd", "w1", "-o", "jsonpath={.spec.replicas}"])).stdout).toBe("5");
  });

  it("keeps status out of main-resource writes and spec out of status writes", async () => {
    await h.kubectl(["patch", "wd", "w1", "--type=merge", "-p", '{"status":{"phase":"Ignored"}}']);
    expect((await h.kubectl(["get", "wd", "w1", "-o", "jsonpath={.status.phase}"])).stdout).toBe("");
    const gen = (await h.kubectl(["get", "wd", "w1", "-o", "jsonpath={.metadata.generation}"])).stdout;
    const st = await h.kubectl([
      "patch",
      "wd",
      "w1",
      "--subresource=status",
      "--type=merge",
      "-p",
      '{"spec":{"replicas":9},"status":{"phase":"Running","replicas":5,"selector":"app=w","conditions":[{"type":"Ready","status":"True"}]}}',
    ]);
    expect(st.code).toBe(0);
    const obj = parse((await h.kubectl(["get", "wd", "w1", "-o", "yaml"])).stdout);
    expect(obj.status.phase).toBe("Running");
    expect(obj.spec.replicas).toBe(5);
    expect(String(obj.metadata.generation)).toBe(gen);
    const wait = await h.kubectl(["wait", "--for=condition=Ready", "widget/w1", "--timeout=10s"]);
    expect(wait.stdout).toContain("condition met");
    expect((await h.kubectl(["get", "wd"])).stdout).toMatch(/w1\s+5\s+Running/);
  });

  it("explains the CRD schema", async () => {
    const r = await h.kubectl(["explain", "widgets.spec"]);
    expect(r.stdout).toContain("KIND:       Widget");
    expect(r.stdout).toMatch(/replicas\s+<integer>/);
  });

  it("deletes the CR's dependents in the background and the CRs with the CRD", async () => {
    const owner = parse((await h.kubectl(["get", "wd", "w1", "-o", "yaml"])).stdout);
    const dep = `apiVersion: v1
kind: ConfigMap
metadata:
  name: w1-config
  ownerReferences: [{apiVersion: example.com/v1, kind: Widget, name: w1, uid: ${owner.metadata.uid}}]
`;
    await h.kubectl(["apply", "-f", "-"], dep);
    expect((await h.kubectl(["delete", "wd", "w1"])).stdout).toContain('widget.example.com "w1" deleted');
    await eventually(
      async () => (await h.kubectl(["get", "cm", "w1-config"])).stderr.includes("not found"),
      10_000,
      "GC of w1-config",
    );
    await h.kubectl(["apply", "-f", "-"], WIDGET(1));
    expect((await h.kubectl(["delete", "crd", "widgets.example.com"])).code).toBe(0);
    await eventually(
      async () => (await h.kubectl(["get", "crd", "widgets.example.com"])).stderr.includes("not found"),
      10_000,
      "CRD removal",
    );
    const r = await h.kubectl(["get", "--raw", "/apis/example.com/v1/namespaces/default/widgets"]);
    expect(r.stderr).toContain("NotFound");
  });
});
