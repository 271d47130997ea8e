import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { contentYaml, unifiedDiff, useColor } from "../../../src/cli/plugin/format-diff.js";
import { diffLines } from "../../../src/cli/plugin/line-diff.js";
import { history } from "./fixtures.js";

/** Length of a longest common subsequence, by the textbook table: the oracle for minimality. */
function lcsLength(a: string[], b: string[]): number {
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++)
      table[i]![j] =
        a[i - 1] === b[j - 1] ? table[i - 1]![j - 1]! + 1 : Math.max(table[i - 1]![j]!, table[i]![j - 1]!);
  return table[a.length]![b.length]!;
}

const lines = fc.array(fc.constantFrom("a", "b", "c", "d", "e"), { maxLength: 25 });

describe("diffLines", () => {
  it("rebuilds both sides and keeps a longest common subsequence (property)", () => {
    fc.assert(
      fc.property(lines, lines, (a, b) => {
        const ops = diffLines(a, b);
        expect(ops.filter((o) => o.kind !== "insert").map((o) => o.text)).toEqual(a);
        expect(ops.filter((o) => o.kind !== "delete").map((o) => o.text)).toEqual(b);
        expect(ops.filter((o) => o.kind === "equal")).toHaveLength(lcsLength(a, b));
      }),
    );
  });

  it("puts deletions before insertions within a change", () => {
    expect(diffLines(["x", "old", "y"], ["x", "new", "y"]).map((o) => o.kind)).toEqual([
      "equal",
      "delete",
      "insert",
      "equal",
    ]);
  });

  it.each([
    [[], [], []],
    [["a"], [], ["delete"]],
    [[], ["a"], ["insert"]],
  ])("edge case %j -> %j", (a, b, kinds) => {
    expect(diffLines(a, b).map((o) => o.kind)).toEqual(kinds);
  });
});

describe("unifiedDiff", () => {
  const labels = { fromLabel: "web-v1", toLabel: "web-v2", color: false };
  const ten = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`);

  it("is empty for equal texts", () => {
    expect(unifiedDiff("a\nb\n", "a\nb\n", labels)).toBe("");
  });

  it("prints hunks with 3 lines of context and GNU ranges", () => {
    const changed = [...ten];
    changed[1] = "line two";
    changed[8] = "line nine";
    expect(unifiedDiff(`${ten.join("\n")}\n`, `${changed.join("\n")}\n`, labels)).toBe(
      [
        "--- web-v1",
        "+++ web-v2",
        "@@ -1,10 +1,10 @@",
        " line 1",
        "-line 2",
        "+line two",
        " line 3",
        " line 4",
        " line 5",
        " line 6",
        " line 7",
        " line 8",
        "-line 9",
        "+line nine",
        " line 10",
        "",
      ].join("\n"),
    );
  });

  it("splits far-apart changes into hunks; an insertion at the top has an empty old range", () => {
    const many = Array.from({ length: 20 }, (_, i) => `l${i + 1}`);
    const changed = ["new first", ...many.slice(0, 19), "l20 changed"];
    const text = unifiedDiff(`${many.join("\n")}\n`, `${changed.join("\n")}\n`, labels);
    expect(text.split("\n").filter((l) => l.startsWith("@@"))).toEqual([
      "@@ -1,3 +1,4 @@",
      "@@ -17,4 +18,4 @@",
    ]);
    const bare = unifiedDiff(`${many.join("\n")}\n`, `${changed.join("\n")}\n`, { ...labels, context: 0 });
    expect(bare.split("\n").filter((l) => l.startsWith("@@"))).toEqual(["@@ -0,0 +1 @@", "@@ -20 +21 @@"]);
  });

  it("colors headers, hunks, deletions and insertions with ANSI when asked", () => {
    const text = unifiedDiff("a\n", "b\n", { ...labels, color: true });
    expect(text).toBe(
      "\x1b[1m--- web-v1\x1b[0m\n\x1b[1m+++ web-v2\x1b[0m\n\x1b[36m@@ -1 +1 @@\x1b[0m\n\x1b[31m-a\x1b[0m\n\x1b[32m+b\x1b[0m\n",
    );
  });

  it("diffs two versions' content as sorted YAML (golden)", async () => {
    const [v1, , v3] = history();
    const text = unifiedDiff(contentYaml(v1!.spec), contentYaml(v3!.spec), { ...labels, toLabel: "web-v3" });
    await expect(text).toMatchFileSnapshot("./golden/diff-1-3.txt");
  });
});

describe("useColor", () => {
  it.each([
    ["always", false, undefined, true],
    ["never", true, undefined, false],
    ["auto", true, undefined, true],
    ["auto", false, undefined, false],
    ["auto", true, "1", false],
    ["auto", true, "", true],
  ] as const)("%s, tty=%s, NO_COLOR=%s -> %s", (mode, tty, noColor, expected) => {
    expect(useColor(mode, tty, noColor)).toBe(expected);
  });
});
