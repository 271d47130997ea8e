/**
 * Performs a plan's steps through the adapters. Steps run in order and the executor stops at
 * the first failure: the next sync plans again from fresh caches, so a half-done plan never
 * leaves anything the planner cannot see and finish.
 *
 * Every write leaves an expectation (expectations.ts) of what the cache will show, also when
 * it failed because the view was stale (409 on a precondition, AlreadyExists, a delete that
 * found nothing): the next plan waits until the cache has caught up. Creates and deletes
 * record it before the request (expectBefore: kept when the answer is lost, withdrawn when the
 * API server refuses); patches after the answer. A delete that found nothing ends the plan
 * with StaleViewError: its other steps were decided on a stale view. A claim create that finds
 * the name taken goes on with the existing claim (existing-claim.ts).
 */
import type { V1PersistentVolumeClaim } from "@kubernetes/client-node";
import { Annotations, type PetSet, type PetSetVersion } from "../api/index.js";
import { createMergePatch } from "../util/merge-patch.js";
import { contentOf } from "../versions/content.js";
import { isConflict } from "./api-errors.js";
import type { ClaimControl } from "./claim-control.js";
import type { EventRecorder } from "./event-recorder.js";
import { useExistingClaim } from "./existing-claim.js";
import {
  type Expect,
  type Expectation,
  expectBefore,
  NO_RESEND,
  type ResendPolicy,
  sendWithIntent,
} from "./expectations.js";
import type { NodeFencing } from "./node-fencing.js";
import type { PetSetWriter, VersionControl } from "./petset-client.js";
import type {
  AnnotateTargetVersionStep,
  PatchPodImagesStep,
  RelabelPodStep,
  RollbackToStep,
  Step,
} from "./planner/index.js";
import type { PodControl } from "./pod-control.js";

export interface ExecutorDeps {
  pods: PodControl;
  claims: ClaimControl;
  petSets: PetSetWriter;
  versions: Pick<VersionControl, "recordStatus">;
  /** Receives what the cache must show before the next plan of this PetSet. */
  expect?: Expect;
  /** Tells the user about claims found in place of the ones the plan creates. */
  events?: EventRecorder;
  /** Moves pets off lost nodes after their fence (node-fencing.ts); none: such steps fail. */
  nodeFencing?: NodeFencing;
  /** How a create or delete whose answer was lost is resent (expectations.ts); default RESEND_LOST_ANSWER. */
  resend?: ResendPolicy;
}

/** The cache showed something the API no longer has: the plan was made on a stale view. */
export class StaleViewError extends Error {
  readonly reason = "StaleView";
  constructor(message: string) {
    super(message);
    this.name = "StaleViewError";
  }
}

