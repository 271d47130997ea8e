/**
 * Frozen copies, one per content (keyed by JSON), started afresh when `maxEntries` are held
 * (copies already handed out stay shared). Values whose JSON is longer than `maxKeyLength` are
 * not shared: each entry holds its key. Frozen: a reader that writes to one throws (strict
 * mode) instead of changing every holder of it. Used by the caches (cache-trim.ts) and the
 * per-PetSet gauges (petset-gauges.ts).
 */
export class SharedCopies {
  private copies = new Map<string, unknown>();

  constructor(
    private readonly maxEntries: number,
    private readonly maxKeyLength = 1_024,
  ) {}

  share<T>(value: T): T {
    if (typeof value !== "object" || value === null) return value;
    const key = JSON.stringify(value);
    if (key === undefined || key.length > this.maxKeyLength) return value;
    const known = this.copies.get(key);
    if (known !== undefined) return known as T;
    if (this.copies.size >= this.maxEntries) this.copies = new Map();
    this.copies.set(key, deepFreeze(value));
    return value;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  for (const v of Object.values(value)) deepFreeze(v);
  return Object.freeze(value);
}
