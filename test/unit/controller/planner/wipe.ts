/**
 * Status wipes for the simulator: what a user restoring a backup without status does, and
 * the status as a user compares it.
 */
import { type PetSet, PetSetStatusSchema } from "../../../../src/api/index.js";
import { sync, type World } from "./simulate.js";

/** A user replaces the PetSet's status with `{}` (a restore without status, `kubectl replace --subresource=status`). */
export function wipeStatus(world: World): void {
  world.petSet = { ...world.petSet, status: PetSetStatusSchema.parse({}) };
}

/** The status as a user compares it: conditions by type, without lastTransitionTime. */
export function comparableStatus(status: PetSet["status"]): unknown {
  if (status === undefined) return undefined;
  const conditions = [...status.conditions]
    .sort((a, b) => a.type.localeCompare(b.type))
    .map(({ lastTransitionTime: _t, ...rest }) => rest);
  return { ...status, conditions };
}

/** What the next sync would write and do, without changing the world. */
export function preview(world: World): { status: unknown; steps: string[] } {
  const copy = structuredClone(world);
  const plan = sync(copy);
  return {
    status: comparableStatus(copy.petSet.status),
    steps: plan.steps.filter((s) => s.kind !== "recordVersionStatus").map((s) => JSON.stringify(s)),
  };
}
