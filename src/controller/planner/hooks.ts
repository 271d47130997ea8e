/**
 * Lifecycle hooks in the plan (docs/hooks.md). Pure: the planner asks `gateHook` whether a
 * hook is done before a move; the hook's state machine is its record on a version's status
 * (hook-records.ts), and the hook runner (src/controller/hooks) executes Running records and
 * writes their outcome. The rules:
 *
 * A gate, for one hook of one pet (or of the set):
 *  - no hook declared -> done.
 *  - no record, or Cancelled -> a new run: record Running, attempts+1, startedAt now -> wait.
 *  - Running -> wait, until startedAt + timeoutSeconds: then Failed ("timed out"), failures+1.
 *    A new leader counts the timeout from when it began driving, if later (takeover.ts).
 *  - Succeeded -> done.
 *  - Failed: while failures <= retries, a new run (same id); the PetSet annotation
 *    hooks.petset.dev/retry=`<id>#<attempts>` (kubectl petset hook retry) starts one more run with
 *    failures reset. Otherwise the failure policy, recorded once as the record's outcome:
 *    Ignore -> done (Event); Pause -> wait (Progressing=False HookFailed); Rollback (update hooks)
 *    -> roll back to lastCompleteVersion as autoRollback does (Pause when there is none).
 *  - Every Running record the pass did not ask for is Cancelled: a newer version or a rollback
 *    (ids carry the target version), a pause, a scale back up (the pet is no longer condemned),
 *    a deleted pod (ids carry its uid). Nothing stays stuck in a superseded hook.
 *
 * Hook points:
 *  - preRollout (set): when the target's content differs from the current one and the target is
 *    not the set's first version, before any pet moves: while it is not done the rollout holds
 *    (no relabel, update or announcement; missing pets are created at the current version).
 *  - preUpdate (pet): before a Ready pet is deleted or patched for an update. The pet keeps
 *    serving (it is not counted unavailable) but uses one of the maxUnavailable slots, so the
 *    hook never runs for more pets at once than may be updated. Pets already in the hook go
 *    first. Pods that are not Ready are replaced without it (they serve nothing; SPEC rule 4).
 *  - postUpdate (pet): on every available pod that started at the target (created or patched
 *    in place for it: annotation petset.dev/started-version; relabelled pods did not restart)
 *    while the target has not fully rolled out and is not the set's first version. Until it is
 *    done the pet counts as not yet updated: it uses a maxUnavailable slot and the rollout is
 *    not complete.
 *  - postRollout (set): once every pet runs the target, available, postUpdates done; until done
 *    the rollout is not complete and lastCompleteVersion does not move.
 *  - preScaleDown (pet): before each condemned pod is deleted (OrderedReady: the highest one,
 *    Parallel: all); the pod and its claims stay until it is done.
 */
import {
  Annotations,
  HookAnnotations,
  type HookName,
  type HookRecord,
  handlerKind,
  hookSpecOf,
  type PetSetVersion,
  RollbackHooks,
} from "../../api/index.js";
import { uidPrefix, writeRecord } from "./hook-records.js";
import { event, type PlanContext } from "./plan-context.js";
import { scaleDownHookId, skipExecOnUnreadyPod } from "./scale-down-hooks.js";
import { hookDeadline } from "./takeover.js";
import type { PodView } from "./views.js";

export const HookEventReasons = {
  started: "HookStarted",
  retried: "HookRetried",
  timedOut: "HookTimedOut",
  failed: "HookFailed",
  ignored: "HookFailureIgnored",
  cancelled: "HookCancelled",
} as const;

export interface HookRequest {
  hook: HookName;
  /** The version whose status keeps the record. */
  holder: PetSetVersion;
  pod?: PodView;
  fromVersion?: number;
  toVersion?: number;
  /** "old→new", for preScaleDown. */
  replicas?: string;
  /** switchover: the follower the leader role goes to. */
  candidate?: string;
  /** An id chosen by the caller (scale-down occasions, scale-down-hooks.ts). */
  id?: string;
}

