/**
 * Names that are part of the product contract (SPEC.md): API group, labels, annotations,
 * environment variables, condition types and reasons. Everything user-visible that is a
 * string literal lives here so tests, docs and code agree.
 */

export const GROUP = "petset.dev";
export const VERSION = "v1alpha1";
export const API_VERSION = `${GROUP}/${VERSION}`;

export const PETSET_KIND = "PetSet";
export const PETSET_PLURAL = "petsets";
export const PETSET_SINGULAR = "petset";
export const PETSET_SHORT_NAMES = ["ps"] as const;

export const VERSION_KIND = "PetSetVersion";
export const VERSION_PLURAL = "petsetversions";
export const VERSION_SINGULAR = "petsetversion";
export const VERSION_SHORT_NAMES = ["psv"] as const;

export const Labels = {
  petSet: "petset.dev/petset",
  version: "petset.dev/version",
  hash: "petset.dev/hash",
  podIndex: "petset.dev/pod-index",
} as const;

export const Annotations = {
  generation: "petset.dev/generation",
  targetVersion: "petset.dev/target-version",
  changeCause: "kubernetes.io/change-cause",
  restartedAt: "petset.dev/restartedAt",
  /** updateStrategy External: an outside actor asks for this pod to move to version N. */
  updateRequested: "petset.dev/update-requested",
  /** The version whose content the pod's containers started with (set on create and in-place update, not on relabel). */
  startedVersion: "petset.dev/started-version",
  /**
   * On the PetSet, written by `kubectl petset promote`: `<version>#<step>` passes that 1-based
   * step of that version's step-wise rollout, `<version>#full` skips the remaining steps.
   */
  promote: "petset.dev/promote",
  /**
   * On a pod, written by `kubectl petset replace`: replace this pet once (planner/replacement.ts),
   * `keep` its claims or `recreate` them. The pod's deletion consumes the request.
   */
  replace: "petset.dev/replace",
  /** On a pod, beside `replace`: why, for the Events (`--reason`). */
  replaceReason: "petset.dev/replace-reason",
} as const;

export const EnvVars = {
  version: "PETSET_VERSION",
  generation: "PETSET_GENERATION",
  ordinal: "PETSET_ORDINAL",
} as const;

export const ConditionTypes = {
  available: "Available",
  progressing: "Progressing",
  /** True while a pod or claim named as a pet is held by something petset must not touch. */
  petConflict: "PetConflict",
} as const;
export type ConditionType = (typeof ConditionTypes)[keyof typeof ConditionTypes];

export const ProgressingReasons = {
  newVersionObserved: "NewVersionObserved",
  rollingOut: "RollingOut",
  rolloutComplete: "RolloutComplete",
  paused: "Paused",
  progressDeadlineExceeded: "ProgressDeadlineExceeded",
  rolledBack: "RolledBack",
  invalidSpec: "InvalidSpec",
  /** A hook failed for good with failurePolicy Pause: the rollout or scale-down waits. */
  hookFailed: "HookFailed",
  /** A step-wise rollout waits at a pause step: for a promotion or for its duration. */
  stepPaused: "StepPaused",
  /** volumeClaimUpdatePolicy InPlace: a claim cannot follow the version (docs/volumes.md). */
  claimUpdateRefused: "ClaimUpdateRefused",
} as const;
export type ProgressingReason = (typeof ProgressingReasons)[keyof typeof ProgressingReasons];

/** `<petset>-v<N>`: the name of version N of a PetSet. */
export function versionName(petSet: string, version: number): string {
  return `${petSet}-v${version}`;
}

/** `<petset>-<ordinal>`: the name of a pet's pod. */
export function podName(petSet: string, ordinal: number): string {
  return `${petSet}-${ordinal}`;
}

/** `<claim>-<petset>-<ordinal>`: the name of a pet's claim from a volumeClaimTemplate. */
export function claimName(claimTemplate: string, petSet: string, ordinal: number): string {
  return `${claimTemplate}-${petSet}-${ordinal}`;
}
