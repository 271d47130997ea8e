import { UsageError } from "./errors.js";

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Parses a duration as kubectl flags take them (Go syntax: `30s`, `5m`, `1h30m`, `1.5s`,
 * `250ms`), or a bare number of seconds. `flag` names the flag in the error.
 */
export function parseDuration(text: string, flag: string): number {
  const trimmed = text.trim();
  if (/^[0-9]+(\.[0-9]+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const part = /([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)/y;
  let total = 0;
  let index = 0;
  while (index < trimmed.length) {
    part.lastIndex = index;
    const match = part.exec(trimmed);
    if (match === null) break;
    total += Number(match[1]) * (UNIT_MS[match[2] ?? ""] ?? 0);
    index = part.lastIndex;
  }
  if (trimmed === "" || index !== trimmed.length)
    throw new UsageError(`${flag}: "${text}" is not a duration: use e.g. 30s, 5m or 1h30m`);
  return Math.round(total);
}

/** A duration as flags spell it: `250ms`, `30s`, `1.5s`, `5m`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${Number((ms / 1000).toFixed(3))}s`;
}
