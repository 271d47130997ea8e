/**
 * Broken pets: the pets of the rollout's target version that will not become Ready without a
 * change, named on the PetSet at once instead of at the progress deadline (issue 31 item 2).
 * Report only: nothing the planner does (replace-broken, the deadline, autoRollback) reads it.
 * The rules (docs/rollouts.md "Broken pets"):
 *
 *  - Judged: live (not terminating) pods running the target version's content whose Ready
 *    condition is not True (a Ready pod whose in-place image change is pending is not judged).
 *  - Broken, first match wins, each described with its restarts and the target version:
 *     failing: a container waits with a reason after which it will not start without a change
 *       (CrashLoopBackOff: it restarted at this version and crashed again; ImagePullBackOff,
 *       ErrImagePull, CreateContainerConfigError, ...): `web-2: CrashLoopBackOff, 13 restarts, at version 4`;
 *     crash loop between two back-offs: a container runs again after a crash-loop back-off
 *       (views.ts restartedAfterBackOff), so a crash-looping pet stays named while it runs;
 *     Failed: the pod's phase;
 *     slow: not Ready (since its Ready condition last turned, else since creation) for at least
 *       the unready limit: `web-2: not Ready for 75s (limit 30s), at version 4`.
 *  - Unready limit: twice the set's slowest recent start, at least 30 s, at most the progress
 *    deadline (past it the deadline speaks). A start is creation -> Ready of a live, Ready pod of
 *    any version that never restarted (its Ready time is then its first), so an in-place update
 *    or a restart does not stretch it. No such pod: 30 s.
 *  - Named in the Progressing message, whatever its reason, after the rest of it, lowest
 *    ordinal first, at most MAX_NAMED, then a count (format: src/api/broken-pet-message.ts).
 *  - A Warning BrokenPet on the PetSet for each named pet the Progressing condition as stored
 *    does not name yet. The stored condition is API data: a restarted controller does not warn
 *    again; a pet that recovers and breaks again is warned about again. The Event's message has
 *    no counts or durations, so a repeat within the recorder's window (event-recorder.ts) is
 *    counted on the same Event rather than creating one: one Event per pet and breakage.
 *  - Wake: when a not-Ready target pet will reach the limit, so "slow" needs no other event.
 *
 * Pure: plain data and the injected `now` in, phrases out.
 */
import { type BrokenPet, brokenPetsSuffix, parseBrokenPets } from "../../api/broken-pet-message.js";
import { event, type PlanContext } from "./plan-context.js";
import { PlanEventReasons } from "./plan-events.js";
import { isRunningAndReady, isTerminating } from "./pod-health.js";
import type { PodView } from "./views.js";

export const MIN_UNREADY_LIMIT_MS = 30_000;
export const MAX_NAMED = 3;

export interface BrokenPetsInput {
  /** Every pod of the set, any version, terminating too. */
  pods: readonly PodView[];
  /** Does the pod run the target version's content? */
  atTarget: (pod: PodView) => boolean;
  targetVersion: number;
  deadlineMs: number;
  now: number;
  /** The Progressing message as stored: who was already named (and warned about). */
  previousMessage?: string | undefined;
}

export interface BrokenPetReport extends BrokenPet {
  /** What is wrong without counts or durations, for the Event: `CrashLoopBackOff`. */
  kind: string;
}

export interface BrokenPets {
  named: BrokenPetReport[];
  /** Broken pets beyond the named ones. */
  more: number;
  /** Named now and not by the previous message: a Warning each. */
  fresh: BrokenPetReport[];
  unreadyLimitMs: number;
  /** Times at which a not-Ready target pet reaches the limit. */
  wakeAt: number[];
}

