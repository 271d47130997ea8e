/**
 * Step-wise rollouts (spec.updateStrategy.rollingUpdate.steps; docs/rollouts.md "Steps"). Pure:
 * the planner asks `planSteps` for the effective partition of this pass; the state machine's
 * memory is the target version's `status.steps` (recorded with the version facts) and the
 * PetSet annotation petset.dev/promote, never the controller's memory. The rules:
 *
 * Which rollouts have steps:
 *  - RollingUpdate with steps (after the shorthands expand: `pauseOnSpecChange` is a first step
 *    `{pause: {}}`; `pauseAfterEachPet` is `{pets: 1}, {pause: {}}, ..., {pets: M-1}, {pause: {}}`
 *    for the M pets at or above the partition; then the rest as without steps).
 *  - Not the set's first version (creation makes every pet at once), not a target whose content
 *    is the current one, and not a rollback version (`rollbackOf`): those skip the steps.
 *  - The state lives on the target version, so a new target starts again at step 1.
 *
 * The machine, from the recorded step index i (0 when none is recorded):
 *  - promotion: petset.dev/promote=`<T>#<i+1>` passes step i+1 (1-based) of version T,
 *    `<T>#full` passes every step. Any other value is stale and ignored, so applying the same
 *    annotation twice promotes once.
 *  - `{pets: N}` (int, or percent of replicas rounded down and at least 1 as maxUnavailable):
 *    N pets may move, the N highest ordinals, or with spec.roles followers first and the leader
 *    last (step-pets.ts); when every one of them runs T, available, the step is passed. A canary
 *    step whose only pet would be the leader holds for a promotion and says so.
 *  - `{pause: {}}` holds until promoted; `{pause: {duration}}` also passes at pausedAt +
 *    duration (the injected clock; wakeAt). A pause freezes the pets: the count it holds is
 *    recorded when it begins, the previous `pets` count (0 when none) but no more than the pets
 *    that run T from the highest ordinal down then (a `pets` step promoted before it was
 *    reached, or a partition lowered during the pause, moves nothing more).
 *    While paused, only the pets that run T from the highest ordinal down stay in range, so a
 *    scale-down (which moves the top) cannot let a lower pet move.
 *  - Passing every step: the user's partition alone applies (the rollout finishes).
 *  - The effective partition is never lower than the user's: pets below it never move. With
 *    spec.roles the pets a step allows need not be contiguous: they are returned as `pets`.
 * The index, pausedAt, the count held, promotedAt and the promotion applied are recorded on T's status when
 * they change; the PetSet status (rolloutStep, Progressing=True/StepPaused) is derived from
 * them every pass, so a status wipe changes nothing.
 */
import {
  Annotations,
  type PetSet,
  type PetSetVersion,
  type PetSetVersionStatus,
  type RolloutStep,
} from "../../api/index.js";
import type { ResolvedSpec } from "./plan-context.js";
import type { RolloutVersions } from "./rollout-target.js";
import { atTarget, leaderOnlyPet, leadingAtTarget, leadingRunning, rankPets } from "./step-pets.js";
import type { VersionIndex } from "./version-index.js";
import type { PodView } from "./views.js";

export type VersionSteps = NonNullable<PetSetVersionStatus["steps"]>;

export interface StepsInput {
  petSet: PetSet;
  spec: ResolvedSpec;
  index: VersionIndex;
  versions: RolloutVersions;
  podsByOrdinal: ReadonlyMap<number, PodView>;
  now: number;
}

/** Where a step-wise rollout holds, for status and messages. */
export interface StepHold {
  version: number;
  /** Why it holds, besides the step itself (e.g. the only pet left is the leader). */
  note?: string;
  /** 0-based index of the step reached. */
  index: number;
  total: number;
  step: RolloutStep;
  waitingFor: "pets" | "promote" | "time";
  resumeAt?: number;
}

export interface StepsDecision {
  /** The first ordinal that may move in this pass (>= the user's partition). */
  partitionOrdinal: number;
  /** With spec.roles, while the steps hold: the only ordinals that may move (step-pets.ts). */
  pets?: ReadonlySet<number>;
  /** Set while the steps hold the rollout short of the user's partition. */
  hold?: StepHold;
  /** The target's new `status.steps`, when it changed. */
  record?: VersionSteps;
  wakeAt?: number;
  /** The last time a pause was passed (promoted or timed out): progress for the deadline. */
  progressAt?: number;
}

