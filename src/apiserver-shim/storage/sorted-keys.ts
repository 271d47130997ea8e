/**
 * The keys of one resource in sorted order, kept beside the object map so a list reads a
 * range instead of sorting every key of the resource (a page of 500 pods among 30,000 sorted
 * all 30,000 before). Adds are queued and merged in on the next read, so a burst of creates
 * costs one merge, not one shift of the array per create; a recovered store builds the order
 * once, on its first list.
 */
export class SortedKeys {
  private sorted: string[] = [];
  private pending: string[] = [];

  add(key: string): void {
    this.pending.push(key);
  }

  delete(key: string): void {
    const p = this.pending.indexOf(key);
    if (p >= 0) {
      this.pending.splice(p, 1);
      return;
    }
    const i = lowerBound(this.sorted, key);
    if (this.sorted[i] === key) this.sorted.splice(i, 1);
  }

  /**
   * Keys starting with `prefix` ("" for all), in order, strictly after `after` when given.
   * Read it to the end (or drop it) before the next add or delete: a delete shifts the array.
   */
  *range(prefix: string, after?: string): Generator<string> {
    const keys = this.keys();
    let i = lowerBound(keys, after !== undefined && after >= prefix ? after : prefix);
    if (after !== undefined && keys[i] === after) i++;
    for (; i < keys.length; i++) {
      const k = keys[i]!;
      if (!k.startsWith(prefix)) return;
      yield k;
    }
  }

  /** Every key, sorted (the array is shared: do not mutate). */
  keys(): readonly string[] {
    if (this.pending.length > 0) {
      this.sorted = merge(this.sorted, this.pending.sort());
      this.pending = [];
    }
    return this.sorted;
  }
}

/** The first index whose key is >= `key`. */
export function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Two sorted arrays as one (a key is never in both: an add of a present key is a put). */
function merge(a: readonly string[], b: readonly string[]): string[] {
  const out = new Array<string>(a.length + b.length);
  let i = 0;
  let j = 0;
  let o = 0;
  while (i < a.length && j < b.length) out[o++] = a[i]! <= b[j]! ? a[i++]! : b[j++]!;
  while (i < a.length) out[o++] = a[i++]!;
  while (j < b.length) out[o++] = b[j++]!;
  return out;
}
