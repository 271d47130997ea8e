/**
 * Status-write coalescing. During a rollout every pod transition (deleted, created, Running,
 * Ready) changes a count in the PetSet's status, and each change was its own status write:
 * ~4 per pet, most of the controller's API writes. A status that differs from the stored one
 * only in progress (the replica counts, `ready`, and condition messages, with every condition's
 * type, status and reason unchanged) is written at most once per interval per PetSet; the last
 * one of a burst is written when the interval ends (the sync is requeued for it). Anything else
 * (a condition turning, a new observedGeneration or version, hooks, steps, which pets a
 * message names as broken) is written at once: the planner reads the stored message to warn
 * once per broken pet (planner/broken-pets.ts), so a held-back naming would warn twice.
 *
 * The limiter also remembers the resourceVersion each status write in flight was based on, so
 * the PetSet event that echoes it is told apart (`takeEcho`, wake-policy.ts).
 */
import { parseBrokenPets } from "../api/broken-pet-message.js";
import type { Condition, PetSetStatus } from "../api/index.js";
import { sameStatusValue } from "./status-compare.js";

/** Default: at most one progress-only status write per PetSet per second. */
export const DEFAULT_STATUS_PROGRESS_INTERVAL_MS = 1_000;

/** Fields that only say how far a rollout got. */
const PROGRESS_FIELDS = [
  "replicas",
  "readyReplicas",
  "availableReplicas",
  "currentReplicas",
  "updatedReplicas",
  "ready",
] as const;

/** Fields that say how far a rollout got, as a set. */
const PROGRESS = new Set<string>(PROGRESS_FIELDS);

/** The pets a condition's message names as broken, as one string (the rest of it is progress). */
function brokenNames(message: string | undefined): string {
  return parseBrokenPets(message)
    .named.map((p) => p.pet)
    .join(",");
}

/** Whether two conditions agree in everything but their message's progress. */
function sameButProgress(a: Condition, b: Condition): boolean {
  for (const k of unionKeys(a, b)) {
    if (k === "message") continue;
    if (!sameStatusValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return a.message === b.message || brokenNames(a.message) === brokenNames(b.message);
}

function unionKeys(a: object, b: object): Set<string> {
  const keys = new Set(Object.keys(a));
  for (const k of Object.keys(b)) keys.add(k);
  return keys;
}

function uniqueTypes(conditions: readonly Condition[]): boolean {
  return new Set(conditions.map((c) => c.type)).size === conditions.length;
}

/**
 * True when `next` differs from `previous` only in progress: counts, `ready` and condition
 * messages (but for the pets they name as broken). Conditions are matched by type (their order
 * is not meaningful). Compares in place, field by field: a sync asks this for every status it
 * plans within the interval, and copying and sorting both statuses showed in the profile.
 */
export function progressOnly(previous: PetSetStatus, next: PetSetStatus): boolean {
  for (const k of unionKeys(previous, next)) {
    if (k === "conditions" || PROGRESS.has(k)) continue;
    const a = (previous as Record<string, unknown>)[k];
    const b = (next as Record<string, unknown>)[k];
    if (!sameStatusValue(a, b)) return false;
  }
  const before = previous.conditions;
  const after = next.conditions;
  if (before.length !== after.length || !uniqueTypes(before) || !uniqueTypes(after)) return false;
  for (const c of after) {
    const earlier = before.find((p) => p.type === c.type);
    if (earlier === undefined || !sameButProgress(earlier, c)) return false;
  }
  return true;
}

export type StatusWriteDecision = { write: true } | { write: false; retryInMs: number };

/**
 * Remembers when each PetSet's status was last written (in memory: a new leader starts with
 * none, so its first write is prompt) and decides whether a progress-only change waits.
 */
export class StatusWriteLimiter {
  private readonly lastWrite = new Map<string, number>();
  /** PetSet key → the resourceVersion its status write in flight was based on. */
  private readonly echoes = new Map<string, string>();

  constructor(readonly intervalMs = DEFAULT_STATUS_PROGRESS_INTERVAL_MS) {}

  decide(
    key: string,
    now: number,
    previous: PetSetStatus | undefined,
    next: PetSetStatus,
  ): StatusWriteDecision {
    if (this.intervalMs <= 0 || previous === undefined) return { write: true };
    // The interval first: comparing the statuses is the dearer test, and moot once it ended.
    const last = this.lastWrite.get(key);
    if (last === undefined || now - last >= this.intervalMs) return { write: true };
    if (!progressOnly(previous, next)) return { write: true };
    return { write: false, retryInMs: Math.max(1, last + this.intervalMs - now) };
  }

  /**
   * Call when a status write is sent; `basedOn`: the resourceVersion it carries, so the
   * PetSet's next event can be told as its echo (`takeEcho`).
   */
  wrote(key: string, now: number, basedOn?: string): void {
    this.lastWrite.set(key, now);
    if (basedOn !== undefined) this.echoes.set(key, basedOn);
  }

  /** The write failed: no echo comes (a 409's newer PetSet is someone else's). */
  noEcho(key: string): void {
    this.echoes.delete(key);
  }

  /**
   * True, once, for the first event of the PetSet at another resourceVersion than the last
   * status write was based on: that write's echo (or a write that beat it, which the write's
   * 409 then reports). wake-policy.ts lets it share the next sync.
   */
  takeEcho(key: string, resourceVersion: string | undefined): boolean {
    const basedOn = this.echoes.get(key);
    if (basedOn === undefined || basedOn === resourceVersion) return false;
    this.echoes.delete(key);
    return true;
  }

  /** The PetSet is gone. */
  forget(key: string): void {
    this.lastWrite.delete(key);
    this.echoes.delete(key);
  }

  get size(): number {
    return this.lastWrite.size;
  }
}