/** Twice the slowest start of a live Ready pod that never restarted, within [30 s, deadline]. */
export function unreadyLimitMs(pods: readonly PodView[], deadlineMs: number): number {
  let slowest = 0;
  for (const pod of pods) {
    if (!isRunningAndReady(pod) || pod.restartCount > 0 || pod.readySince === undefined) continue;
    slowest = Math.max(slowest, pod.readySince - pod.createdAt);
  }
  return Math.max(MIN_UNREADY_LIMIT_MS, Math.min(2 * slowest, deadlineMs));
}

export function findBrokenPets(input: BrokenPetsInput): BrokenPets {
  const { now, targetVersion } = input;
  const limit = unreadyLimitMs(input.pods, input.deadlineMs);
  const broken: BrokenPetReport[] = [];
  const wakeAt: number[] = [];
  const judged = input.pods
    // Ready by its condition: not judged, even while an in-place image change is pending.
    .filter((p) => !isTerminating(p) && !p.ready && input.atTarget(p))
    .sort((a, b) => a.ordinal - b.ordinal);
  for (const pod of judged) {
    const restarts =
      pod.restartCount > 0 ? `, ${pod.restartCount} restart${pod.restartCount === 1 ? "" : "s"}` : "";
    const at = `at version ${targetVersion}`;
    const report = (kind: string, detail = kind) =>
      broken.push({ pet: pod.name, kind, problem: `${detail}${restarts}, ${at}` });
    if (pod.failing !== undefined) report(pod.failing);
    else if (pod.restartedAfterBackOff === true) report("CrashLoopBackOff");
    else if (pod.phase === "Failed") report("Failed");
    else {
      const since = pod.notReadySince ?? pod.createdAt;
      if (now - since >= limit)
        report(
          `not Ready for more than ${seconds(limit)}`,
          `not Ready for ${seconds(now - since)} (limit ${seconds(limit)})`,
        );
      else wakeAt.push(since + limit);
    }
  }
  const named = broken.slice(0, MAX_NAMED);
  const before = new Set(parseBrokenPets(input.previousMessage).named.map((p) => p.pet));
  return {
    named,
    more: broken.length - named.length,
    fresh: named.filter((p) => !before.has(p.pet)),
    unreadyLimitMs: limit,
    wakeAt,
  };
}

/**
 * For planStatus: `message` with the broken pets appended; a Warning per freshly named pet and
 * the wake times pushed onto the plan.
 */
export function reportBrokenPets(
  ctx: PlanContext,
  message: string,
  previousMessage: string | undefined,
): string {
  const { spec, versions, input } = ctx;
  const target = versions.target;
  const report = findBrokenPets({
    pods: [...ctx.podsByOrdinal.values()],
    atTarget: (pod) => ctx.index.contentOf(pod) === target.spec.hash,
    targetVersion: target.spec.version,
    deadlineMs: spec.deadlineMs,
    now: input.now,
    previousMessage,
  });
  ctx.wakeAt.push(...report.wakeAt);
  for (const pet of report.fresh) {
    const text = brokenPetEventMessage(
      spec.setName,
      pet,
      target.spec.version,
      input.petSet.spec.progressDeadlineSeconds,
      input.petSet.spec.autoRollback,
    );
    event(ctx, "Warning", PlanEventReasons.brokenPet, "petset", text);
  }
  return `${message}${brokenPetsSuffix(report.named, report.more)}`;
}

/** The Warning's message: what is wrong and what a user can do about it. */
export function brokenPetEventMessage(
  setName: string,
  pet: BrokenPetReport,
  targetVersion: number,
  deadlineSeconds: number,
  autoRollback: boolean,
): string {
  const wait = autoRollback
    ? `or it rolls back by itself after ${deadlineSeconds}s without progress (spec.autoRollback)`
    : `or the rollout fails after ${deadlineSeconds}s without progress (spec.progressDeadlineSeconds)`;
  return `PetSet ${setName}: pet ${pet.pet} is broken at version ${targetVersion}: ${pet.kind}; kubectl petset rollback ${setName} goes back, kubectl petset set image ${setName} rolls out a fix, ${wait}`;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)}s`;
}
