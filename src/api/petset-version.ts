import { z } from "zod";
import { HookRecordSchema } from "./lifecycle.js";
import { ClaimTemplateSchema, ObjectMetaSchema, PodTemplateSchema } from "./meta.js";
import { API_VERSION, VERSION_KIND } from "./names.js";

/** One RFC 6902 operation, as fast-json-patch produces them. */
export const JsonPatchOpSchema = z.object({
  op: z.enum(["add", "remove", "replace", "move", "copy", "test"]),
  path: z.string(),
  from: z.string().optional(),
  value: z.unknown().optional(),
});
export type JsonPatchOp = z.infer<typeof JsonPatchOpSchema>;

export const PetSetVersionSpecSchema = z.object({
  petSet: z.string(),
  version: z.number().int().min(1),
  generation: z.number().int().min(0),
  hash: z.string(),
  template: PodTemplateSchema,
  volumeClaimTemplates: z.array(ClaimTemplateSchema).default([]),
  rollbackOf: z.number().int().min(1).optional(),
  changeCause: z.string().optional(),
  changedBy: z.string().optional(),
  delta: z.array(JsonPatchOpSchema).default([]),
});
export type PetSetVersionSpec = z.infer<typeof PetSetVersionSpecSchema>;

/** RFC 3339 time, as the controller writes it (`Date.toISOString()`). */
const Time = z.string();

/**
 * Rollout facts the controller records on a version (the `status` subresource; users never
 * write it). The PetSet's status is derived from them, so it survives a status wipe: see
 * src/controller/planner/version-facts.ts for when each is set and docs/versions.md.
 */
export const PetSetVersionStatusSchema = z.object({
  /** The controller first saw this version as the PetSet's newest. */
  observedAt: Time.optional(),
  /** Pods were first moved towards this version (it became the rollout target). */
  rolloutStartedAt: Time.optional(),
  /** Last time a paused rollout of this version was resumed (restarts the deadline clock). */
  resumedAt: Time.optional(),
  /** Last time its rollout made no progress for progressDeadlineSeconds. */
  deadlineExceededAt: Time.optional(),
  /** Every pet at or above the partition ran this version, available (first time). */
  completedAt: Time.optional(),
  /** It became the set's current version: every pet existed and ran it. Latest wins. */
  becameCurrentAt: Time.optional(),
  /** Every pet ran it and was available: a rollback target. Latest wins (lastCompleteVersion). */
  fullyRolledOutAt: Time.optional(),
  /** A newer version became the rollout target after this one had started. */
  supersededAt: Time.optional(),
  /** The version that superseded it. */
  supersededBy: z.number().int().min(1).optional(),
  /** autoRollback gave this version up and rolled back to lastCompleteVersion. */
  rolledBackAt: Time.optional(),
  /**
   * Step-wise rollout of this version (spec.updateStrategy.rollingUpdate.steps): the 0-based
   * step reached (= the number of steps when done), when its pause began, the last promotion.
   */
  steps: z
    .object({
      index: z.number().int().min(0),
      pausedAt: Time.optional(),
      /** Pets (from the highest ordinal down) the pause at `index` holds at the new version. */
      pets: z.number().int().min(0).optional(),
      promotedAt: Time.optional(),
      /** The promotion that was applied last (`<version>#<step>` or `<version>#full`). */
      promotion: z.string().optional(),
    })
    .optional(),
  /** Hook runs that move pets to this version (preScaleDown: of pods at it), latest state. */
  hooks: z.array(HookRecordSchema).optional(),
  /** The format of this status (src/api/state-format.ts); absent: 0, before format versions. */
  formatVersion: z.number().int().min(0).optional(),
});
export type PetSetVersionStatus = z.infer<typeof PetSetVersionStatusSchema>;

export const PetSetVersionSchema = z.object({
  apiVersion: z.literal(API_VERSION),
  kind: z.literal(VERSION_KIND),
  metadata: ObjectMetaSchema,
  spec: PetSetVersionSpecSchema,
  status: PetSetVersionStatusSchema.optional(),
});
export type PetSetVersion = z.infer<typeof PetSetVersionSchema>;

export function parsePetSetVersion(obj: unknown): PetSetVersion {
  return PetSetVersionSchema.parse(obj);
}