/** The steps of a rollout, shorthands expanded. */
export function expandSteps(petSet: PetSet): RolloutStep[] {
  const rolling = petSet.spec.updateStrategy.rollingUpdate;
  if (rolling === undefined) return [];
  const steps: RolloutStep[] = [];
  if (rolling.pauseOnSpecChange === true) steps.push({ pause: {} });
  if (rolling.steps !== undefined) steps.push(...rolling.steps);
  else if (rolling.pauseAfterEachPet === true) {
    const movable = Math.max(0, petSet.spec.replicas - rolling.partition);
    for (let n = 1; n < movable; n++) steps.push({ pets: n }, { pause: {} });
  }
  return steps;
}

/** `pets` as a count of replicas: percentages round down, never below 1 (as maxUnavailable). */
export function resolvePets(pets: number | string, replicas: number): number {
  if (typeof pets === "number") return Math.min(pets, replicas);
  const percent = Number.parseInt(pets.replace(/%$/, ""), 10);
  if (Number.isNaN(percent) || percent <= 0) return 0;
  return Math.min(replicas, Math.max(1, Math.floor((percent * replicas) / 100)));
}

const UNITS_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000 };

export function durationMs(duration: string): number | undefined {
  const m = /^([0-9]+)(s|m|h)$/.exec(duration);
  return m === null ? undefined : Number(m[1]) * (UNITS_MS[m[2] ?? "s"] ?? 1000);
}

/** "pets 2", "pets 50%", "pause", "pause 10m". */
export function describeStep(step: RolloutStep): string {
  if ("pets" in step) return `pets ${step.pets}`;
  return step.pause.duration !== undefined ? `pause ${step.pause.duration}` : "pause";
}

/** The pets count in force at step `i`: its own, or the last `pets` before it (0 if none). */
function countAt(steps: readonly RolloutStep[], i: number, replicas: number): number {
  for (let j = i; j >= 0; j--) {
    const step = steps[j];
    if (step !== undefined && "pets" in step) return resolvePets(step.pets, replicas);
  }
  return 0;
}

function parsePromotion(value: string | undefined): { version: number; step: number | "full" } | undefined {
  const m = /^([0-9]+)#([0-9]+|full)$/.exec(value?.trim() ?? "");
  if (m === null) return undefined;
  return { version: Number(m[1]), step: m[2] === "full" ? "full" : Number(m[2]) };
}

function stepsApply(input: StepsInput, steps: readonly RolloutStep[]): boolean {
  const { spec, versions, index } = input;
  const { target, current } = versions;
  if (!spec.rollingUpdate || steps.length === 0) return false;
  if (target.spec.rollbackOf !== undefined) return false;
  if (target.spec.hash === current.spec.hash) return false;
  return index.sorted[0]?.spec.version !== target.spec.version;
}

