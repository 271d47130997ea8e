/**
 * A small seeded PRNG (mulberry32): the same seed gives the same scenario and the same fault
 * schedule, so a failing chaos run is reproduced by its seed (timings still vary with the load).
 */
export interface Rng {
  readonly seed: number;
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
  /** An independent stream derived from this seed and `label` (adding a draw elsewhere does not shift it). */
  fork(label: string): Rng;
}

export function seededRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const rng: Rng = {
    seed,
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (items) => {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new Error("pick from an empty list");
      return item;
    },
    chance: (p) => next() < p,
    fork: (label) => {
      let h = seed >>> 0;
      for (const c of label) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
      return seededRng(h);
    },
  };
  return rng;
}
