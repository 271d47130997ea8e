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
import { sameStatus } from "./status-compare.js";

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

function withoutProgress(status: PetSetStatus): PetSetStatus {
  const out: Record<string, unknown> = { ...status };
  for (const f of PROGRESS_FIELDS) delete out[f];
  out.conditions = status.conditions.map((c: Condition) => ({
    ...c,
    message: parseBrokenPets(c.message)
      .named.map((p) => p.pet)
      .join(","),
  }));
  return out as PetSetStatus;
}

/**
 * True when `next` differs from `previous` only in progress: counts, `ready` and condition
 * messages. Conditions are compared as sets by type (their order is not meaningful).
 */
export function progressOnly(previous: PetSetStatus, next: PetSetStatus): boolean {
  const byType = (s: PetSetStatus): PetSetStatus => ({
    ...s,
    conditions: [...s.conditions].sort((a, b) => a.type.localeCompare(b.type)),
  });
  return sameStatus(withoutProgress(byType(previous)), withoutProgress(byType(next)));
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
