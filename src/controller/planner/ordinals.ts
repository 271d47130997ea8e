/**
 * Which ordinals the pets have (spec.ordinals.start, spec.reserveOrdinals). Pure. The rules
 * (docs/rollouts.md "Reserved ordinals"):
 *
 *  - `reserveOrdinals` lists ordinals (ints, or digit strings) and inclusive ranges `"a-b"`;
 *    overlapping entries are fine (the union is reserved), entries below `ordinals.start` mean
 *    nothing. No pet ever gets a reserved ordinal.
 *  - `replicas` counts the pets that exist: the pets are the first `replicas` ordinals from
 *    `ordinals.start` up that are not reserved. `replicas: 3, reserveOrdinals: [1]` gives
 *    web-0, web-2, web-3.
 *  - A pod at a reserved ordinal is outside the set like one above it: it is condemned and
 *    goes through the scale-down path (preScaleDown, leader switchover, claim retention
 *    whenScaled). So changing the list moves pets as a scale would: the new pet is created by the
 *    normal creation rules, and the reserved one goes (scale-down.ts) once the unavailable pets
 *    number fewer than maxUnavailable (OrderedReady: once every pet is available), so with the
 *    default budget of 1 the new pet is available before the reserved one is removed.
 *  - The partition stays an ordinal bound (`ordinals >= start + partition` move), as for
 *    StatefulSets; steps count pets, not ordinals (step-pets.ts picks them from these ordinals).
 *  - Nothing here is versioned: reserveOrdinals is not pod-shaping (src/versions/content.ts).
 *  - Ranges are never expanded: a range "0-2000000000" costs one interval, not its members.
 */
import type { ReservedOrdinal } from "../../api/index.js";

/** An inclusive interval of reserved ordinals. */
export interface OrdinalRange {
  readonly from: number;
  readonly to: number;
}

/** One entry as an interval; undefined when it does not parse (the CRD refuses those). */
export function parseReserved(entry: ReservedOrdinal): OrdinalRange | undefined {
  if (typeof entry === "number")
    return Number.isInteger(entry) && entry >= 0 ? { from: entry, to: entry } : undefined;
  const m = /^([0-9]+)(?:-([0-9]+))?$/.exec(entry.trim());
  if (m === null) return undefined;
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  return from <= to ? { from, to } : undefined;
}

/** The reserved intervals, sorted and merged (overlapping or touching ones become one). */
export function reservedRanges(entries: readonly ReservedOrdinal[] | undefined): OrdinalRange[] {
  const ranges = (entries ?? [])
    .map(parseReserved)
    .filter((r): r is OrdinalRange => r !== undefined)
    .sort((a, b) => a.from - b.from);
  const merged: OrdinalRange[] = [];
  for (const r of ranges) {
    const last = merged.at(-1);
    if (last !== undefined && r.from <= last.to + 1)
      merged[merged.length - 1] = { from: last.from, to: Math.max(last.to, r.to) };
    else merged.push(r);
  }
  return merged;
}

export function isReserved(ranges: readonly OrdinalRange[], ordinal: number): boolean {
  return ranges.some((r) => ordinal >= r.from && ordinal <= r.to);
}

/** The pets' ordinals: the first `replicas` ordinals from `start` up that are not reserved, ascending. */
export function petOrdinals(
  start: number,
  replicas: number,
  reserved: readonly ReservedOrdinal[] | undefined,
): number[] {
  const ranges = reservedRanges(reserved);
  const ordinals: number[] = [];
  let next = start;
  let i = 0;
  while (ordinals.length < replicas) {
    const range = ranges[i];
    if (range !== undefined && range.to < next) {
      i++;
      continue;
    }
    if (range !== undefined && next >= range.from) {
      next = range.to + 1;
      i++;
      continue;
    }
    ordinals.push(next);
    next++;
  }
  return ordinals;
}
