/**
 * What the embedded server answers for paths nothing serves, as kube-apiserver 1.33 does
 * (issue 24, conformance allow-list): outside the built-in group-versions (unknown groups and
 * versions, unknown resources of a custom resource group) Go's plain-text 404 page, the
 * not-found handler's `http.NotFound`; inside a built-in group-version a NotFound Status.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ShimHarness, startHarness } from "./harness.js";

let h: ShimHarness;

beforeAll(async () => {
  h = await startHarness();
  const r = await h.kubectl(["apply", "--server-side", "-f", "crds/"]);
  expect(r.code).toBe(0);
});
afterAll(async () => {
  await h?.close();
});

async function get(path: string) {
  const res = await h.fetch(`${h.server.url}${path}`);
  return { status: res.status, type: res.headers.get("content-type"), body: await res.text() };
}

const PAGE = { status: 404, type: "text/plain; charset=utf-8", body: "404 page not found\n" };

describe("issue 24 conformance: 404 answers", () => {
  it("unknown groups, versions and custom resource group resources get Go's 404 page", async () => {
    expect(await get("/apis/nope.example.com/v1")).toEqual(PAGE);
    expect(await get("/apis/nope.example.com")).toEqual(PAGE);
    expect(await get("/apis/petset.dev/v9")).toEqual(PAGE);
    expect(await get("/apis/petset.dev/v1alpha1/namespaces/default/nopes")).toEqual(PAGE);
  });

  it("an unknown resource of a built-in group-version gets a NotFound Status", async () => {
    const r = await get("/api/v1/namespaces/default/nopes");
    expect(r.status).toBe(404);
    expect(JSON.parse(r.body)).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "the server could not find the requested resource",
      reason: "NotFound",
      details: {},
      code: 404,
    });
  });
});
