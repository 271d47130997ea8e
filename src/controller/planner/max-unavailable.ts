/**
 * Resolve `maxUnavailable` (int or "N%") against the desired replicas the way apps/v1
 * StatefulSets do: a percentage scales and rounds down, and the result is never below 1.
 */
export function resolveMaxUnavailable(value: number | string, replicas: number): number {
  let resolved: number;
  if (typeof value === "number") {
    resolved = value;
  } else {
    const percent = Number.parseInt(value.replace(/%$/, ""), 10);
    resolved = Number.isNaN(percent) ? 1 : Math.floor((percent * replicas) / 100);
  }
  return Math.max(1, resolved);
}
