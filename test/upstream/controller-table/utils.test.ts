/**
 * Upstream's pure helper tables (stateful_set_utils_test.go) whose petset counterpart is a
 * public planner function: TestGetStatefulSetMaxUnavailable (percent rounds down, never below
 * one; nil is the default 1).
 */
import { describe, expect, it } from "vitest";
import { resolveMaxUnavailable } from "../../../src/controller/planner/index.js";

describe("TestGetStatefulSetMaxUnavailable", () => {
  const cases: [number | string, number, number][] = [
    [1, 10, 1], // nil: petset's default is 1
    [3, 10, 3],
    [3, 0, 3],
    [0, 0, 1],
    ["10%", 25, 2],
    ["100%", 5, 5],
    ["50%", 5, 2],
    ["10%", 5, 1],
    ["1%", 0, 1],
    ["0%", 0, 1],
  ];
  cases.forEach(([value, replicas, expected], i) => {
    it(`TestGetStatefulSetMaxUnavailable/case ${i}`, () => {
      expect(resolveMaxUnavailable(value, replicas)).toBe(expected);
    });
  });
});
