import { describe, expect, it } from "vitest";
import { age, humanDuration } from "../../../src/cli/plugin/format-age.js";
import { cell, formatTable } from "../../../src/cli/plugin/format-table.js";

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

describe("humanDuration (kubectl AGE buckets)", () => {
  it.each([
    [-5 * s, "<invalid>"],
    [-500, "0s"],
    [0, "0s"],
    [59 * s, "59s"],
    [119 * s, "119s"],
    [2 * m, "2m"],
    [2 * m + 30 * s, "2m30s"],
    [9 * m + 59 * s, "9m59s"],
    [10 * m + 30 * s, "10m"],
    [179 * m, "179m"],
    [3 * h, "3h"],
    [7 * h + 59 * m, "7h59m"],
    [8 * h + 30 * m, "8h"],
    [47 * h, "47h"],
    [2 * d, "2d"],
    [7 * d + 23 * h, "7d23h"],
    [8 * d, "8d"],
    [729 * d, "729d"],
    [2 * 365 * d, "2y"],
    [3 * 365 * d + 10 * d, "3y10d"],
    [9 * 365 * d + 100 * d, "9y"],
  ])("%i ms -> %s", (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });

  it("reads API timestamps and says <unknown> for none or garbage", () => {
    const now = Date.parse("2025-06-01T12:00:00Z");
    expect(age("2025-06-01T11:00:00Z", now)).toBe("60m");
    expect(age(new Date(now - 5 * s), now)).toBe("5s");
    expect(age(undefined, now)).toBe("<unknown>");
    expect(age("yesterday", now)).toBe("<unknown>");
  });
});

describe("formatTable", () => {
  it("pads every column but the last to its widest cell plus 3 (at least 6), no trailing spaces", () => {
    expect(
      formatTable(
        ["A", "LONGER", "LAST"],
        [
          ["x", "", "tail text"],
          ["wide-cell", "y", ""],
        ],
      ),
    ).toBe(
      `${["A           LONGER   LAST", "x                    tail text", "wide-cell   y"].join("\n")}\n`,
    );
  });

  it("shows <none> for missing values and keeps cells on one line", () => {
    expect([cell(undefined), cell(""), cell(3), cell("two\n  lines")]).toEqual([
      "<none>",
      "<none>",
      "3",
      "two lines",
    ]);
  });
});
