/**
 * Event expiry, as kube-apiserver's `--event-ttl` (default 1 h): an Event is removed once its
 * last write is older than the TTL. kube attaches an etcd lease to every Event write; here the
 * last write is read from the Event itself (the newest of its creation, `lastTimestamp`,
 * `eventTime`, `series.lastObservedTime` and managed-field times), so the rule holds across
 * restarts of a `--data-dir` server with nothing kept in memory. Without it the store (and the
 * server's memory) grows by every Event ever recorded: a soak of an hour showed it.
 */

import type { ObjectStore } from "../storage/object-store.js";
import type { Clock } from "../time.js";
import { isPlainObject, type KubeObject } from "../types.js";

export const EVENTS_GR = "/events";
export const DEFAULT_EVENT_TTL_MS = 3_600_000;

/** Milliseconds since the epoch of the Event's newest write it records, or undefined. */
export function lastWriteMs(ev: KubeObject): number | undefined {
  const o = ev as Record<string, unknown>;
  const series = isPlainObject(o.series) ? o.series : {};
  const times: unknown[] = [
    ev.metadata.creationTimestamp,
    o.lastTimestamp,
    o.eventTime,
    series.lastObservedTime,
    ...(ev.metadata.managedFields ?? []).map((m) => (isPlainObject(m) ? m.time : undefined)),
  ];
  let newest: number | undefined;
  for (const t of times) {
    if (typeof t !== "string") continue;
    const ms = Date.parse(t);
    if (!Number.isNaN(ms) && (newest === undefined || ms > newest)) newest = ms;
  }
  return newest;
}

/** The Events whose TTL has passed at `nowMs` (pure: the sweep below deletes them). */
export function expiredEvents(events: KubeObject[], nowMs: number, ttlMs: number): KubeObject[] {
  return events.filter((e) => {
    const last = lastWriteMs(e);
    return last !== undefined && nowMs - last >= ttlMs;
  });
}

/** Deletes expired Events; returns how many. Events carry no finalizers: removal is immediate. */
export function sweepEvents(objects: ObjectStore, clock: Clock, ttlMs: number): number {
  const expired = expiredEvents(objects.list(EVENTS_GR), clock.now().getTime(), ttlMs);
  for (const e of expired) objects.remove(EVENTS_GR, e);
  return expired.length;
}
