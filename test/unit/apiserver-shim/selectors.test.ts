import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/apiserver-shim/errors.js";
import { matchesFields, parseFieldSelector } from "../../../src/apiserver-shim/selectors/field-selector.js";
import {
  formatRequirements,
  labelSelectorRequirements,
  matchesRequirements,
  parseLabelSelector,
} from "../../../src/apiserver-shim/selectors/label-selector.js";

const labels = { app: "web", tier: "front", n: "5" };

describe("label selectors", () => {
  it.each([
    ["app=web", true],
    ["app==web", true],
    ["app!=web", false],
    ["app!=db", true],
    ["missing!=x", true],
    ["app in (web,db)", true],
    ["app notin (web)", false],
    ["app,tier", true],
    ["!app", false],
    ["!missing", true],
    ["app=web, tier in (front)", true],
    ["n>4", true],
    ["n<4", false],
    ["", true],
  ])("%s → %s", (sel, want) => {
    expect(matchesRequirements(parseLabelSelector(sel), labels)).toBe(want);
  });

  it("rejects malformed selectors as BadRequest", () => {
    expect(() => parseLabelSelector("app in (a b)")).toThrow(ApiError);
    expect(() => parseLabelSelector("=x")).toThrow(ApiError);
  });

  it("compiles and formats structured selectors", () => {
    const reqs = labelSelectorRequirements({
      matchLabels: { app: "web" },
      matchExpressions: [{ key: "tier", operator: "In", values: ["b", "a"] }],
    });
    expect(formatRequirements(reqs)).toBe("app=web,tier in (a,b)");
    expect(matchesRequirements(reqs, { app: "web", tier: "a" })).toBe(true);
  });
});

describe("field selectors", () => {
  it("matches =, == and != terms", () => {
    const f = { "metadata.name": "a", "spec.nodeName": "" };
    expect(matchesFields(parseFieldSelector("metadata.name=a"), f)).toBe(true);
    expect(matchesFields(parseFieldSelector("metadata.name==b"), f)).toBe(false);
    expect(matchesFields(parseFieldSelector("spec.nodeName="), f)).toBe(true);
    expect(matchesFields(parseFieldSelector("spec.nodeName!=,metadata.name=a"), f)).toBe(false);
  });
});
