import jsonPatch from "fast-json-patch";
import { describe, expect, it } from "vitest";
import { Annotations } from "../../../src/api/index.js";
import type { VersionContent } from "../../../src/versions/content.js";
import { changeCause, changedBy, delta, MAX_DERIVED_CAUSE } from "../../../src/versions/describe.js";
import { content, petSet } from "./fixtures.js";

describe("delta", () => {
  it("is empty for a first version", () => {
    expect(delta(undefined, content()).patch).toEqual([]);
  });

  it("diffs the raw content, as written", () => {
    const prev = content("nginx:1.26");
    const next = content("nginx:1.27", { imagePullPolicy: "IfNotPresent" });
    expect(delta(prev, next).patch).toEqual([
      { op: "replace", path: "/template/spec/containers/0/image", value: "nginx:1.27" },
      { op: "add", path: "/template/spec/containers/0/imagePullPolicy", value: "IfNotPresent" },
    ]);
  });

  it.each<[string, VersionContent, VersionContent]>([
    ["image", content("a:1"), content("a:2")],
    [
      "env added and removed",
      content("a", { env: [{ name: "A", value: "1" }] }),
      content("a", { env: [{ name: "B" }] }),
    ],
    [
      "claim template added",
      content(),
      { ...content(), volumeClaimTemplates: [{ metadata: { name: "data" }, spec: {} }] },
    ],
    ["undefined fields", content("a", { command: undefined }), content("a", { args: ["x"] })],
  ])("applied to the previous content gives the next: %s", (_name, prev, next) => {
    const applied = jsonPatch.applyPatch(
      structuredClone(JSON.parse(JSON.stringify(prev))),
      delta(prev, next).patch as jsonPatch.Operation[],
    ).newDocument;
    expect(applied).toEqual(JSON.parse(JSON.stringify(next)));
  });

  it("keeps both ends for describing the change", () => {
    const [prev, next] = [content("a:1"), content("a:2")];
    expect(delta(prev, next)).toMatchObject({ from: prev, to: next });
  });
});

describe("changeCause", () => {
  const withCause = (cause: string) => petSet({ annotations: { [Annotations.changeCause]: cause } });
  const change = delta(content("nginx:1.26"), content("nginx:1.27"));

  it.each<[string, string, ReturnType<typeof delta>, string | undefined, string]>([
    ["annotation wins", "deploy #42", change, undefined, "deploy #42"],
    ["annotation trimmed", "  deploy #42 \n", change, undefined, "deploy #42"],
    [
      "annotation on a first version",
      "initial import",
      delta(undefined, content()),
      undefined,
      "initial import",
    ],
    [
      "stale annotation is not repeated",
      "deploy #42",
      change,
      "deploy #42",
      "image app: nginx:1.26 -> nginx:1.27",
    ],
    ["a new annotation is taken", "deploy #43", change, "deploy #42", "deploy #43"],
    ["blank annotation is ignored", "  ", change, undefined, "image app: nginx:1.26 -> nginx:1.27"],
  ])("%s", (_name, annotation, d, previous, expected) => {
    expect(changeCause(withCause(annotation), d, previous)).toBe(expected);
  });

  it("says initial version for the first version", () => {
    expect(changeCause(petSet(), delta(undefined, content()))).toBe("initial version");
  });

  it("joins the summary items with '; '", () => {
    const d = delta(
      content("a:1", { env: [{ name: "A", value: "1" }] }),
      content("a:2", { env: [{ name: "B", value: "2" }] }),
    );
    expect(changeCause(petSet(), d)).toBe("image app: a:1 -> a:2; env app: +B, -A");
  });

  it("truncates a long summary", () => {
    const env = (prefix: string) =>
      Array.from({ length: 60 }, (_, i) => ({ name: `${prefix}_VARIABLE_${i}`, value: "x" }));
    const cause = changeCause(
      petSet(),
      delta(content("a", { env: env("OLD") }), content("a", { env: env("NEW") })),
    );
    expect(cause.length).toBe(MAX_DERIVED_CAUSE);
    expect(cause.endsWith("...")).toBe(true);
  });

  it("falls back to the changed paths when no summary rule applies", () => {
    const from: VersionContent = {
      template: { spec: { containers: [] }, extra: 1 },
      volumeClaimTemplates: [],
    };
    const to: VersionContent = { template: { spec: { containers: [] }, extra: 2 }, volumeClaimTemplates: [] };
    expect(changeCause(petSet(), delta(from, to))).toBe("changed /template/extra");
  });
});

describe("changedBy", () => {
  const entry = (
    manager: string,
    time: string | undefined,
    fieldsV1: unknown,
    extra: Record<string, unknown> = {},
  ) => ({
    manager,
    operation: "Update",
    fieldsType: "FieldsV1",
    ...(time ? { time } : {}),
    fieldsV1,
    ...extra,
  });
  const template = { "f:spec": { "f:template": { "f:spec": { "f:containers": {} } } } };
  const claims = { "f:spec": { "f:volumeClaimTemplates": {} } };
  const replicas = { "f:spec": { "f:replicas": {} } };

  it.each<[string, unknown[], string | undefined]>([
    ["no managedFields", [], undefined],
    ["the template's manager", [entry("kubectl", "2025-01-01T00:00:00Z", template)], "kubectl"],
    ["volumeClaimTemplates count", [entry("helm", "2025-01-01T00:00:00Z", claims)], "helm"],
    [
      "latest time wins, not array order",
      [entry("argocd", "2025-03-01T00:00:00Z", template), entry("kubectl", "2025-02-01T00:00:00Z", template)],
      "argocd",
    ],
    [
      "a manager that only touched replicas is ignored",
      [entry("kubectl", "2025-01-01T00:00:00Z", template), entry("hpa", "2025-05-01T00:00:00Z", replicas)],
      "kubectl",
    ],
    [
      "status subresource entries are ignored",
      [
        entry("kubectl", "2025-01-01T00:00:00Z", template),
        entry("petset-controller", "2025-05-01T00:00:00Z", template, { subresource: "status" }),
      ],
      "kubectl",
    ],
    [
      "an entry with a time beats one without",
      [entry("kubectl", "2025-01-01T00:00:00Z", template), entry("mystery", undefined, template)],
      "kubectl",
    ],
    [
      "without times, the last entry wins",
      [entry("a", undefined, template), entry("b", undefined, template)],
      "b",
    ],
    [
      "malformed entries are skipped",
      [{ manager: 7 }, { fieldsV1: template }, entry("ok", undefined, template)],
      "ok",
    ],
  ])("%s", (_name, managedFields, expected) => {
    const ps = petSet({ metadata: { managedFields } });
    expect(changedBy(ps)).toBe(expected);
  });
});