/** A step failed; carries which step, so conditions and Events can name it. */
export class StepError extends Error {
  readonly reason = "StepFailed";
  constructor(
    readonly step: Step,
    override readonly cause: unknown,
  ) {
    super(`${describeStep(step)}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = "StepError";
  }
}

export function describeStep(step: Step): string {
  switch (step.kind) {
    case "createClaim":
      return `create claim ${step.claim.metadata?.name}`;
    case "createPod":
      return `create pod ${step.pod.metadata?.name}`;
    case "deletePod":
      return `delete pod ${step.podName} (${step.reason})`;
    case "forceDeleteLostPod":
      return `force-delete pod ${step.podName} on lost node ${step.node} (fence ${step.fenceId} succeeded)`;
    case "patchPodImages":
      return `update pod ${step.podName} in place to version ${step.toVersion}`;
    case "relabelPod":
      return `relabel pod ${step.podName} as version ${step.toVersion}`;
    case "annotateTargetVersion":
      return `annotate pod ${step.podName} with target version ${step.targetVersion}`;
    case "deleteClaim":
      return `delete claim ${step.claimName}`;
    case "patchClaim":
      return `update claim ${step.claimName} to version ${step.toVersion}${step.storage !== undefined ? ` (storage ${step.storage})` : ""}`;
    case "rollbackTo":
      return `roll back to version ${step.version}`;
    case "recordVersionStatus":
      return `record ${step.facts.join(", ")} on version ${step.versionName}`;
  }
}

export interface ExecutionResult {
  done: number;
  /** Set when a step wrote the PetSet itself (rollbackTo): its new resourceVersion. */
  petSetResourceVersion?: string;
}

export async function executeSteps(
  deps: ExecutorDeps,
  petSet: PetSet,
  versions: readonly PetSetVersion[],
  steps: readonly Step[],
): Promise<ExecutionResult> {
  const ns = petSet.metadata.namespace ?? "default";
  const result: ExecutionResult = { done: 0 };
  for (const step of steps) {
    try {
      if (step.kind === "rollbackTo") {
        const from = petSet.metadata.resourceVersion ?? "";
        const changed = { kind: "changed", resource: "petsets", name: petSet.metadata.name ?? "" } as const;
        const expectChange = () => deps.expect?.({ ...changed, uid: petSet.metadata.uid ?? "", from });
        const rv = await expectOnConflict(rollBack(deps, petSet, versions, ns, step), expectChange);
        expectChange();
        if (rv !== undefined) result.petSetResourceVersion = rv;
      } else {
        await executeStep(deps, petSet, step);
      }
      result.done++;
    } catch (err) {
      throw new StepError(step, err);
    }
  }
  return result;
}

async function executeStep(
  deps: ExecutorDeps,
  petSet: PetSet,
  step: Exclude<Step, RollbackToStep>,
): Promise<void> {
  const ns = petSet.metadata.namespace ?? "default";
  const expect = (e: Expectation) => deps.expect?.(e);
  switch (step.kind) {
    case "createClaim": {
      const name = step.claim.metadata?.name ?? "";
      const present = { kind: "present", resource: "persistentvolumeclaims", name } as const;
      const withdraw = deps.expect?.(present) ?? (() => {});
      const { created } = await sendWithIntent(
        withdraw,
        present,
        () => deps.claims.create(ns, step.claim as V1PersistentVolumeClaim),
        deps.resend,
      );
      if (created) return;
      if ((await useExistingClaim(deps, petSet, step, withdraw)) === "gone")
        throw new StaleViewError(
          `claim ${name} existed when created and is gone now: the cache is behind the API`,
        );
      return;
    }
    case "createPod": {
      const name = step.pod.metadata?.name ?? "";
      await expectBefore(
        deps.expect,
        { kind: "present", resource: "pods", name },
        () => deps.pods.create(ns, step.pod),
        deps.resend,
      );
      return;
    }
    case "deletePod": {
      const gone = { kind: "gone", resource: "pods", name: step.podName, uid: step.uid } as const;
      const changed = () =>
        expect({
          kind: "changed",
          resource: "pods",
          name: step.podName,
          uid: step.uid,
          from: step.resourceVersion,
        });
      const { deleted } = await expectBefore(
        deps.expect,
        gone,
        () => expectOnConflict(deps.pods.delete(ns, step.podName, step.uid, step.resourceVersion), changed),
        deps.resend,
      );
      if (!deleted)
        throw new StaleViewError(`pod ${step.podName} was already gone: the cache is behind the API`);
      return;
    }
    case "forceDeleteLostPod": {
      if (deps.nodeFencing === undefined) throw new Error("no node fencing adapter");
      const fencing = deps.nodeFencing;
      // Right before the delete, uncached: a node Ready again keeps its pet (node-fencing.ts).
      const node = await fencing.checkNode(step.node, step.taintOutOfService, step.lostSince);
      if (node === "ready")
        throw new StaleViewError(`node ${step.node} is Ready again (read uncached): ${step.podName} stays`);
      if (node === "changed")
        throw new StaleViewError(
          `node ${step.node} changed state since the plan's view (read uncached): ${step.podName} stays until a fence for this loss succeeds`,
        );
      const gone = { kind: "gone", resource: "pods", name: step.podName, uid: step.uid } as const;
      const deleted = await expectBefore(
        deps.expect,
        gone,
        () => fencing.forceDeletePod(ns, step.podName, step.uid),
        // Never resent: a force delete is sent only right after its uncached node check.
        NO_RESEND,
      );
      if (!deleted)
        throw new StaleViewError(`pod ${step.podName} was already gone: the cache is behind the API`);
      const attachments = await fencing.deleteAttachments(ns, step.node, step.claimNames);
      if (attachments.length > 0)
        await deps.events?.record(
          { apiVersion: "v1", kind: "Pod", namespace: ns, name: step.podName },
          {
            type: "Normal",
            reason: "VolumeAttachmentsDeleted",
            message: `deleted VolumeAttachments ${attachments.join(", ")} on lost node ${step.node}`,
          },
        );
      return;
    }
    case "deleteClaim": {
      const claim = { resource: "persistentvolumeclaims", name: step.claimName, uid: step.uid } as const;
      await expectBefore(deps.expect, { kind: "gone", ...claim }, () =>
        expectOnConflict(deps.claims.delete(ns, step.claimName, step.uid, step.resourceVersion), () =>
          expect({ kind: "changed", ...claim, from: step.resourceVersion }),
        ),
      );
      return;
    }
    case "patchClaim": {
      // A resourceVersion precondition, like a pod patch: expect the change after the answer.
      const changed = () =>
        expect({
          kind: "changed",
          resource: "persistentvolumeclaims",
          name: step.claimName,
          uid: step.uid,
          from: step.resourceVersion,
        });
      await expectOnConflict(deps.claims.follow(ns, step), changed);
      changed();
      return;
    }
    case "recordVersionStatus": {
      const changed = () =>
        expect({
          kind: "changed",
          resource: "petsetversions",
          name: step.versionName,
          from: step.resourceVersion,
        });
      const written = await expectOnConflict(
        deps.versions.recordStatus(ns, step.versionName, step.resourceVersion, step.status),
        changed,
      );
      // Nothing to wait for when nothing was written (the version is gone) or nothing changed.
      if (written.resourceVersion !== undefined && written.resourceVersion !== step.resourceVersion)
        changed();
      return;
    }
    default: {
      // Patches of an existing pod, each with a resourceVersion precondition.
      const changed = () =>
        expect({
          kind: "changed",
          resource: "pods",
          name: step.podName,
          uid: step.uid,
          from: step.resourceVersion,
        });
      await expectOnConflict(patchPod(deps, ns, step), changed);
      changed();
    }
  }
}