export function hookId(ctx: PlanContext, req: HookRequest): string {
  if (req.id !== undefined) return req.id;
  const set = ctx.spec.setName;
  if (req.pod !== undefined) {
    const v = req.hook === "preScaleDown" ? "" : `.v${req.toVersion ?? 0}`;
    return `${req.hook}.${set}${v}.${req.pod.ordinal}.${uidPrefix(req.pod.uid)}`;
  }
  return `${req.hook}.${set}.v${req.toVersion ?? 0}.${uidPrefix(req.holder.metadata.uid)}`;
}

function describe(r: HookRecord): string {
  return r.pod !== undefined ? `${r.hook} on ${r.pod}` : `${r.hook} of version ${r.toVersion ?? "?"}`;
}

export function gateHook(ctx: PlanContext, req: HookRequest): "done" | "wait" {
  const spec = hookSpecOf(ctx.input.petSet.spec, req.hook);
  if (spec === undefined) return "done";
  const book = ctx.hooks;
  const id = hookId(ctx, req);
  book.requested.add(id);
  const now = ctx.input.now;
  const iso = new Date(now).toISOString();
  // A record stays on the version that holds it (a relabelled pod must not shadow it with a copy).
  const holder = book.records.get(id)?.holder ?? req.holder.spec.version;
  const existing = book.records.get(id)?.record;

  const start = (attempts: number, failures: number, reason: string): "wait" => {
    const record: HookRecord = {
      id,
      hook: req.hook,
      handler: handlerKind(spec),
      phase: "Running",
      attempts,
      failures,
      startedAt: iso,
      ...(req.pod !== undefined ? { ordinal: req.pod.ordinal, pod: req.pod.name, podUID: req.pod.uid } : {}),
      ...(req.fromVersion !== undefined ? { fromVersion: req.fromVersion } : {}),
      ...(req.toVersion !== undefined ? { toVersion: req.toVersion } : {}),
      ...(req.replicas !== undefined ? { replicas: req.replicas } : {}),
      ...(req.candidate !== undefined ? { candidate: req.candidate } : {}),
    };
    writeRecord(book, holder, record);
    book.waiting.push(record);
    ctx.wakeAt.push(now + spec.timeoutSeconds * 1000);
    event(
      ctx,
      "Normal",
      reason,
      req.pod?.name ?? "petset",
      `${describe(record)}: ${spec.exec ? "exec" : handlerKind(spec)} hook started (attempt ${attempts}, timeout ${spec.timeoutSeconds}s, id ${id})`,
    );
    return "wait";
  };

  if (existing === undefined || existing.phase === "Cancelled") {
    return start((existing?.attempts ?? 0) + 1, existing?.failures ?? 0, HookEventReasons.started);
  }
  if (existing.phase === "Succeeded") return "done";
  let record = existing;
  if (record.phase === "Running") {
    const deadline = hookDeadline(record.startedAt, spec.timeoutSeconds, ctx.input.drivingSince);
    if (Number.isNaN(deadline) || now < deadline) {
      book.waiting.push(record);
      if (!Number.isNaN(deadline)) ctx.wakeAt.push(deadline);
      return "wait";
    }
    record = {
      ...record,
      phase: "Failed",
      failures: record.failures + 1,
      finishedAt: iso,
      message: `timed out after ${spec.timeoutSeconds}s (timeoutSeconds)`,
    };
    writeRecord(book, holder, record);
    event(
      ctx,
      "Warning",
      HookEventReasons.timedOut,
      req.pod?.name ?? "petset",
      `${describe(record)}: ${record.message}`,
    );
  }
  // Failed.
  const retryAsked = ctx.input.petSet.metadata.annotations?.[HookAnnotations.retry];
  if (retryAsked === `${id}#${record.attempts}`) {
    return start(record.attempts + 1, 0, HookEventReasons.retried);
  }
  if (record.outcome === undefined && record.failures <= (spec.retries ?? 0)) {
    return start(record.attempts + 1, record.failures, HookEventReasons.retried);
  }
  const policy =
    spec.failurePolicy === "Rollback" && !RollbackHooks.includes(req.hook) ? "Pause" : spec.failurePolicy;
  const outcome = policy === "Ignore" ? "Ignored" : policy === "Rollback" ? "RolledBack" : "Paused";
  if (record.outcome !== outcome) {
    record = { ...record, outcome };
    writeRecord(book, holder, record);
    const what = `${describe(record)} failed after ${record.attempts} attempt(s): ${record.message ?? "no message"}`;
    if (outcome === "Ignored")
      event(ctx, "Warning", HookEventReasons.ignored, "petset", `${what}; continuing (failurePolicy Ignore)`);
    else
      event(
        ctx,
        "Warning",
        HookEventReasons.failed,
        "petset",
        `${what}; ${outcome === "Paused" ? "the rollout waits (failurePolicy Pause): fix it and run kubectl petset hook retry, or apply a new version" : "rolling back (failurePolicy Rollback)"}`,
      );
  }
  if (outcome === "Ignored") return "done";
  if (outcome === "RolledBack") book.rollback = record;
  else book.paused.push(record);
  return "wait";
}

