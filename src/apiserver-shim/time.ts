/** Time as the shim sees it: an injected clock and kube's second-precision RFC 3339. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** `2024-05-01T10:00:00Z`: metav1.Time serialisation (seconds precision, UTC). */
export function rfc3339(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}

/** metav1.MicroTime serialisation (used by events.k8s.io eventTime and Lease times). */
export function rfc3339Micro(d: Date): string {
  return `${d.toISOString().slice(0, 23)}000Z`;
}
