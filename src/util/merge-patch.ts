/**
 * The JSON merge patch (RFC 7386) that turns `current` into `desired`. A merge patch merges
 * objects key by key, so a plain copy of `desired` would leave behind keys that only
 * `current` has (an annotation added after the version, a removed env var's sibling
 * field); those are deleted here with explicit `null`s. Arrays and scalars are replaced
 * whole. Returns undefined when nothing differs.
 */
export function createMergePatch(current: unknown, desired: unknown): unknown {
  if (!isObject(current) || !isObject(desired)) return sameJson(current, desired) ? undefined : desired;
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(current)) {
    if (!(key in desired) || desired[key] === undefined) patch[key] = null;
  }
  for (const [key, value] of Object.entries(desired)) {
    if (value === undefined) continue;
    if (!(key in current) || current[key] === undefined) {
      patch[key] = value;
      continue;
    }
    const sub = createMergePatch(current[key], value);
    if (sub !== undefined) patch[key] = sub;
  }
  return Object.keys(patch).length === 0 ? undefined : patch;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
