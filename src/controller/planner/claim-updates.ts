/**
 * Claims follow versions (spec.volumeClaimUpdatePolicy InPlace; docs/volumes.md). Pure. Under
 * the default OnClaimDelete nothing here acts: a changed template applies to claims created
 * later. Under InPlace a version describes a pet's pod and its storage, and the rules are:
 *
 *  - When: as part of a pet's move to the target, in the rollout's order and budget. The rolling
 *    update (pod-updates.ts) asks followClaims() where it would replace the pod, so partition,
 *    steps, maxUnavailable, roles and preUpdate apply unchanged; a pet created at the target
 *    (pet-creation.ts) gets its claims patched before its pod (claimsBeforeCreate). A pet outside
 *    the update range, or moving to any version but the target, is never touched here.
 *  - What, per claim template of the target and the pet's claim of that name:
 *    storage request grown → patched to max(template, claim status.capacity); labels, annotations
 *    (merged) and volumeAttributesClassName follow the template. Never a shrink. A missing claim
 *    (a template added) is created with the new pod, which mounts it (buildPod); a template
 *    removed leaves the claim in place (a rollout never deletes a claim), new pods stop mounting it.
 *  - Storage-only change (the pod template and the set of claim names are equal): no restart; the
 *    pod is relabelled to the target once every claim's status.capacity reaches its request
 *    (online expansion). A change that also needs a new pod: the claims are patched and the pod is
 *    replaced only once the resize is done or waits only for the node (NodeResizePending: the file
 *    system grows when the new pod mounts it). Either way a pet carries the target's labels only
 *    with every claim's request >= the target's and the target's labels (invariant-rules.ts).
 *  - Refused, never attempted: a smaller request (the move lowers the template below the claim;
 *    not for a rollback, whose claims stay larger: overSizedReplicas), a different storageClassName or accessModes, growth on a
 *    class with allowVolumeExpansion false (or no class found, when StorageClasses are known).
 *    The refusal belongs to the version: while one pet that may move to it is refused, no pet
 *    moves to it (pets already at it stay). No pod or claim is touched for it; Progressing=False reason ClaimUpdateRefused names the claim,
 *    the field and why with the way out (kubectl petset replace POD --claims recreate), a Warning
 *    Event once; the progress clock holds while it stands (no deadline, so no autoRollback).
 *  - Under podUpdatePolicy InPlaceOnly a change that needs a new pod is refused by
 *    in-place-resize.ts before any claim is patched; a storage-only change goes on as above.
 *  - A resize that fails (ControllerResizeError/NodeResizeError, Infeasible) or hangs is waited
 *    on like a pod that does not become Ready: it counts toward progressDeadlineSeconds and
 *    autoRollback; the Progressing message names it.
 *  - Status per claim template of the update version (claimTemplatesStatus): compatible (request
 *    and capacity >= template), updating (request >= template, capacity below), overSized.
 */
import type { ClaimTemplateStatus, PetSetStatus, PetSetVersion } from "../../api/index.js";
import { Annotations, ConditionTypes, claimName, ProgressingReasons, podName } from "../../api/index.js";
import { formatBytes, storageBytes, templateFacts } from "./claim-template.js";
import { event, inUpdateRange, moveContent, type PlanContext } from "./plan-context.js";
import { findCondition, setCondition } from "./plan-status.js";
import type { PatchClaimStep } from "./plan-types.js";
import { versionMarks } from "./pod-template.js";
import { canonicalJson } from "./version-index.js";
import type { ClaimView, PodView } from "./views.js";

export const ClaimEventReasons = { refused: "ClaimUpdateRefused", resizing: "ResizingClaim" } as const;

export interface ClaimRefusal {
  ordinal: number;
  claim: string;
  field: string;
  why: string;
}

interface PetClaims {
  refusal?: ClaimRefusal;
  patches: PatchClaimStep[];
  /** Claims whose request is the target's but whose capacity is not yet. */
  resizing: ClaimView[];
  failures: string[];
}

/** Refusals and resize failures found in one pass; the pass's scratch state, keyed by it. */
interface Notes {
  refusals: Map<number, ClaimRefusal>;
  failures: Set<string>;
  versionRefused?: boolean;
}
const found = new WeakMap<PlanContext, Notes>();
function notes(ctx: PlanContext) {
  let n = found.get(ctx);
  if (n === undefined) {
    n = { refusals: new Map(), failures: new Set() } as Notes;
    found.set(ctx, n);
  }
  return n;
}

export function claimsFollowVersions(ctx: Pick<PlanContext, "input">): boolean {
  return ctx.input.petSet.spec.volumeClaimUpdatePolicy === "InPlace";
}

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().join(",") === [...b].sort().join(",");