/**
 * Cancel every Running record this pass did not ask for (see the header). A fence is judged only
 * with a node list (node-failure.ts): without one (a restarted controller's cache not synced
 * yet) nothing asked for it, and it is not cancelled for that.
 */
export function cancelUnrequestedHooks(ctx: PlanContext, why: string): void {
  const iso = new Date(ctx.input.now).toISOString();
  for (const [id, { record, holder }] of ctx.hooks.records) {
    if (record.phase !== "Running" || ctx.hooks.requested.has(id)) continue;
    if (record.hook === "fence" && ctx.input.nodes === undefined) continue;
    const cancelled: HookRecord = { ...record, phase: "Cancelled", finishedAt: iso, message: why };
    writeRecord(ctx.hooks, holder, cancelled);
    event(
      ctx,
      "Normal",
      HookEventReasons.cancelled,
      record.pod ?? "petset",
      `${describe(record)}: cancelled (${why})`,
    );
  }
}

/** The target is the set's first rolled-out version: nothing to update, no update hooks. */
function firstRollout(ctx: PlanContext): boolean {
  const t = ctx.versions.target.spec.version;
  return !ctx.index.sorted.some((v) => v.spec.version < t && v.status?.rolloutStartedAt !== undefined);
}

/**
 * The version the rollout to the target moves from: the current one, or once every pet runs
 * the target (it became current), the latest version below it that was current.
 */
function rolloutFrom(ctx: PlanContext): number | undefined {
  const { target, current } = ctx.versions;
  if (current.spec.version !== target.spec.version) return current.spec.version;
  const before = ctx.index.sorted.filter(
    (v) => v.spec.version < target.spec.version && v.status?.becameCurrentAt !== undefined,
  );
  before.sort((a, b) => (a.status?.becameCurrentAt ?? "").localeCompare(b.status?.becameCurrentAt ?? ""));
  return before.at(-1)?.spec.version;
}

/** preRollout: true when the rollout must hold (no pet moves to the target yet). */
export function holdForPreRollout(ctx: PlanContext): boolean {
  const { target, current } = ctx.versions;
  if (ctx.input.petSet.spec.lifecycle?.preRollout === undefined || ctx.spec.paused) return false;
  if (target.spec.hash === current.spec.hash || firstRollout(ctx)) return false;
  const req = {
    hook: "preRollout" as const,
    holder: target,
    fromVersion: current.spec.version,
    toVersion: target.spec.version,
  };
  return gateHook(ctx, req) === "wait";
}

/**
 * postUpdate on every available pod at the target's content while the target has not fully
 * rolled out. Returns the ordinals still waiting for it (they count as not yet updated).
 */
