/**
 * The one source of truth for PetSet defaults. The CRD generator writes these values into
 * the OpenAPI schema (`default:`), and the zod schemas in petset.ts use them, so the API
 * server and the controller agree on what an omitted field means. A test checks both.
 */
export const PetSetDefaults = {
  replicas: 1,
  podManagementPolicy: "OrderedReady",
  ordinalsStart: 0,
  updateStrategyType: "RollingUpdate",
  partition: 0,
  maxUnavailable: 1,
  podUpdatePolicy: "Recreate",
  inPlaceResizeTimeoutSeconds: 120,
  minReadySeconds: 0,
  revisionHistoryLimit: 10,
  paused: false,
  progressDeadlineSeconds: 600,
  autoRollback: false,
  whenDeleted: "Retain",
  whenScaled: "Retain",
  volumeClaimUpdatePolicy: "OnClaimDelete",
} as const;

export const PodManagementPolicies = ["OrderedReady", "Parallel"] as const;
export const UpdateStrategyTypes = ["RollingUpdate", "OnDelete", "External"] as const;
export const PodUpdatePolicies = ["Recreate", "InPlaceIfPossible", "InPlaceOnly"] as const;
export const RetentionPolicies = ["Retain", "Delete"] as const;
/** docs/volumes.md: OnClaimDelete (a changed template applies to new claims only) or InPlace. */
export const VolumeClaimUpdatePolicies = ["OnClaimDelete", "InPlace"] as const;