export function planSteps(input: StepsInput): StepsDecision {
  const { spec, versions, now } = input;
  const userPartition = spec.partitionOrdinal;
  const steps = expandSteps(input.petSet);
  if (!stepsApply(input, steps)) return { partitionOrdinal: userPartition };

  const target: PetSetVersion = versions.target;
  // One past the highest pet (reserved ordinals, ordinals.ts, may leave gaps below it).
  const end = (spec.ordinals.at(-1) ?? spec.start - 1) + 1;
  const ranked = rankPets(input, target);
  const selection = (count: number) => ranked.slice(0, Math.max(0, count));
  const recorded = target.status?.steps;
  let i = Math.min(recorded?.index ?? 0, steps.length);
  let pausedAt = recorded?.pausedAt;
  let held = recorded?.pets;
  let promotedAt = recorded?.promotedAt;
  let promotion = recorded?.promotion;

  const annotation = input.petSet.metadata.annotations?.[Annotations.promote];
  const asked = parsePromotion(annotation);
  if (asked !== undefined && asked.version === target.spec.version && annotation !== recorded?.promotion) {
    if (asked.step === "full" || asked.step === i + 1) {
      i = asked.step === "full" ? steps.length : i + 1;
      pausedAt = undefined;
      held = undefined;
      promotedAt = new Date(now).toISOString();
      promotion = annotation;
    }
  }

  let wakeAt: number | undefined;
  let progressAt = promotedAt !== undefined ? Date.parse(promotedAt) : undefined;
  let waitingFor: StepHold["waitingFor"] | undefined;
  let note: string | undefined;
  while (i < steps.length) {
    const step = steps[i] as RolloutStep;
    if ("pets" in step) {
      const pets = selection(countAt(steps, i, spec.replicas));
      const leader = i < steps.length - 1 ? leaderOnlyPet(input, pets, target) : undefined;
      if (leader !== undefined) {
        // A canary never risks the leader alone (step-pets.ts): hold until promoted.
        waitingFor = "promote";
        note = `the only pet this step may move is the leader ${leader} (spec.roles): it moves once promoted`;
        break;
      }
      if (!pets.every((o) => atTarget(input, o, target))) {
        waitingFor = "pets";
        break;
      }
      i++;
      continue;
    }
    const startedAt = pausedAt !== undefined ? Date.parse(pausedAt) : now;
    if (pausedAt === undefined) {
      pausedAt = new Date(now).toISOString();
      held = Math.min(countAt(steps, i, spec.replicas), leadingAtTarget(input, ranked, target));
    }
    const ms = step.pause.duration !== undefined ? durationMs(step.pause.duration) : undefined;
    if (ms !== undefined && now >= startedAt + ms) {
      progressAt = Math.max(progressAt ?? 0, startedAt + ms);
      i++;
      pausedAt = undefined;
      held = undefined;
      continue;
    }
    waitingFor = ms !== undefined ? "time" : "promote";
    if (ms !== undefined) wakeAt = startedAt + ms;
    break;
  }

  const next: VersionSteps = { index: i };
  if (pausedAt !== undefined) next.pausedAt = pausedAt;
  if (held !== undefined) next.pets = held;
  if (promotedAt !== undefined) next.promotedAt = promotedAt;
  if (promotion !== undefined) next.promotion = promotion;
  const decision: StepsDecision = { partitionOrdinal: userPartition };
  if (i < steps.length) {
    let count = held ?? countAt(steps, i, spec.replicas);
    // A pause freezes the pets even when the set is scaled meanwhile: the count held was taken
    // from the pets at T, and a scale-down moves the top. Only pets that run T now stay in range.
    if (pausedAt !== undefined) count = Math.min(count, leadingRunning(input, ranked, target));
    if (note !== undefined) count = 0;
    const pets = selection(count);
    if (input.petSet.spec.roles !== undefined) decision.pets = new Set(pets);
    else decision.partitionOrdinal = Math.max(userPartition, pets.length > 0 ? Math.min(...pets) : end);
  }
  if (!sameSteps(recorded, next)) decision.record = next;
  if (wakeAt !== undefined) decision.wakeAt = wakeAt;
  if (progressAt !== undefined && !Number.isNaN(progressAt)) decision.progressAt = progressAt;
  const step = steps[i];
  if (step !== undefined && waitingFor !== undefined) {
    decision.hold = { version: target.spec.version, index: i, total: steps.length, step, waitingFor };
    if (wakeAt !== undefined) decision.hold.resumeAt = wakeAt;
    if (note !== undefined) decision.hold.note = note;
  }
  return decision;
}

function sameSteps(a: VersionSteps | undefined, b: VersionSteps): boolean {
  return (
    a !== undefined &&
    a.index === b.index &&
    a.pausedAt === b.pausedAt &&
    a.pets === b.pets &&
    a.promotedAt === b.promotedAt &&
    a.promotion === b.promotion
  );
}

/** The Progressing message part for a hold: which step, and what it waits for. */
export function stepHoldMessage(setName: string, hold: StepHold): string {
  const at = `step ${hold.index + 1} of ${hold.total} (${describeStep(hold.step)}) of version ${hold.version}`;
  switch (hold.waitingFor) {
    case "pets":
      return `${at}: moving pets`;
    case "promote":
      return `${at}: ${hold.note !== undefined ? `${hold.note}; ` : ""}paused until promoted (kubectl petset promote ${setName})`;
    case "time":
      return `${at}: paused until ${new Date(hold.resumeAt ?? 0).toISOString()} or promoted (kubectl petset promote ${setName})`;
  }
}
