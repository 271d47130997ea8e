/**
 * Which pets a step counts (steps.ts; docs/rollouts.md "Steps", "With roles"). Pure. The rules:
 *
 *  - A step counts pets, not ordinals: `pets: N` is N of the pets at or above the partition.
 *  - Without spec.roles they are the N highest ordinals: an effective partition, as apps/v1's.
 *  - With spec.roles they are taken in update order: pets that already run the target first (a
 *    pet a step moved stays counted whatever its role becomes), then pets in flux (no pod, or a
 *    terminating one: a pet being replaced keeps its place while its pod is gone), then
 *    followers, then pets of unknown role, then the leader; each group highest ordinal first. So a canary moves
 *    followers and the leader is in a step only when the step takes every pet (SPEC rule 11:
 *    the pet a canary protects most is the last it risks).
 *  - A canary step (more steps follow) whose only pet would be the leader (a partition or the
 *    replicas leave no other) does not move it: the step holds for a promotion and says so.
 *  - Pets are "at the target" when they run its content and are available (not terminating).
 */
import type { PetSetVersion } from "../../api/index.js";
import { isAvailable, isTerminating } from "./pod-health.js";
import type { StepsInput } from "./steps.js";
import type { PodView } from "./views.js";

function roleRank(input: StepsInput, pod: PodView | undefined): number {
  const roles = input.petSet.spec.roles;
  if (roles === undefined || pod === undefined) return 1;
  const value = pod.labels[roles.labelKey];
  if (value === undefined) return 1;
  return value === roles.leader ? 2 : 0;
}

function runsTarget(input: StepsInput, o: number, target: PetSetVersion): boolean {
  const pod = input.podsByOrdinal.get(o);
  return pod !== undefined && input.index.contentOf(pod) === target.spec.hash;
}

export function atTarget(input: StepsInput, o: number, target: PetSetVersion): boolean {
  const pod = input.podsByOrdinal.get(o);
  return (
    pod !== undefined &&
    !isTerminating(pod) &&
    input.index.contentOf(pod) === target.spec.hash &&
    isAvailable(pod, input.spec.minReadyMs, input.now)
  );
}

/** The pets at or above the user's partition, in the order steps take them (see the header). */
export function rankPets(input: StepsInput, target: PetSetVersion): number[] {
  const { spec } = input;
  const ordinals = spec.ordinals.filter((o) => o >= spec.partitionOrdinal).sort((a, b) => b - a);
  if (input.petSet.spec.roles === undefined) return ordinals;
  const key = (o: number) => {
    if (runsTarget(input, o, target)) return -2;
    const pod = input.podsByOrdinal.get(o);
    return pod === undefined || isTerminating(pod) ? -1 : roleRank(input, pod);
  };
  return ordinals.sort((a, b) => key(a) - key(b) || b - a);
}

/** How many pets from the start of `ranked` run the target (any state), in a row. */
export function leadingRunning(input: StepsInput, ranked: readonly number[], target: PetSetVersion): number {
  const i = ranked.findIndex((o) => !runsTarget(input, o, target));
  return i < 0 ? ranked.length : i;
}

/** How many pets from the start of `ranked` are at the target, available, in a row. */
export function leadingAtTarget(input: StepsInput, ranked: readonly number[], target: PetSetVersion): number {
  const i = ranked.findIndex((o) => !atTarget(input, o, target));
  return i < 0 ? ranked.length : i;
}

/**
 * A canary step's only pet is the leader, not at the target yet: its name, for the hold's
 * message. Undefined when the step may go on.
 */
export function leaderOnlyPet(
  input: StepsInput,
  selection: readonly number[],
  target: PetSetVersion,
): string | undefined {
  if (input.petSet.spec.roles === undefined || selection.length !== 1) return undefined;
  const o = selection[0] as number;
  const pod = input.podsByOrdinal.get(o);
  if (pod === undefined || isTerminating(pod) || runsTarget(input, o, target)) return undefined;
  return roleRank(input, pod) === 2 ? pod.name : undefined;
}
