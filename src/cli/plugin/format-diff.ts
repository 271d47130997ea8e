import { stringify } from "yaml";
import type { VersionContent } from "../../versions/content.js";
import { type DiffOp, diffLines } from "./line-diff.js";

/** Lines of context around each change, as `diff -u`. */
export const DIFF_CONTEXT = 3;

/**
 * The versioned content of a version as YAML: `template` and `volumeClaimTemplates`, keys
 * sorted so that two versions written by different tools (kubectl, server-side apply,
 * a GitOps controller) differ only where their values do.
 */
export function contentYaml({ template, volumeClaimTemplates }: VersionContent): string {
  const content = { template, volumeClaimTemplates };
  return stringify(JSON.parse(JSON.stringify(content)), {
    sortMapEntries: true,
    indentSeq: false,
    lineWidth: 0,
  });
}

export interface UnifiedDiffOptions {
  readonly fromLabel: string;
  readonly toLabel: string;
  readonly color: boolean;
  readonly context?: number;
}

/** A unified diff of two texts; empty when they are equal. */
export function unifiedDiff(from: string, to: string, options: UnifiedDiffOptions): string {
  const ops = diffLines(splitLines(from), splitLines(to));
  if (ops.every((op) => op.kind === "equal")) return "";
  const paint = options.color ? ansi : plain;
  const lines = [paint.header(`--- ${options.fromLabel}`), paint.header(`+++ ${options.toLabel}`)];
  for (const hunk of hunks(ops, options.context ?? DIFF_CONTEXT)) {
    lines.push(
      paint.hunk(`@@ -${range(hunk.fromStart, hunk.fromCount)} +${range(hunk.toStart, hunk.toCount)} @@`),
    );
    for (const op of hunk.ops) {
      if (op.kind === "equal") lines.push(` ${op.text}`);
      else if (op.kind === "delete") lines.push(paint.deleted(`-${op.text}`));
      else lines.push(paint.inserted(`+${op.text}`));
    }
  }
  return `${lines.join("\n")}\n`;
}

interface Hunk {
  fromStart: number;
  fromCount: number;
  toStart: number;
  toCount: number;
  ops: DiffOp[];
}

/** Groups changes with `context` equal lines around them; changes closer than 2×context share a hunk. */
function hunks(ops: readonly DiffOp[], context: number): Hunk[] {
  const changed = ops.flatMap((op, i) => (op.kind === "equal" ? [] : [i]));
  const groups: [number, number][] = [];
  for (const i of changed) {
    const last = groups.at(-1);
    if (last !== undefined && i - last[1] <= 2 * context + 1) last[1] = i;
    else groups.push([i, i]);
  }
  // Line numbers (0-based) in each text before every op.
  const fromLine: number[] = [];
  const toLine: number[] = [];
  let [x, y] = [0, 0];
  for (const op of ops) {
    fromLine.push(x);
    toLine.push(y);
    if (op.kind !== "insert") x++;
    if (op.kind !== "delete") y++;
  }
  return groups.map(([first, last]) => {
    const start = Math.max(0, first - context);
    const end = Math.min(ops.length - 1, last + context);
    const slice = ops.slice(start, end + 1);
    return {
      fromStart: fromLine[start] ?? 0,
      fromCount: slice.filter((op) => op.kind !== "insert").length,
      toStart: toLine[start] ?? 0,
      toCount: slice.filter((op) => op.kind !== "delete").length,
      ops: slice,
    };
  });
}

/**
 * `start,count` with a 1-based start, as GNU diff: an empty range names the line before
 * it, a one-line range omits the count.
 */
function range(start: number, count: number): string {
  if (count === 0) return `${start},0`;
  return count === 1 ? `${start + 1}` : `${start + 1},${count}`;
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  return (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n");
}

interface Paint {
  header(s: string): string;
  hunk(s: string): string;
  deleted(s: string): string;
  inserted(s: string): string;
}

const plain: Paint = { header: (s) => s, hunk: (s) => s, deleted: (s) => s, inserted: (s) => s };
const ansi: Paint = {
  header: (s) => `\x1b[1m${s}\x1b[0m`,
  hunk: (s) => `\x1b[36m${s}\x1b[0m`,
  deleted: (s) => `\x1b[31m${s}\x1b[0m`,
  inserted: (s) => `\x1b[32m${s}\x1b[0m`,
};

export type ColorMode = "auto" | "always" | "never";

/** Whether to color: `auto` colors a terminal unless NO_COLOR is set (https://no-color.org). */
export function useColor(mode: ColorMode, isTTY: boolean, noColorEnv: string | undefined): boolean {
  if (mode === "always") return true;
  if (mode === "never") return false;
  return isTTY && (noColorEnv === undefined || noColorEnv === "");
}
