/**
 * Column tables as kubectl prints them: upper-case headers, every column but the last
 * padded to its widest cell plus three spaces (at least six wide), no trailing spaces.
 */
const PADDING = 3;
const MIN_WIDTH = 6;

export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [headers, ...rows];
  const widths = headers.map((_, col) =>
    Math.max(MIN_WIDTH, ...all.map((row) => displayWidth(row[col] ?? "") + PADDING)),
  );
  const lines = all.map((row) =>
    row
      .map((cell, col) => (col === row.length - 1 ? cell : pad(cell, widths[col] ?? MIN_WIDTH)))
      .join("")
      .trimEnd(),
  );
  return `${lines.join("\n")}\n`;
}

/** Cell text: a missing value reads `<none>`, as in `kubectl get`. */
export function cell(value: string | number | undefined): string {
  if (value === undefined || value === "") return "<none>";
  return String(value).replace(/\s*\n\s*/g, " ");
}

function pad(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - displayWidth(text)));
}

/** Code points, not UTF-16 units, so `→` or accented names do not skew the columns. */
function displayWidth(text: string): number {
  return [...text].length;
}
