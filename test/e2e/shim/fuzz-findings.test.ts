/**
 * Findings of the fuzz campaign (docs/reliability.md, "Fuzzed input"), each pinned by a
 * named test: what kube-apiserver answers, the embedded server now answers too. The HTTP fuzz
 * slice is in http-fuzz.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ShimHarness, startHarness, WIDGET_CRD } from "./harness.js";

const CMS = "/api/v1/namespaces/default/configmaps";
const WIDGETS = "/apis/example.com/v1/namespaces/default/widgets";

describe("fuzz findings, fixed in the embedded server", () => {
  let h: ShimHarness;
  const post = (path: string, body: unknown, contentType = "application/json") =>
    h.fetch(`${h.server.url}${path}`, {
      method: "POST",
      headers: { "Content-Type": contentType },
      body: typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body),
    });
  beforeAll(async () => {
    h = await startHarness();
    await h.kubectl(["apply", "-f", "-"], WIDGET_CRD);
    await h.kubectl(["wait", "--for", "condition=established", "crd/widgets.example.com", "--timeout=10s"]);
  });
  afterAll(async () => {
    await h.close();
  });

  it("refuses unknown metadata fields of a custom resource under fieldValidation=Strict (400, field named)", async () => {
    const res = await post(`${WIDGETS}?fieldValidation=Strict`, {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w-meta", bogus: "x" },
      spec: { replicas: 1 },
    });
    expect(res.status).toBe(400);
    const status = (await res.json()) as { reason: string; message: string };
    expect(status.reason).toBe("BadRequest");
    expect(status.message).toContain('unknown field "metadata.bogus"');
  });

  it("refuses annotations over 256 KiB in total (422 on metadata.annotations)", async () => {
    const res = await post(CMS, {
      metadata: { name: "big-annotations", annotations: { "example.com/blob": "a".repeat(257 * 1024) } },
    });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { message: string }).message).toContain(
      "metadata.annotations: Too long: may not be more than 262144 bytes",
    );
  });

  it("answers 413 to a body over 3 MiB and closes that connection, so a keep-alive client's next request succeeds", async () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 1, 0x20);
    const first = await post(CMS, big);
    expect(first.status).toBe(413);
    expect(first.headers.get("connection")).toBe("close");
    expect(((await first.json()) as { message: string }).message).toBe(
      "Request entity too large: limit is 3145728",
    );
    expect((await post(CMS, { metadata: { name: "after-413" } })).status).toBe(201);
  });

  it("keeps the object when a DELETE carries options kube refuses (dryRun=Bogus 422, gracePeriodSeconds=abc 400)", async () => {
    expect((await post(CMS, { metadata: { name: "victim" } })).status).toBe(201);
    const del = (q: string) => h.fetch(`${h.server.url}${CMS}/victim?${q}`, { method: "DELETE" });
    const dry = await del("dryRun=Bogus");
    expect(dry.status).toBe(422);
    expect(((await dry.json()) as { message: string }).message).toContain(
      'dryRun: Unsupported value: []string{"Bogus"}: supported values: "All"',
    );
    expect((await del("gracePeriodSeconds=abc")).status).toBe(400);
    expect((await del("propagationPolicy=Bogus")).status).toBe(422);
    // The same option in a DeleteOptions body: kube validates the merged options, 422 too.
    const body = await h.fetch(`${h.server.url}${CMS}/victim`, {
      method: "DELETE",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Bogus" }),
    });
    expect(body.status).toBe(422);
    expect(((await body.json()) as { message: string }).message).toContain(
      'propagationPolicy: Unsupported value: "Bogus"',
    );
    expect((await h.fetch(`${h.server.url}${CMS}/victim`)).status).toBe(200);
  });

  it("refuses a create whose fieldValidation or fieldManager kube refuses (422 CreateOptions)", async () => {
    const fv = await post(`${CMS}?fieldValidation=Bogus`, { metadata: { name: "fv" } });
    expect(fv.status).toBe(422);
    expect(((await fv.json()) as { message: string }).message).toContain(
      'CreateOptions.meta.k8s.io "" is invalid',
    );
    expect((await post(`${CMS}?fieldManager=${"m".repeat(129)}`, { metadata: { name: "fm" } })).status).toBe(
      422,
    );
    expect((await post(`${CMS}?fieldManager=%00`, { metadata: { name: "fm" } })).status).toBe(422);
  });

  it("answers 400, not 500, to a truncated protobuf body and to a YAML alias cycle", async () => {
    const truncated = new Uint8Array([0x6b, 0x38, 0x73, 0x00, 0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]);
    expect((await post(CMS, truncated, "application/vnd.kubernetes.protobuf")).status).toBe(400);
    expect((await post(CMS, "a: &x [*x]\n", "application/yaml")).status).toBe(400);
  });
});
