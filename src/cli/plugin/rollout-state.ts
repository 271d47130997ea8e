import { type BrokenPet, parseBrokenPets } from "../../api/broken-pet-message.js";
import {
  type Condition,
  ConditionTypes,
  type PetSet,
  PetSetDefaults,
  type PetSetStatus,
  ProgressingReasons,
} from "../../api/index.js";
import { petOrdinals } from "../../controller/planner/ordinals.js";

/**
 * Where a PetSet's rollout stands, read from its status alone:
 *
 * - `observing`: the controller has not yet seen the latest spec (observedGeneration <
 *   generation), so the rest of the status describes an older spec;
 * - `complete`: Progressing has reason RolloutComplete and every pet the update strategy
 *   moves (ordinals >= partition) runs the update version;
 * - `failed`: Progressing is False with reason ProgressDeadlineExceeded or ClaimUpdateRefused;
 * - `paused`: `spec.paused`, or Progressing reason Paused;
 * - `stepPaused`: a step-wise rollout waits at a pause (Progressing reason StepPaused);
 * - `progressing`: anything else.
 *
 * Whatever the phase, the pets the Progressing message names as broken (format:
 * src/api/broken-pet-message.ts) are read out of it: `brokenPets`, and `message` without them.
 */
export type RolloutPhase = "observing" | "progressing" | "paused" | "stepPaused" | "complete" | "failed";

export interface RolloutState {
  readonly name: string;
  readonly phase: RolloutPhase;
  readonly generation: number | undefined;
  readonly observedGeneration: number | undefined;
  readonly desired: number;
  /** Pets the update strategy moves to the update version (all but those below the partition). */
  readonly toUpdate: number;
  readonly replicas: number;
  readonly updated: number;
  readonly ready: number;
  readonly available: number;
  readonly currentVersion: number | undefined;
  readonly updateVersion: number | undefined;
  readonly reason: string | undefined;
  /** The Progressing message without its broken-pet parts. */
  readonly message: string | undefined;
  /** Pets of the target version that will not become Ready without a change (at most 3). */
  readonly brokenPets: readonly BrokenPet[];
  /** Broken pets beyond those named. */
  readonly moreBroken: number;
  /** What a user can do about broken pets: the containers to `set image`, the deadline. */
  readonly containers: readonly string[];
  readonly progressDeadlineSeconds: number;
  readonly autoRollback: boolean;
  /** The step-wise rollout in flight (status.rolloutStep). */
  readonly step: NonNullable<PetSetStatus["rolloutStep"]> | undefined;
}

export function rolloutState(petSet: PetSet): RolloutState {
  const { spec, metadata } = petSet;
  const status = petSet.status;
  const progressing = findCondition(status?.conditions, ConditionTypes.progressing);
  const observed =
    metadata.generation === undefined ||
    (status?.observedGeneration !== undefined && status.observedGeneration >= metadata.generation);
  const toUpdate = petsToUpdate(petSet);
  const updated = status?.updatedReplicas ?? 0;
  const broken = parseBrokenPets(progressing?.message);
  const phase = ((): RolloutPhase => {
    if (!observed) return "observing";
    if (progressing?.reason === ProgressingReasons.progressDeadlineExceeded && progressing.status === "False")
      return "failed";
    // Claims follow versions (docs/volumes.md): a refused claim update waits for the user.
    if (progressing?.reason === ProgressingReasons.claimUpdateRefused && progressing.status === "False")
      return "failed";
    if (progressing?.reason === ProgressingReasons.rolloutComplete && updated >= toUpdate) return "complete";
    if (spec.paused || progressing?.reason === ProgressingReasons.paused) return "paused";
    if (progressing?.reason === ProgressingReasons.stepPaused) return "stepPaused";
    return "progressing";
  })();
  return {
    name: metadata.name ?? "",
    phase,
    generation: metadata.generation,
    observedGeneration: status?.observedGeneration,
    desired: spec.replicas,
    toUpdate,
    replicas: status?.replicas ?? 0,
    updated,
    ready: status?.readyReplicas ?? 0,
    available: status?.availableReplicas ?? 0,
    currentVersion: status?.currentVersion,
    updateVersion: status?.updateVersion,
    reason: progressing?.reason,
    message: progressing?.message === undefined ? undefined : broken.rest,
    brokenPets: broken.named,
    moreBroken: broken.more,
    containers: spec.template.spec.containers.map((c) => c.name),
    progressDeadlineSeconds: spec.progressDeadlineSeconds,
    autoRollback: spec.autoRollback,
    step: status?.rolloutStep,
  };
}

/** Pets with an ordinal at or above the partition: the ones a RollingUpdate moves. */
function petsToUpdate(petSet: PetSet): number {
  const { replicas, ordinals, updateStrategy } = petSet.spec;
  if (updateStrategy.type !== "RollingUpdate") return replicas;
  const start = ordinals.start ?? PetSetDefaults.ordinalsStart;
  const partition = updateStrategy.rollingUpdate?.partition ?? PetSetDefaults.partition;
  const first = Math.max(start, partition);
  // The pets' ordinals skip spec.reserveOrdinals (planner/ordinals.ts).
  return petOrdinals(start, replicas, petSet.spec.reserveOrdinals).filter((o) => o >= first).length;
}

function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Exit codes of `kubectl petset status`: 0 complete, 1 failed, 2 not complete in time. */
export const StatusExit = { complete: 0, failed: 1, timeout: 2 } as const;