export function planPostUpdates(ctx: PlanContext, isAvailable: (pod: PodView) => boolean): Set<number> {
  const pending = new Set<number>();
  const { target } = ctx.versions;
  if (ctx.input.petSet.spec.lifecycle?.postUpdate === undefined) return pending;
  if (target.status?.fullyRolledOutAt !== undefined || firstRollout(ctx)) return pending;
  for (const pod of ctx.podsByOrdinal.values()) {
    if (pod.deletionTimestamp !== undefined || ctx.index.contentOf(pod) !== target.spec.hash) continue;
    // Only pods that started at the target (created or patched for it), not relabelled ones.
    if (pod.annotations[Annotations.startedVersion] !== String(target.spec.version)) continue;
    if (!isAvailable(pod)) continue;
    const from = rolloutFrom(ctx);
    const req: HookRequest = { hook: "postUpdate", holder: target, pod, toVersion: target.spec.version };
    if (from !== undefined) req.fromVersion = from;
    if (gateHook(ctx, req) === "wait") pending.add(pod.ordinal);
  }
  return pending;
}

/** postRollout once every pet runs the target (call only then): true while it is not done. */
export function holdForPostRollout(ctx: PlanContext): boolean {
  const { target } = ctx.versions;
  if (ctx.input.petSet.spec.lifecycle?.postRollout === undefined) return false;
  if (target.status?.fullyRolledOutAt !== undefined || firstRollout(ctx)) return false;
  const req: HookRequest = { hook: "postRollout", holder: target, toVersion: target.spec.version };
  const from = rolloutFrom(ctx);
  if (from !== undefined) req.fromVersion = from;
  return gateHook(ctx, req) === "wait";
}

/** preUpdate before a Ready pet moves: "done" when it may be deleted or patched now. */
export function gatePreUpdate(ctx: PlanContext, pod: PodView): "done" | "wait" {
  const target = ctx.versions.target;
  const req: HookRequest = { hook: "preUpdate", holder: target, pod, toVersion: target.spec.version };
  if (pod.version !== undefined) req.fromVersion = pod.version;
  return gateHook(ctx, req);
}

/** Is the pet in its preUpdate hook now (running or failed and paused)? It goes first. */
export function inPreUpdate(ctx: PlanContext, pod: PodView): boolean {
  if (ctx.input.petSet.spec.lifecycle?.preUpdate === undefined) return false;
  const target = ctx.versions.target;
  const id = hookId(ctx, { hook: "preUpdate", holder: target, pod, toVersion: target.spec.version });
  const record = ctx.hooks.records.get(id)?.record;
  return record !== undefined && record.phase !== "Cancelled";
}

/**
 * preScaleDown before a condemned pod is deleted: "done" when it may go now. Its id is the
 * scale-down occasion's; an exec hook on a pod that is not Running and Ready is skipped
 * (scale-down-hooks.ts).
 */
export function gatePreScaleDown(ctx: PlanContext, pod: PodView): "done" | "wait" {
  if (hookSpecOf(ctx.input.petSet.spec, "preScaleDown") === undefined) return "done";
  if (skipExecOnUnreadyPod(ctx, pod)) return "done";
  const holder = ctx.index.byNumber(pod.version) ?? ctx.versions.current;
  const live = [...ctx.podsByOrdinal.values()].filter((p) => p.deletionTimestamp === undefined).length;
  const req: HookRequest = {
    hook: "preScaleDown",
    holder,
    pod,
    replicas: `${live}→${ctx.spec.replicas}`,
    id: scaleDownHookId(ctx, "preScaleDown", pod),
  };
  if (pod.version !== undefined) req.fromVersion = pod.version;
  return gateHook(ctx, req);
}

/** Pods the rollout tells about a hook: for messages. */
export function hookWaitMessage(ctx: PlanContext): string {
  const running = ctx.hooks.waiting[0];
  if (running === undefined) return "";
  const more = ctx.hooks.waiting.length > 1 ? ` (+${ctx.hooks.waiting.length - 1} more)` : "";
  return `; waiting for hook ${describe(running)}${more}`;
}
