import type { PetSet, PetSetVersion } from "../../api/index.js";
import { Annotations, claimName } from "../../api/index.js";
import { claimsBeforeCreate } from "./claim-updates.js";
import type { HookBook } from "./hook-records.js";
import { resolveMaxUnavailable } from "./max-unavailable.js";
import { petOrdinals } from "./ordinals.js";
import type { DeletePodReason, PlanEvent, PlanInput, Step } from "./plan-types.js";
import { isRunningAndReady } from "./pod-health.js";
import { buildClaim, buildPod } from "./pod-template.js";
import type { RolloutVersions } from "./rollout-target.js";
import type { StepsDecision } from "./steps.js";
import type { VersionIndex } from "./version-index.js";
import type { ClaimView, PodView } from "./views.js";

/** The spec fields the planner uses, resolved once (defaults applied, percentages scaled). */
export interface ResolvedSpec {
  setName: string;
  replicas: number;
  start: number;
  /** The pets' ordinals, ascending: [start, start + replicas) minus reserveOrdinals (ordinals.ts). */
  ordinals: number[];
  orderedReady: boolean;
  rollingUpdate: boolean;
  /** First ordinal that moves to a new version: start + partition (RollingUpdate only). */
  partitionOrdinal: number;
  /** With spec.roles while steps hold: the only ordinals that may move (step-pets.ts). */
  stepPets?: ReadonlySet<number>;
  maxUnavailable: number;
  /** scaleStrategy.maxUnavailable resolved (Parallel only, scale-budget.ts); undefined: no limit. */
  scaleMaxUnavailable?: number;
  /** updateStrategy External: pods move only when asked (external.ts). */
  external: boolean;
  inPlace: boolean;
  /** podUpdatePolicy InPlaceOnly: never recreate a pod to move it (in-place-resize.ts). */
  inPlaceOnly: boolean;
  minReadyMs: number;
  deadlineMs: number;
  paused: boolean;
}

export function resolveSpec(petSet: PetSet): ResolvedSpec {
  const spec = petSet.spec;
  const rolling = spec.updateStrategy.rollingUpdate;
  const rollingUpdate = spec.updateStrategy.type === "RollingUpdate";
  const start = spec.ordinals.start;
  const scaleMax = spec.scaleStrategy?.maxUnavailable;
  return {
    setName: petSet.metadata.name ?? "",
    replicas: spec.replicas,
    start,
    ordinals: petOrdinals(start, spec.replicas, spec.reserveOrdinals),
    orderedReady: spec.podManagementPolicy === "OrderedReady",
    rollingUpdate,
    partitionOrdinal: start + (rollingUpdate ? (rolling?.partition ?? 0) : 0),
    maxUnavailable: resolveMaxUnavailable(rolling?.maxUnavailable ?? 1, spec.replicas),
    external: spec.updateStrategy.type === "External",
    inPlace: rolling?.podUpdatePolicy === "InPlaceIfPossible" || rolling?.podUpdatePolicy === "InPlaceOnly",
    inPlaceOnly: rolling?.podUpdatePolicy === "InPlaceOnly",
    minReadyMs: spec.minReadySeconds * 1000,
    deadlineMs: spec.progressDeadlineSeconds * 1000,
    paused: spec.paused,
    ...(scaleMax !== undefined && spec.podManagementPolicy === "Parallel"
      ? { scaleMaxUnavailable: resolveMaxUnavailable(scaleMax, spec.replicas) }
      : {}),
  };
}

/**
 * Mutable scratch state of one planning pass: the steps so far and what they imply (pods
 * touched, contents that will be live). Created per call, never shared.
 */
export interface PlanContext {
  readonly input: PlanInput;
  readonly spec: ResolvedSpec;
  readonly index: VersionIndex;
  readonly versions: RolloutVersions;
  /**
   * When two old contents are live besides the target's (e.g. current and a given-up in-flight
   * version), the one that stays until the other is gone; missing pets are refilled with it.
   */
  readonly keptOld: PetSetVersion | undefined;
  /** Pods with a valid ordinal, by ordinal. */
  readonly podsByOrdinal: ReadonlyMap<number, PodView>;
  readonly claimsByName: ReadonlyMap<string, ClaimView>;
  readonly steps: Step[];
  readonly events: PlanEvent[];
  /** Pods that already have a step in this plan (one step per pod). */
  readonly touched: Set<string>;
  /** Count of pods per content, including terminating pods and pods created by this plan. */
  readonly liveContents: Map<string, number>;
  /** Times (ms) at which something will change without an event: minReadySeconds, deadlines. */
  readonly wakeAt: number[];
  /** A step in this plan moves a pod (progress for the deadline). */
  moved: boolean;
  /** Hook records read from the versions and written by this pass (hooks.ts). */
  readonly hooks: HookBook;
  /** preRollout is not done: no pet moves to the target; missing pets are created at the old version. */
  holdAtCurrent: boolean;
  /** A postUpdate or postRollout hook is not done: the rollout is not complete. */
  hooksPending: boolean;
  /** The step-wise rollout (steps.ts): spec.partitionOrdinal above is already its partition. */
  readonly rolloutSteps: StepsDecision;
  /** Why the leader's pet waits (roles.ts), for the Progressing message. */
  readonly roleProblems: string[];
  /** Update requests refused under updateStrategy External (external.ts), moves refused under InPlaceOnly (in-place-resize.ts). */
  readonly externalRefusals: string[];
}

