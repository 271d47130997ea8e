/**
 * Roles (spec.roles; docs/rollouts.md "Roles"). The app or a sidecar labels its pods
 * (`labelKey`, default petset.dev/role); petset never guesses. Pure. The rules:
 *
 *  - A pod labelled `leader` is a leader; one labelled anything else is a follower; one without
 *    the label has an unknown role. Labels are re-read on every sync, so the leader can move
 *    mid-rollout (a switchover, a failover) and the order follows it.
 *  - Rolling update order: followers first, highest ordinal first (the update rules and
 *    maxUnavailable apply as without roles). The leader's turn comes once no follower is left
 *    to update and every other pet is available (at the target, or at the kept old version
 *    while a given-up version's pods go first: those move later): with exactly one leader, pets
 *    of unknown role go then, and the leader's pet goes last, after its switchover hook. With more than
 *    one leader at that point the rollout waits, and says why in Progressing. With none (the
 *    leader is unknown) it waits half the progress deadline, saying so, then the pets left go
 *    in ordinal order with a Warning Event LeaderUnknown: bounded, never a stall.
 *  - Steps count pets, followers first and the leader last (step-pets.ts).
 *  - Switchover (`roles.switchover`, a hook like the lifecycle ones, run in the leader's pod):
 *    before the leader's pod is deleted or patched, with PETSET_CANDIDATE = the highest-ordinal
 *    available follower already at the target. Without a hook the leader simply goes last.
 *  - Scale-down never removes the leader's pod without a successful switchover first
 *    (candidate: the highest available pet that stays); without a switchover hook it waits,
 *    and says so. Each scale-down is its own occasion with its own switchover id
 *    (scale-down-hooks.ts): an update's switchover never counts for it.
 *  - A pod that is not Ready serves nothing: it is replaced whatever its role.
 */
import type { PetSetVersion } from "../../api/index.js";
import { gateHook, type HookRequest, hookId } from "./hooks.js";
import { event, inUpdateRange as isInUpdateRange, type PlanContext } from "./plan-context.js";
import { availableAt, isAvailable, isRunningAndReady, isTerminating } from "./pod-health.js";
import { scaleDownHookId, scaleDownRecord } from "./scale-down-hooks.js";
import { type PodView, toMillis } from "./views.js";

/** Event reason: the rollout goes on without knowing the leader (see leaderUnknown). */
export const LeaderUnknownReason = "LeaderUnknown";

export type Role = "leader" | "follower" | "unknown";

export function roleOf(ctx: PlanContext, pod: PodView): Role | undefined {
  const roles = ctx.input.petSet.spec.roles;
  if (roles === undefined) return undefined;
  const value = pod.labels[roles.labelKey];
  if (value === undefined) return "unknown";
  return value === roles.leader ? "leader" : "follower";
}

function liveLeaders(ctx: PlanContext): PodView[] {
  return [...ctx.podsByOrdinal.values()].filter((p) => !isTerminating(p) && roleOf(ctx, p) === "leader");
}

function available(ctx: PlanContext, pod: PodView): boolean {
  return isAvailable(pod, ctx.spec.minReadyMs, ctx.input.now);
}

/** The follower the leader role goes to: the highest-ordinal available pet at `content`, not `leader`. */
function candidateFor(ctx: PlanContext, leader: PodView, content: string | undefined): PodView | undefined {
  const inRange = new Set(ctx.spec.ordinals);
  return [...ctx.podsByOrdinal.values()]
    .filter((p) => p !== leader && inRange.has(p.ordinal) && !isTerminating(p) && available(ctx, p))
    .filter((p) => content === undefined || ctx.index.contentOf(p) === content)
    .sort((a, b) => b.ordinal - a.ordinal)[0];
}

/**
 * Ready update candidates (highest ordinal first) in role order; the ones not allowed to
 * move yet are left out. Without spec.roles: unchanged.
 */
export function orderByRole(ctx: PlanContext, candidates: readonly PodView[], mayMove = true): PodView[] {
  if (ctx.input.petSet.spec.roles === undefined) return [...candidates];
  const followers = candidates.filter((p) => roleOf(ctx, p) === "follower");
  const rest = candidates.filter((p) => roleOf(ctx, p) !== "follower");
  if (followers.length > 0 || rest.length === 0) return followers;
  // The leader's turn: every other pet in the update range runs the target, available. With two
  // old contents live the candidates are the given-up one's pods and the kept one's pods move
  // only after them (plan-context.ts chooseKeptOld): those count as done here, or nothing moves.
  const target = ctx.versions.target.spec.hash;
  const kept = ctx.keptOld?.spec.hash;
  const inUpdateRange = ctx.spec.ordinals.filter((o) => isInUpdateRange(ctx, o));
  const othersDone = inUpdateRange.every((o) => {
    const pod = ctx.podsByOrdinal.get(o);
    if (pod === undefined) return false;
    if (rest.includes(pod)) return true;
    const content = ctx.index.contentOf(pod);
    return (content === target || content === kept) && available(ctx, pod);
  });
  if (!othersDone) return [];
  const leaders = liveLeaders(ctx);
  const key = ctx.input.petSet.spec.roles.labelKey;
  const value = ctx.input.petSet.spec.roles.leader;
  if (leaders.length === 0) return leaderUnknown(ctx, rest, inUpdateRange, `${key}=${value}`, mayMove);
  if (leaders.length > 1) {
    ctx.roleProblems.push(
      `${leaders.length} pods are labelled ${key}=${value} (${leaders.map((p) => p.name).join(", ")}): the leader's pet goes last once exactly one is`,
    );
    return [];
  }
  const unknown = rest.filter((p) => roleOf(ctx, p) === "unknown");
  return unknown.length > 0 ? unknown : rest;
}

