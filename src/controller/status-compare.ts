/** Status helpers for the sync: compare ignoring representation, and set one condition. */
import type { Condition, PetSetStatus } from "../api/index.js";

function normalize(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString().replace(/\.\d{3}Z$/, "Z");
  if (typeof value === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(value)) {
    return value.replace(/\.\d+Z$/, "Z");
  }
  if (Array.isArray(value)) return value.map(normalize);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = normalize(v);
    }
    return out;
  }
  return value;
}

/** A string equal for two statuses that the API would store identically. */
export function canonicalStatus(status: PetSetStatus): string {
  return JSON.stringify(normalize(status));
}

/** Replaces condition `update.type`, keeping lastTransitionTime when the status is unchanged. */
export function withCondition(
  status: PetSetStatus,
  update: Omit<Condition, "lastTransitionTime" | "observedGeneration">,
  now: number,
  observedGeneration: number | undefined,
): PetSetStatus {
  const previous = status.conditions.find((c) => c.type === update.type);
  const lastTransitionTime =
    previous && previous.status === update.status && previous.lastTransitionTime
      ? previous.lastTransitionTime
      : new Date(Math.floor(now / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
  const next: Condition = {
    ...update,
    lastTransitionTime,
    ...(observedGeneration !== undefined ? { observedGeneration } : {}),
  };
  return { ...status, conditions: [...status.conditions.filter((c) => c.type !== update.type), next] };
}