/** May pet `ordinal` move to the target in this pass (RollingUpdate: partition and steps)? */
export function inUpdateRange(ctx: Pick<PlanContext, "spec">, ordinal: number): boolean {
  const { spec } = ctx;
  if (!spec.rollingUpdate) return true;
  return ordinal >= spec.partitionOrdinal && (spec.stepPets?.has(ordinal) ?? true);
}

export function event(
  ctx: PlanContext,
  type: PlanEvent["type"],
  reason: string,
  object: string,
  message: string,
) {
  ctx.events.push({ type, reason, message, object });
}

/** Would running `hash` keep at most two contents live (SPEC rule 2)? */
export function contentAllowed(ctx: PlanContext, hash: string): boolean {
  if (ctx.liveContents.has(hash)) return true;
  return ctx.liveContents.size < 2;
}

export function moveContent(ctx: PlanContext, from: string | undefined, to: string): void {
  if (from !== undefined) {
    const left = (ctx.liveContents.get(from) ?? 1) - 1;
    if (left <= 0) ctx.liveContents.delete(from);
    else ctx.liveContents.set(from, left);
  }
  ctx.liveContents.set(to, (ctx.liveContents.get(to) ?? 0) + 1);
}

/**
 * The old content to keep while the other is replaced: the current version's if one of its
 * pods is Ready, else the one with the most Ready pods (ties: the newer version).
 */
export function chooseKeptOld(
  pods: readonly PodView[],
  index: VersionIndex,
  versions: RolloutVersions,
): PetSetVersion | undefined {
  const targetHash = versions.target.spec.hash;
  const ready = new Map<string, number>();
  for (const pod of pods) {
    const content = index.contentOf(pod);
    if (content === targetHash) continue;
    ready.set(content, (ready.get(content) ?? 0) + (isRunningAndReady(pod) ? 1 : 0));
  }
  if (ready.size < 2) return undefined;
  const currentHash = versions.current.spec.hash;
  if ((ready.get(currentHash) ?? 0) > 0) return versions.current;
  const ranked = [...ready.entries()]
    .map(([hash, count]) => ({ version: index.newestWithHash(hash), count }))
    .filter((e): e is { version: PetSetVersion; count: number } => e.version !== undefined)
    .sort((a, b) => b.count - a.count || b.version.spec.version - a.version.spec.version);
  return ranked[0]?.version;
}

/** Claims of `ordinal` for `version` that do not exist; undefined when one is being deleted. */
function missingClaims(ctx: PlanContext, version: PetSetVersion, ordinal: number) {
  const missing = [];
  for (const t of version.spec.volumeClaimTemplates) {
    const claim = ctx.claimsByName.get(claimName(t.metadata.name, ctx.spec.setName, ordinal));
    if (claim?.deletionTimestamp !== undefined) return undefined;
    if (claim === undefined) missing.push(t);
  }
  return missing;
}

/** Claims a running pod lacks (someone deleted them): recreate, as StatefulSets do. */
export function ensureClaims(ctx: PlanContext, version: PetSetVersion, ordinal: number): void {
  for (const t of missingClaims(ctx, version, ordinal) ?? []) {
    ctx.steps.push({ kind: "createClaim", ordinal, claim: buildClaim(ctx.input.petSet, t, ordinal) });
  }
}

/** Create pet `ordinal` at `version` with its claims. False when a claim is still terminating. */
export function createPet(ctx: PlanContext, version: PetSetVersion, ordinal: number): boolean {
  const missing = missingClaims(ctx, version, ordinal);
  if (missing === undefined) return false;
  if (!claimsBeforeCreate(ctx, version, ordinal)) return false;
  for (const t of missing) {
    ctx.steps.push({ kind: "createClaim", ordinal, claim: buildClaim(ctx.input.petSet, t, ordinal) });
  }
  const pod = buildPod(ctx.input.petSet, version, ordinal);
  const target = ctx.versions.target.spec.version;
  if (!ctx.spec.paused || ctx.versions.announced !== undefined) {
    const announced = ctx.spec.paused ? (ctx.versions.announced ?? target) : target;
    pod.metadata = {
      ...pod.metadata,
      annotations: { ...(pod.metadata?.annotations ?? {}), [Annotations.targetVersion]: String(announced) },
    };
  }
  ctx.steps.push({ kind: "createPod", ordinal, version: version.spec.version, pod });
  moveContent(ctx, undefined, version.spec.hash);
  ctx.moved = true;
  return true;
}

export function deletePod(ctx: PlanContext, pod: PodView, reason: DeletePodReason) {
  ctx.steps.push({
    kind: "deletePod",
    podName: pod.name,
    ordinal: pod.ordinal,
    uid: pod.uid,
    resourceVersion: pod.resourceVersion,
    reason,
    ...(pod.version !== undefined ? { fromVersion: pod.version } : {}),
  });
  ctx.touched.add(pod.name);
  ctx.moved = true;
}
