import { z } from "zod";
import {
  PetSetDefaults as D,
  PodManagementPolicies,
  PodUpdatePolicies,
  RetentionPolicies,
  UpdateStrategyTypes,
  VolumeClaimUpdatePolicies,
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
import { NodeFailureSchema } from "./node-failure.js";

/** int or percent string, as `apps/v1` maxUnavailable. */
export const IntOrPercentSchema = z.union([z.number().int(), z.string().regex(/^[0-9]+%$/)]);

/** A pause duration of a rollout step: `30s`, `10m`, `2h`. */
export const StepDurationSchema = z.string().regex(/^[0-9]+(s|m|h)$/);

/**
 * One step of a step-wise rollout (docs/rollouts.md "Steps"): move pets until `pets` of them
 * (counted from the highest ordinal down) run the new version, or pause, until promoted or for
 * `duration`. Exactly one of the two.
 */
export const RolloutStepSchema = z.union([
  z.object({ pets: z.union([z.number().int().min(0), z.string().regex(/^[0-9]+%$/)]) }).strict(),
  z.object({ pause: z.object({ duration: StepDurationSchema.optional() }).strict() }).strict(),
]);
export type RolloutStep = z.infer<typeof RolloutStepSchema>;

/** At most this many steps (after the shorthands expand, see planner/steps.ts). */
export const MAX_ROLLOUT_STEPS = 20;

export const RollingUpdateSchema = z.object({
  partition: z.number().int().min(0).default(D.partition),
  maxUnavailable: IntOrPercentSchema.default(D.maxUnavailable),
  podUpdatePolicy: z.enum(PodUpdatePolicies).default(D.podUpdatePolicy),
  /** A resize the kubelet defers longer than this falls back to a recreate (planner/in-place-resize.ts). */
  inPlaceResizeTimeoutSeconds: z.number().int().min(0).max(2147483647).default(D.inPlaceResizeTimeoutSeconds),
  /** Step-wise canary: counts of pets and pauses; a new version restarts them. */
  steps: z.array(RolloutStepSchema).max(MAX_ROLLOUT_STEPS).optional(),
  /** Shorthand: a first step `{pause: {}}`. */
  pauseOnSpecChange: z.boolean().optional(),
  /** Shorthand (not with `steps`): one pet at a time with a pause after each. */
  pauseAfterEachPet: z.boolean().optional(),
});

export const UpdateStrategySchema = z.object({
  type: z.enum(UpdateStrategyTypes).default(D.updateStrategyType),
  rollingUpdate: RollingUpdateSchema.optional(),
});

/**
 * One entry of `spec.reserveOrdinals`: an ordinal (an int, or its digits as a string) or an
 * inclusive range `"a-b"` (a <= b). Overlapping entries are allowed: the union is reserved.
 */
export const ReservedOrdinalSchema = z.union([
  z.number().int().min(0),
  z
    .string()
    .regex(/^[0-9]{1,10}(-[0-9]{1,10})?$/)
    .refine((s) => {
      const [from, to] = s.split("-").map(Number);
      return to === undefined || (from as number) <= to;
    }, 'a range "a-b" needs a <= b'),
]);
export type ReservedOrdinal = z.infer<typeof ReservedOrdinalSchema>;

/** At most this many entries in `spec.reserveOrdinals` (ranges keep the list short). */
export const MAX_RESERVED_ORDINALS = 64;

/**
 * `spec.scaleStrategy`: how fast scaling goes. `maxUnavailable` (Parallel only): at most this
 * many pets unavailable because of scaling at once (created and not yet available, or being
 * deleted); an int or a percent of replicas (rounded down, at least 1). Unset: no limit.
 */
export const ScaleStrategySchema = z.object({
  maxUnavailable: IntOrPercentSchema.optional(),
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
  /** Ordinals no pet gets (planner/ordinals.ts); `replicas` counts the pets that exist. */
  reserveOrdinals: z.array(ReservedOrdinalSchema).max(MAX_RESERVED_ORDINALS).optional(),
  scaleStrategy: ScaleStrategySchema.optional(),
  updateStrategy: UpdateStrategySchema.prefault({}),
  minReadySeconds: z.number().int().min(0).default(D.minReadySeconds),
  revisionHistoryLimit: z.number().int().min(0).default(D.revisionHistoryLimit),
  paused: z.boolean().default(D.paused),
  progressDeadlineSeconds: z.number().int().min(1).default(D.progressDeadlineSeconds),
  autoRollback: z.boolean().default(D.autoRollback),
  persistentVolumeClaimRetentionPolicy: RetentionPolicySchema.prefault({}),
  /** InPlace: a version's claim templates apply to existing claims as pets move (docs/volumes.md). */
  volumeClaimUpdatePolicy: z.enum(VolumeClaimUpdatePolicies).default(D.volumeClaimUpdatePolicy),
  /** Hooks the controller runs around rollouts and scale-down (docs/hooks.md). */
  lifecycle: LifecycleSchema.optional(),
  /** Who leads: the leader's pet is updated last, after a switchover (docs/rollouts.md). */
  roles: RolesSchema.optional(),
  /** What happens to a pet whose node is lost (docs/failover.md). */
  nodeFailure: NodeFailureSchema.optional(),
});
export type PetSetSpec = z.infer<typeof PetSetSpecSchema>;
export type PetSetSpecInput = z.input<typeof PetSetSpecSchema>;

/** status.volumeClaimTemplates[]: the pets' claims of one template of the update version (KEP-4650's shape). */
export const ClaimTemplateStatusSchema = z.object({
  name: z.string(),
  /** Pets whose claim satisfies the template (request and capacity >= it, same class and modes). */
  compatibleReplicas: z.number().int().default(0),
  /** Pets whose claim is being resized to the template. */
  updatingReplicas: z.number().int().default(0),
  /** Pets whose claim is larger than the template (a rollback never shrinks). */
  overSizedReplicas: z.number().int().default(0),
  /** Sum of the claims' status.capacity.storage, as a quantity. */
  totalCapacity: z.string().optional(),
});
export type ClaimTemplateStatus = z.infer<typeof ClaimTemplateStatusSchema>;

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
  /** The step-wise rollout in flight (derived from the target version's `steps`). */
  rolloutStep: z
    .object({
      version: z.number().int(),
      /** 1-based step reached; `total + 1` never appears (the steps are done then). */
      step: z.number().int(),
      total: z.number().int(),
      /** "pets N" or "pause" or "pause 10m". */
      description: z.string(),
      /** What it waits for: pets to become available, a promotion, or the clock. */
      waitingFor: z.enum(["pets", "promote", "time"]),
      resumeAt: z.string().optional(),
    })
    .optional(),
  /** Per claim template of the update version (docs/volumes.md); absent without templates. */
  volumeClaimTemplates: z.array(ClaimTemplateStatusSchema).optional(),
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