/** Why growing `claim` cannot be done by its class, if it cannot. */
function expansionRefused(ctx: PlanContext, claim: ClaimView): string | undefined {
  const classes = ctx.input.storageClasses;
  if (classes === undefined) return undefined;
  const name = claim.storageClassName ?? classes.find((c) => c.isDefault)?.name;
  if (name === undefined) return "the claim has no StorageClass, so it cannot be expanded";
  const cls = classes.find((c) => c.name === name);
  if (cls === undefined) return `StorageClass ${name} does not exist`;
  if (!cls.allowVolumeExpansion) return `StorageClass ${name} has allowVolumeExpansion false`;
  return undefined;
}

/** What pet `ordinal`'s existing claims need to be at `version`. */
export function petClaims(
  ctx: PlanContext,
  version: PetSetVersion,
  ordinal: number,
  from: PetSetVersion | undefined,
): PetClaims {
  const out: PetClaims = { patches: [], resizing: [], failures: [] };
  const rollback = version.spec.rollbackOf !== undefined;
  const fromRequest = (name: string) => {
    const t = from?.spec.volumeClaimTemplates.find((c) => c.metadata.name === name);
    return t === undefined ? undefined : storageBytes(templateFacts(t).request);
  };
  for (const t of version.spec.volumeClaimTemplates) {
    const want = templateFacts(t);
    const name = claimName(want.name, ctx.spec.setName, ordinal);
    const claim = ctx.claimsByName.get(name);
    if (claim === undefined || claim.deletionTimestamp !== undefined || claim.foreign === true) continue;
    const refuse = (field: string, why: string): PetClaims => ({
      ...out,
      refusal: { ordinal, claim: name, field, why },
    });
    if (want.storageClassName !== undefined && want.storageClassName !== claim.storageClassName)
      return refuse(
        "storageClassName",
        `a claim's class cannot change (${claim.storageClassName ?? "none"} -> ${want.storageClassName})`,
      );
    if (
      want.accessModes !== undefined &&
      claim.accessModes !== undefined &&
      !sameSet(want.accessModes, claim.accessModes)
    )
      return refuse(
        "accessModes",
        `a claim's access modes cannot change (${claim.accessModes.join(",")} -> ${want.accessModes.join(",")})`,
      );
    const wantBytes = storageBytes(want.request);
    const hasBytes = storageBytes(claim.storageRequest);
    const capacity = storageBytes(claim.capacity);
    let storage: string | undefined;
    if (wantBytes !== undefined && hasBytes !== undefined) {
      // A shrink is this move lowering the template: claims left larger by a rollback stay so.
      const lowered = from !== undefined && wantBytes < (fromRequest(want.name) ?? hasBytes);
      if (wantBytes < hasBytes && !rollback && lowered)
        return refuse(
          "resources.requests.storage",
          `a claim cannot shrink (${claim.storageRequest} -> ${want.request})`,
        );
      if (wantBytes > hasBytes) {
        const refused = expansionRefused(ctx, claim);
        if (refused !== undefined) return refuse("resources.requests.storage", refused);
        storage =
          capacity !== undefined && capacity > wantBytes ? formatBytes(capacity) : String(want.request);
      } else if (capacity !== undefined && capacity < wantBytes) {
        out.resizing.push(claim);
      }
    }
    if (claim.resizeError !== undefined)
      out.failures.push(`claim ${name}: resize failed: ${claim.resizeError}`);
    const labels = Object.fromEntries(Object.entries(want.labels).filter(([k, v]) => claim.labels[k] !== v));
    const have = claim.annotations ?? {};
    const annotations = Object.fromEntries(
      Object.entries(want.annotations).filter(([k, v]) => have[k] !== v),
    );
    const vac =
      want.volumeAttributesClassName !== undefined &&
      want.volumeAttributesClassName !== claim.volumeAttributesClassName
        ? want.volumeAttributesClassName
        : undefined;
    if (storage === undefined && vac === undefined && Object.keys({ ...labels, ...annotations }).length === 0)
      continue;
    out.patches.push({
      kind: "patchClaim",
      ordinal,
      claimName: name,
      uid: claim.uid,
      resourceVersion: claim.resourceVersion,
      ...(storage !== undefined ? { storage } : {}),
      labels,
      annotations,
      ...(vac !== undefined ? { volumeAttributesClassName: vac } : {}),
      toVersion: version.spec.version,
    });
  }
  return out;
}

