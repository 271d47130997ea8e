import { z } from "zod";
import {
  PetSetDefaults as D,
  PodManagementPolicies,
  PodUpdatePolicies,
  RetentionPolicies,
  UpdateStrategyTypes,
} from "./defaults.js";
import { HookRecordSchema, LifecycleSchema, RolesSchema } from "./lifecycle.js";
import {
  ClaimTemplateSchema,
  ConditionSchema,
  LabelSelectorSchema,
  ObjectMetaSchema,
  PodTemplateSchema,
} from "./meta.js";
import { API_VERSION, PETSET_KIND } from "./names.js";

/** int or percent string, as `apps/v1` maxUnavailable. */
export const IntOrPercentSchema = z.union([z.number().int(), z.string().regex(/^[0-9]+%$/)]);

export const RollingUpdateSchema = z.object({
  partition: z.number().int().min(0).default(D.partition),
  maxUnavailable: IntOrPercentSchema.default(D.maxUnavailable),
  podUpdatePolicy: z.enum(PodUpdatePolicies).default(D.podUpdatePolicy),
});

export const UpdateStrategySchema = z.object({
  type: z.enum(UpdateStrategyTypes).default(D.updateStrategyType),
  rollingUpdate: RollingUpdateSchema.optional(),
});

export const RetentionPolicySchema = z.object({
  whenDeleted: z.enum(RetentionPolicies).default(D.whenDeleted),
  whenScaled: z.enum(RetentionPolicies).default(D.whenScaled),
});

/**
 * PetSet spec with defaults. `.prefault({})` means "an omitted object is defaulted, then
 * its own fields are defaulted", which is what the API server's structural defaulting does
 * with the `default: {}` the generator writes for the same fields.
 */
export const PetSetSpecSchema = z.object({
  replicas: z.number().int().min(0).default(D.replicas),
  selector: LabelSelectorSchema,
  serviceName: z.string().optional(),
  template: PodTemplateSchema,
  volumeClaimTemplates: z.array(ClaimTemplateSchema).default([]),
  podManagementPolicy: z.enum(PodManagementPolicies).default(D.podManagementPolicy),
  ordinals: z.object({ start: z.number().int().min(0).default(D.ordinalsStart) }).prefault({}),
  updateStrategy: UpdateStrategySchema.prefault({}),
  minReadySeconds: z.number().int().min(0).default(D.minReadySeconds),
  revisionHistoryLimit: z.number().int().min(0).default(D.revisionHistoryLimit),
  paused: z.boolean().default(D.paused),
  progressDeadlineSeconds: z.number().int().min(1).default(D.progressDeadlineSeconds),
  autoRollback: z.boolean().default(D.autoRollback),
  persistentVolumeClaimRetentionPolicy: RetentionPolicySchema.prefault({}),
  /** Hooks the controller runs around rollouts and scale-down (docs/hooks.md). */
  lifecycle: LifecycleSchema.optional(),
  /** Who leads: the leader's pet is updated last, after a switchover (docs/rollouts.md). */
  roles: RolesSchema.optional(),
});
export type PetSetSpec = z.infer<typeof PetSetSpecSchema>;
export type PetSetSpecInput = z.input<typeof PetSetSpecSchema>;

export const PetSetStatusSchema = z.object({
  observedGeneration: z.number().int().optional(),
  replicas: z.number().int().default(0),
  readyReplicas: z.number().int().default(0),
  availableReplicas: z.number().int().default(0),
  currentReplicas: z.number().int().default(0),
  updatedReplicas: z.number().int().default(0),
  currentVersion: z.number().int().optional(),
  updateVersion: z.number().int().optional(),
  /** Newest version that every pet reached: the autoRollback target. */
  lastCompleteVersion: z.number().int().optional(),
  /** "ready/desired", for the READY printer column. */
  ready: z.string().optional(),
  selector: z.string().optional(),
  conditions: z.array(ConditionSchema).default([]),
  /** Hooks running or failed now (derived from the versions' records). */
  hooks: z.array(HookRecordSchema).optional(),
});
export type PetSetStatus = z.infer<typeof PetSetStatusSchema>;

export const PetSetSchema = z.object({
  apiVersion: z.literal(API_VERSION),
  kind: z.literal(PETSET_KIND),
  metadata: ObjectMetaSchema,
  spec: PetSetSpecSchema,
  status: PetSetStatusSchema.optional(),
});
export type PetSet = z.infer<typeof PetSetSchema>;

/** Parse an object read from the API into a typed, fully defaulted PetSet. */
export function parsePetSet(obj: unknown): PetSet {
  return PetSetSchema.parse(obj);
}