function patchPod(
  deps: ExecutorDeps,
  ns: string,
  step: PatchPodImagesStep | RelabelPodStep | AnnotateTargetVersionStep,
): Promise<void> {
  switch (step.kind) {
    case "patchPodImages":
      return patchInPlace(deps, ns, step);
    case "relabelPod":
      return deps.pods.patch(ns, step.podName, step.resourceVersion, {
        metadata: { labels: step.labels, annotations: step.annotations },
      });
    case "annotateTargetVersion":
      return deps.pods.patch(ns, step.podName, step.resourceVersion, {
        metadata: { annotations: { [Annotations.targetVersion]: String(step.targetVersion) } },
      });
  }
}

/**
 * Resources first (pods/resize), then images, labels and annotations with the resourceVersion
 * the resize returned: a pod that carries the target's labels has been asked for its resources,
 * and a move cut between the two writes is planned again (the resize then changes nothing).
 */
async function patchInPlace(deps: ExecutorDeps, ns: string, step: PatchPodImagesStep): Promise<void> {
  let resourceVersion = step.resourceVersion;
  if (step.resources !== undefined && step.resources.length > 0)
    ({ resourceVersion } = await deps.pods.resize(ns, step.podName, resourceVersion, step.resources));
  await deps.pods.patchImages(ns, step.podName, resourceVersion, step.images, {
    labels: step.labels,
    annotations: step.annotations,
  });
}

/** A 409 on a precondition means the cache is behind: expect it to move on, then rethrow. */
async function expectOnConflict<T>(write: Promise<T>, onConflict: () => void): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (isConflict(err)) onConflict();
    throw err;
  }
}

/** Writes the version's content back into the PetSet; resolves with its new resourceVersion. */
async function rollBack(
  deps: ExecutorDeps,
  petSet: PetSet,
  versions: readonly PetSetVersion[],
  ns: string,
  step: RollbackToStep,
): Promise<string | undefined> {
  const target = versions.find((v) => v.spec.version === step.version);
  if (!target) throw new Error(`version ${step.version} is not in history any more`);
  // Exactly version N's content: keys the broken version added are removed with nulls (a
  // plain merge patch would keep them, and the result would not equal version N).
  const content = contentOf(target);
  const spec = createMergePatch(
    { template: petSet.spec.template, volumeClaimTemplates: petSet.spec.volumeClaimTemplates },
    { template: content.template, volumeClaimTemplates: content.volumeClaimTemplates },
  );
  return deps.petSets.patch(ns, petSet.metadata.name ?? "", petSet.metadata.resourceVersion ?? "", {
    metadata: { annotations: { [Annotations.changeCause]: step.changeCause } },
    ...(spec === undefined ? {} : { spec }),
  });
}