/** The version a pod runs, as far as history tells. */
function versionOf(ctx: PlanContext, pod: PodView | undefined): PetSetVersion | undefined {
  if (pod === undefined) return undefined;
  return ctx.index.byNumber(pod.version) ?? ctx.index.newestWithHash(ctx.index.contentOf(pod));
}

/**
 * Is the move to the target refused for claims? The refusal belongs to the version: when any pet
 * that may move to it (update range, not at it yet) is refused, no pet moves (pets at it stay).
 * Computed once per pass; the refusals are recorded for the status.
 */
export function targetClaimsRefused(ctx: PlanContext): boolean {
  if (!claimsFollowVersions(ctx)) return false;
  const n = notes(ctx);
  if (n.versionRefused === undefined) {
    const target = ctx.versions.target;
    for (const ordinal of ctx.spec.ordinals) {
      if (!inUpdateRange(ctx, ordinal)) continue;
      const pod = ctx.podsByOrdinal.get(ordinal);
      if (pod !== undefined && ctx.index.contentOf(pod) === target.spec.hash) continue;
      const refusal = petClaims(ctx, target, ordinal, versionOf(ctx, pod)).refusal;
      if (refusal !== undefined) n.refusals.set(ordinal, refusal);
    }
    n.versionRefused = n.refusals.size > 0;
  }
  return n.versionRefused;
}

function pushPatches(ctx: PlanContext, patches: readonly PatchClaimStep[]): void {
  if (patches.length === 0) return;
  ctx.steps.push(...patches);
  ctx.moved = true;
}

/** Same pod for both versions: equal templates and the same claim names mounted. */
function podUnchanged(from: PetSetVersion, to: PetSetVersion): boolean {
  const names = (v: PetSetVersion) => v.spec.volumeClaimTemplates.map((t) => t.metadata.name).sort();
  return (
    canonicalJson(from.spec.template) === canonicalJson(to.spec.template) &&
    canonicalJson(names(from)) === canonicalJson(names(to))
  );
}

/**
 * Where the rolling update would replace `pod` with one of the target: true when this module
 * took care of the pet in this pass (claims patched or being resized, a storage-only move
 * relabelled, or refused), false when the pod is to be replaced now as usual.
 */
export function followClaims(ctx: PlanContext, pod: PodView): boolean {
  if (!claimsFollowVersions(ctx) || !inUpdateRange(ctx, pod.ordinal)) return false;
  const target = ctx.versions.target;
  if (targetClaimsRefused(ctx)) return true;
  const content = ctx.index.contentOf(pod);
  const from = versionOf(ctx, pod);
  const pet = petClaims(ctx, target, pod.ordinal, from);
  const n = notes(ctx);
  for (const f of pet.failures) n.failures.add(f);
  const storageOnly = from !== undefined && podUnchanged(from, target);
  // podUpdatePolicy InPlaceOnly refuses a move that needs a new pod (in-place-resize.ts): touch no claim for it.
  if (!storageOnly && ctx.spec.inPlaceOnly) return false;
  if (pet.patches.length > 0) {
    pushPatches(ctx, pet.patches);
    event(
      ctx,
      "Normal",
      ClaimEventReasons.resizing,
      pod.name,
      `pet ${pod.name}: claims ${pet.patches.map((p) => p.claimName).join(", ")} follow version ${target.spec.version}`,
    );
    return true;
  }
  const waiting = pet.resizing.filter((c) => storageOnly || c.nodeResizePending !== true);
  if (waiting.length > 0) return true;
  if (!storageOnly) return false;
  const marks = versionMarks(target);
  ctx.steps.push({
    kind: "relabelPod",
    podName: pod.name,
    ordinal: pod.ordinal,
    uid: pod.uid,
    resourceVersion: pod.resourceVersion,
    labels: marks.labels,
    annotations: { ...marks.annotations, [Annotations.targetVersion]: String(target.spec.version) },
    ...(pod.version !== undefined ? { fromVersion: pod.version } : {}),
    toVersion: target.spec.version,
  });
  ctx.touched.add(pod.name);
  moveContent(ctx, content, target.spec.hash);
  ctx.moved = true;
  return true;
}

/**
 * Before pet `ordinal` is created at `version`: patch its existing claims when the version is the
 * target and the pet may move (ordered before the pod by plan-rollout.ts). False when refused.
 */
export function claimsBeforeCreate(ctx: PlanContext, version: PetSetVersion, ordinal: number): boolean {
  if (!claimsFollowVersions(ctx) || version.spec.hash !== ctx.versions.target.spec.hash) return true;
  if (!inUpdateRange(ctx, ordinal)) return true;
  if (targetClaimsRefused(ctx)) return false;
  pushPatches(ctx, petClaims(ctx, version, ordinal, undefined).patches);
  return true;
}

