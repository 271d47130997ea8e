import { describe, expect, it } from "vitest";
import { canonicalQuantity } from "../../../src/versions/quantity.js";

describe("canonicalQuantity", () => {
  it.each<[string | number, string]>([
    ["1", "1"],
    [1, "1"],
    ["1000m", "1"],
    ["1.0", "1"],
    ["+1", "1"],
    ["500m", "0.5"],
    [0.5, "0.5"],
    [".5", "0.5"],
    ["0.5", "0.5"],
    ["100m", "0.1"],
    ["1m", "0.001"],
    ["250u", "0.00025"],
    ["1n", "0.000000001"],
    ["1k", "1000"],
    ["1e3", "1000"],
    ["1E3", "1000"],
    ["1e-3", "0.001"],
    [1e21, "1000000000000000000000"],
    ["1M", "1000000"],
    ["1G", "1000000000"],
    ["1E", "1000000000000000000"],
    ["1Ki", "1024"],
    ["1Mi", "1048576"],
    ["1024Mi", "1073741824"],
    ["1Gi", "1073741824"],
    ["1073741824", "1073741824"],
    ["1.5Gi", "1610612736"],
    ["0.5Ki", "512"],
    ["0", "0"],
    ["0m", "0"],
    ["0.000Gi", "0"],
    ["-1", "-1"],
    ["-500m", "-0.5"],
    ["-0", "0"],
  ])("%s -> %s", (input, expected) => {
    expect(canonicalQuantity(input)).toBe(expected);
  });

  it.each(["", "abc", "1e", "1ki", "1 Gi", "1.2.3", "1e1000", "Gi", "--1", "0x10"])(
    "%j is not a quantity",
    (input) => {
      expect(canonicalQuantity(input)).toBeUndefined();
    },
  );

  it("gives every spelling of one amount one form", () => {
    const spellings = ["2", 2, "2000m", "2.0", "0.002k", "2e0", "20e-1", "2000000u"];
    expect(new Set(spellings.map(canonicalQuantity))).toEqual(new Set(["2"]));
  });
});