/**
 * No pod is labelled leader at the leader's turn (its pod was replaced and the app has not
 * labelled a new one, or the app labels nothing): wait half the progress deadline from when the
 * turn came (the last other pet became available at the target, or the rollout started), then
 * the pets left go in ordinal order, highest first, with a Warning Event (in a pass that has a
 * maxUnavailable slot for one of them). Bounded: it never runs into the deadline by itself.
 */
function leaderUnknown(
  ctx: PlanContext,
  rest: PodView[],
  inRange: readonly number[],
  label: string,
  mayMove: boolean,
): PodView[] {
  const names = rest.map((p) => p.name).join(", ");
  const turnAt = Math.max(
    toMillis(ctx.versions.target.status?.rolloutStartedAt) ?? ctx.input.now,
    ...inRange
      .map((o) => ctx.podsByOrdinal.get(o))
      .filter((p): p is PodView => p !== undefined && !rest.includes(p))
      .map((p) => availableAt(p, ctx.spec.minReadyMs) ?? ctx.input.now),
  );
  const goAt = turnAt + Math.floor(ctx.spec.deadlineMs / 2);
  if (ctx.input.now < goAt) {
    ctx.wakeAt.push(goAt);
    ctx.roleProblems.push(
      `no pod is labelled ${label}: the leader's pet is not known, ${names} wait (until ${new Date(goAt).toISOString()}, then they go in ordinal order)`,
    );
    return [];
  }
  ctx.roleProblems.push(`no pod is labelled ${label}: the leader is unknown, ${names} go in ordinal order`);
  // The Event goes with a pass that may move one of them (not every pass while one moves).
  if (mayMove)
    event(
      ctx,
      "Warning",
      LeaderUnknownReason,
      "petset",
      `PetSet ${ctx.spec.setName}: no pod is labelled ${label} for half the progress deadline; updating ${names} in ordinal order (highest first) without knowing the leader`,
    );
  return [...rest].sort((a, b) => b.ordinal - a.ordinal);
}

/** Is the pet in its switchover now (started, not cancelled)? It keeps its turn (labels move during one). */
export function inSwitchover(ctx: PlanContext, pod: PodView): boolean {
  if (ctx.input.petSet.spec.roles?.switchover === undefined) return false;
  const target = ctx.versions.target;
  const id = hookId(ctx, { hook: "switchover", holder: target, pod, toVersion: target.spec.version });
  const record = ctx.hooks.records.get(id)?.record;
  return record !== undefined && record.phase !== "Cancelled";
}

/** Before the leader's pod moves for an update: its switchover hook. "done" also without roles. */
export function gateLeaderSwitchover(ctx: PlanContext, pod: PodView, target: PetSetVersion): "done" | "wait" {
  const base: HookRequest = { hook: "switchover", holder: target, pod, toVersion: target.spec.version };
  // A switchover in flight is seen through even when the label already moved (the script
  // relabels before it answers): its record must end Succeeded, not Cancelled.
  const started = ctx.hooks.records.get(hookId(ctx, base))?.record;
  const inFlight = started !== undefined && started.phase !== "Cancelled";
  if (roleOf(ctx, pod) !== "leader" && !inFlight) return "done";
  const candidate = started?.candidate ?? candidateFor(ctx, pod, target.spec.hash)?.name;
  return gateHook(ctx, {
    ...base,
    ...(pod.version !== undefined ? { fromVersion: pod.version } : {}),
    ...(candidate !== undefined ? { candidate } : {}),
  });
}

/**
 * Before a condemned leader's pod is deleted: a switchover, or wait (and say why). The id is
 * the scale-down occasion's (scale-down-hooks.ts), never an update's; a switchover in flight is
 * seen through when the label already moved; a leader that is not Running and Ready serves
 * nothing and goes without one (as an update replaces it).
 */
export function gateCondemnedLeader(ctx: PlanContext, pod: PodView): "done" | "wait" {
  const roles = ctx.input.petSet.spec.roles;
  if (roles === undefined) return "done";
  const started = roles.switchover !== undefined ? scaleDownRecord(ctx, "switchover", pod) : undefined;
  const inFlight = started?.phase === "Running";
  if (roleOf(ctx, pod) !== "leader" && !inFlight) return "done";
  if (!inFlight && !isRunningAndReady(pod)) return "done";
  if (roles.switchover === undefined) {
    ctx.roleProblems.push(
      `the leader ${pod.name} is to be removed by scale-down and spec.roles.switchover is not set: it stays until another pet leads`,
    );
    return "wait";
  }
  const holder = ctx.index.byNumber(pod.version) ?? ctx.versions.current;
  const candidate = started?.candidate ?? candidateFor(ctx, pod, undefined)?.name;
  return gateHook(ctx, {
    hook: "switchover",
    holder,
    pod,
    id: scaleDownHookId(ctx, "switchover", pod),
    // The pod stays at its version: a Job handler takes that version's template.
    toVersion: holder.spec.version,
    ...(pod.version !== undefined ? { fromVersion: pod.version } : {}),
    ...(candidate !== undefined ? { candidate } : {}),
  });
}