/** A refusal stands in this pass: the progress clock holds (progress-deadline.ts). */
export function claimRefusalStands(ctx: PlanContext): boolean {
  return (found.get(ctx)?.refusals.size ?? 0) > 0;
}

/** The refusal's words: claim, field, why and the way out. */
export function refusalMessage(setName: string, version: number, r: ClaimRefusal): string {
  return `claim ${r.claim} cannot follow version ${version}: ${r.field}: ${r.why}; nothing of pet ${podName(setName, r.ordinal)} was changed. Revert the claim template, or rebuild the pet's storage with kubectl petset replace ${podName(setName, r.ordinal)} --claims recreate --yes (its data on that claim is lost)`;
}

/** status.volumeClaimTemplates: the pets' claims against each template of the update version. */
export function claimTemplatesStatus(ctx: PlanContext): ClaimTemplateStatus[] | undefined {
  const templates = ctx.versions.newest.spec.volumeClaimTemplates;
  if (templates.length === 0) return undefined;
  return templates.map((t) => {
    const want = storageBytes(templateFacts(t).request);
    const row: ClaimTemplateStatus = {
      name: t.metadata.name,
      compatibleReplicas: 0,
      updatingReplicas: 0,
      overSizedReplicas: 0,
    };
    let total = 0n;
    let known = false;
    for (const ordinal of ctx.spec.ordinals) {
      const claim = ctx.claimsByName.get(claimName(t.metadata.name, ctx.spec.setName, ordinal));
      if (claim === undefined) continue;
      const request = storageBytes(claim.storageRequest);
      const capacity = storageBytes(claim.capacity);
      if (capacity !== undefined) {
        total += capacity;
        known = true;
      }
      const size = capacity ?? request;
      if (want === undefined || size === undefined) continue;
      if (size > want) row.overSizedReplicas++;
      if (size >= want) row.compatibleReplicas++;
      else if (request !== undefined && request >= want) row.updatingReplicas++;
    }
    if (known) row.totalCapacity = formatBytes(total);
    return row;
  });
}

/**
 * After planStatus: status.volumeClaimTemplates, and a standing refusal as Progressing=False
 * reason ClaimUpdateRefused (a Warning Event when it is new); resize failures named in Progressing.
 */
export function withClaimStatus(ctx: PlanContext, status: PetSetStatus): PetSetStatus {
  const templates = claimTemplatesStatus(ctx);
  let out: PetSetStatus = templates !== undefined ? { ...status, volumeClaimTemplates: templates } : status;
  const n = found.get(ctx);
  if (n === undefined || ctx.spec.paused) return out;
  const progressing = findCondition(out.conditions, ConditionTypes.progressing);
  if (progressing === undefined) return out;
  const { now } = ctx.input;
  const generation = ctx.input.petSet.metadata.generation;
  const refusals = [...n.refusals.values()].sort((a, b) => b.ordinal - a.ordinal);
  const first = refusals[0];
  if (first !== undefined && progressing.reason !== ProgressingReasons.hookFailed) {
    const version = ctx.versions.target.spec.version;
    const others = refusals.length > 1 ? ` (and ${refusals.length - 1} more pet(s) refused likewise)` : "";
    const message = `PetSet ${ctx.spec.setName}: ${refusalMessage(ctx.spec.setName, version, first)}${others}`;
    const prev = findCondition(ctx.input.petSet.status?.conditions, ConditionTypes.progressing);
    if (prev?.reason !== ProgressingReasons.claimUpdateRefused || prev.message !== message)
      event(ctx, "Warning", ClaimEventReasons.refused, "petset", message);
    // Against the stored conditions, so lastTransitionTime holds while the refusal stands.
    const stored = setCondition(
      ctx.input.petSet.status?.conditions ?? [],
      {
        type: ConditionTypes.progressing,
        status: "False",
        reason: ProgressingReasons.claimUpdateRefused,
        message,
      },
      now,
      generation,
    );
    const refused = findCondition(stored, ConditionTypes.progressing);
    if (refused !== undefined)
      out = { ...out, conditions: [...out.conditions.filter((c) => c.type !== refused.type), refused] };
  } else if (n.failures.size > 0) {
    const message = `${progressing.message}; ${[...n.failures].join("; ")}`;
    const named = { ...progressing, message, reason: progressing.reason ?? ProgressingReasons.rollingOut };
    out = { ...out, conditions: setCondition(out.conditions, named, now, generation) };
  }
  return out;
}
