/**
 * The model checker's roles and steps invariants (SPEC rule 11, issue 24 item 11), judged when
 * a replica's sync moves a pet (deletes or patches a pod for an update), on the view that sync
 * planned from: no controller can be held to what it was not told. See stale-model.ts.
 *
 *  - Leader last: under RollingUpdate with spec.roles, a Ready pod labelled leader is not moved
 *    while a Ready follower (labelled, not leader) at or above the partition, not terminating,
 *    still runs the leader's content, unless this same sync already moved that follower.
 *  - A pause holds: under RollingUpdate with steps, when the target version's recorded step
 *    (its status.steps) is a pause begun at pausedAt, neither promoted by the PetSet's
 *    petset.dev/promote (`<T>#<index+1>` or `<T>#full`, not the promotion already applied) nor
 *    past its duration at the plan's clock, no pet moves to the target: no pod running the
 *    current version is deleted for an update, none is patched to the target.
 * The steps are read from the spec as written (the schedules draw explicit steps, no shorthand),
 * durations parsed here: the check does not reuse the planner's step machine.
 */
import { Annotations } from "../../../../src/api/index.js";
import type { Step } from "../../../../src/controller/planner/index.js";
import type { InFlight } from "./stale-model.js";

type PodMove = Extract<Step, { kind: "deletePod" } | { kind: "patchPodImages" }>;

export function isUpdateMove(step: Step): step is PodMove {
  return (step.kind === "deletePod" && step.reason === "update") || step.kind === "patchPodImages";
}

/** What is wrong with the move on the view it was planned from (empty: nothing). */
export function judgeRolesAndSteps(f: InFlight, step: PodMove): string[] {
  return [leaderFirst(f, step), pauseIgnored(f, step)].filter((s): s is string => s !== undefined);
}

function leaderFirst(f: InFlight, step: PodMove): string | undefined {
  const spec = f.view.petSet.spec;
  if (spec.updateStrategy.type !== "RollingUpdate" || spec.roles === undefined) return undefined;
  const { labelKey, leader } = spec.roles;
  const pod = f.view.pods.find((p) => p.name === step.podName);
  if (pod === undefined || !pod.ready || pod.labels[labelKey] !== leader) return undefined;
  const from = spec.ordinals.start + (spec.updateStrategy.rollingUpdate?.partition ?? 0);
  const end = spec.ordinals.start + spec.replicas;
  const behind = f.view.pods.find(
    (p) =>
      p.labels[labelKey] !== undefined &&
      p.labels[labelKey] !== leader &&
      p.ready &&
      p.deletionTimestamp === undefined &&
      p.ordinal >= from &&
      p.ordinal < end &&
      p.hash === pod.hash &&
      !f.moved.has(p.name),
  );
  return behind === undefined ? undefined : `leader ${pod.name} moved before follower ${behind.name}`;
}

function durationMs(duration: string): number | undefined {
  const m = /^([0-9]+)(s|m|h)$/.exec(duration);
  const unit = { s: 1000, m: 60_000, h: 3_600_000 }[m?.[2] ?? ""];
  return m === null || unit === undefined ? undefined : Number(m[1]) * unit;
}

function pauseIgnored(f: InFlight, step: PodMove): string | undefined {
  const { petSet } = f.view;
  const steps = petSet.spec.updateStrategy.rollingUpdate?.steps;
  if (petSet.spec.updateStrategy.type !== "RollingUpdate" || steps === undefined) return undefined;
  const target = f.versions.at(-1);
  const held = target?.status?.steps;
  if (target === undefined || held?.pausedAt === undefined) return undefined;
  const at = steps[held.index];
  if (at === undefined || !("pause" in at)) return undefined;
  const promotion = petSet.metadata.annotations?.[Annotations.promote];
  const passes = [`${target.spec.version}#${held.index + 1}`, `${target.spec.version}#full`];
  if (promotion !== undefined && promotion !== held.promotion && passes.includes(promotion)) return undefined;
  const ms = at.pause.duration === undefined ? undefined : durationMs(at.pause.duration);
  if (ms !== undefined && f.plannedAt >= Date.parse(held.pausedAt) + ms) return undefined;
  const current = f.versions.find((v) => v.spec.version === petSet.status?.currentVersion);
  const pod = f.view.pods.find((p) => p.name === step.podName);
  const toTarget =
    step.kind === "patchPodImages"
      ? step.toVersion === target.spec.version
      : pod !== undefined && current !== undefined && pod.hash === current.spec.hash;
  if (!toTarget || current?.spec.hash === target.spec.hash) return undefined;
  return `moved ${step.podName} to v${target.spec.version} while step ${held.index + 1} (pause) holds`;
}
