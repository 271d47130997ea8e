import type { V1PersistentVolumeClaim, V1Pod } from "@kubernetes/client-node";
import type { PetSet, PetSetStatus, PetSetVersion, PetSetVersionStatus } from "../../api/index.js";
import type { LostPet, NodeView } from "./node-failure.js";
import type { ClaimView, PodView } from "./views.js";

/** Everything the planner reads. Plain data from the caches; the planner never mutates it. */
export interface PlanInput {
  /** Fully defaulted (parsePetSet). `status` is read for memory: currentVersion, conditions. */
  petSet: PetSet;
  /** This PetSet's versions, any order. */
  versions: readonly PetSetVersion[];
  /** Pods owned by this PetSet. */
  pods: readonly PodView[];
  /** Claims named `<claim>-<petset>-<ordinal>`. */
  claims: readonly ClaimView[];
  /**
   * Ordinals whose pod name is held by a pod this PetSet does not control (another
   * controller's, or an orphan not adopted yet; see ownership.ts): no pet is created there.
   */
  blockedOrdinals?: readonly number[];
  /** StorageClasses (claim-updates.ts reads allowVolumeExpansion); omitted: none is refused for its class. */
  storageClasses?: readonly StorageClassView[];
  /** Milliseconds since the epoch: the injected clock. */
  now: number;
  /**
   * When this controller began driving (leading, caches synced), ms since the epoch. Time
   * before it counts neither against a version's progress deadline nor against a hook's
   * timeout: no controller may have run then (takeover.ts). Omitted: all time counts.
   */
  drivingSince?: number;
  /** Nodes as cached (node-failure.ts); omitted: not known, so no pet is judged on a lost node. */
  nodes?: readonly NodeView[];
}

/** Why a pod is deleted; also the Event reason the executor may record. */
export type DeletePodReason = "scale-down" | "update" | "replace-broken" | "recreate" | "replace";

/** Preconditions every write to an existing pod carries (SPEC rule 7). */
export interface PodRef {
  podName: string;
  ordinal: number;
  uid: string;
  resourceVersion: string;
}

export interface CreateClaimStep {
  kind: "createClaim";
  ordinal: number;
  claim: V1PersistentVolumeClaim;
}

/** Create the pet's pod. Claims of the same ordinal come earlier in `steps`. */
export interface CreatePodStep {
  kind: "createPod";
  ordinal: number;
  version: number;
  pod: V1Pod;
}

export interface DeletePodStep extends PodRef {
  kind: "deletePod";
  reason: DeletePodReason;
  /** Version the pod ran (label), for events. */
  fromVersion?: number;
}

/**
 * In-place update: set `spec.containers[name=container].image` and merge `labels` and
 * `annotations` in one write (so the restarted container reads the new downward-API env).
 */
export interface PatchPodImagesStep extends PodRef {
  kind: "patchPodImages";
  images: { container: string; image: string }[];
  /** cpu/memory to set through the pods/resize subresource first (in-place-resize.ts). */
  resources?: { container: string; requests?: Record<string, string>; limits?: Record<string, string> }[];
  labels: Record<string, string>;
  annotations: Record<string, string>;
  fromVersion?: number;
  toVersion: number;
}

/** Pod already runs the target content: merge labels/annotations, no restart. */
export interface RelabelPodStep extends PodRef {
  kind: "relabelPod";
  labels: Record<string, string>;
  annotations: Record<string, string>;
  fromVersion?: number;
  toVersion: number;
}

/** Merge annotation `petset.dev/target-version=<targetVersion>`. */
export interface AnnotateTargetVersionStep extends PodRef {
  kind: "annotateTargetVersion";
  targetVersion: number;
}

export interface DeleteClaimStep {
  kind: "deleteClaim";
  ordinal: number;
  claimName: string;
  uid: string;
  resourceVersion: string;
  /** Retention policy, or `replace`: a targeted replacement rebuilds the pet's storage (replacement.ts). */
  reason: "whenScaled" | "whenDeleted" | "replace";
}

/**
 * Write the content of `version` back into the PetSet's template/volumeClaimTemplates (with a
 * change-cause naming `fromVersion`); the version sync then records a version with rollbackOf.
 * Must be idempotent: the planner repeats it until that new version appears.
 */
export interface RollbackToStep {
  kind: "rollbackTo";
  version: number;
  fromVersion: number;
  changeCause: string;
}

/**
 * Record rollout facts on a version (its `status` subresource, resourceVersion precondition):
 * the PetSet's status is derived from them (version-facts.ts). `status` is the whole new status.
 */
export interface RecordVersionStatusStep {
  kind: "recordVersionStatus";
  versionName: string;
  version: number;
  /** The version's resourceVersion as read; the write fails with 409 if it changed. */
  resourceVersion: string;
  status: PetSetVersionStatus;
  /** Names of the facts this step sets, for logs and Events. */
  facts: string[];
}

/** What the planner reads of a StorageClass. */
export interface StorageClassView {
  name: string;
  allowVolumeExpansion: boolean;
  /** Annotation storageclass.kubernetes.io/is-default-class=true. */
  isDefault: boolean;
}

/**
 * volumeClaimUpdatePolicy InPlace (claim-updates.ts): make an existing claim follow version
 * `toVersion` with one JSON merge patch carrying the resourceVersion read. `storage` is set only
 * to grow the request; labels and annotations are merged; never a shrink.
 */
export interface PatchClaimStep {
  kind: "patchClaim";
  ordinal: number;
  claimName: string;
  uid: string;
  resourceVersion: string;
  storage?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  volumeAttributesClassName?: string;
  toVersion: number;
}

export type Step =
  | RecordVersionStatusStep
  | PatchClaimStep
  | CreateClaimStep
  | CreatePodStep
  | DeletePodStep
  | PatchPodImagesStep
  | RelabelPodStep
  | AnnotateTargetVersionStep
  | DeleteClaimStep
  | RollbackToStep
  | ForceDeleteLostPodStep;

/**
 * After a pet's fence succeeded (node-failure.ts): re-read the node uncached and do nothing if it
 * is Ready again; else taint it out-of-service if asked, force-delete the pod (grace 0, uid
 * precondition) and delete the pet's VolumeAttachments on the node.
 */
export interface ForceDeleteLostPodStep extends PodRef {
  kind: "forceDeleteLostPod";
  node: string;
  /**
   * The node's Ready lastTransitionTime (ms) the plan saw: the executor does nothing when the
   * node's condition, read uncached, changed after it (the node came back since).
   */
  lostSince?: number;
  taintOutOfService: boolean;
  fenceId: string;
  /** The pet's claims: attachments of their volumes to `node` are deleted. */
  claimNames: string[];
}

export type StepKind = Step["kind"];

export interface PlanEvent {
  type: "Normal" | "Warning";
  reason: string;
  message: string;
  /** "petset" or the name of a pod. */
  object: string;
}

export interface Plan {
  /**
   * Independent writes, except that a createClaim precedes the createPod of its ordinal.
   * Each pod appears in at most one step. An executor may stop at the first failure: the next
   * sync plans again from fresh caches.
   */
  steps: Step[];
  status: PetSetStatus;
  /** Sync again after this long even if nothing changes (minReadySeconds, deadline). */
  requeueAfterMs?: number;
  events: PlanEvent[];
  /** Pets on lost nodes (node-failure.ts), for the metric petset_pets_on_lost_nodes. */
  lostPets?: LostPet[];
}
