/**
 * Performs a plan's steps through the adapters. Steps run in order and the executor stops at
 * the first failure: the next sync plans again from fresh caches, so a half-done plan never
 * leaves anything the planner cannot see and finish.
 */
import type { V1PersistentVolumeClaim } from "@kubernetes/client-node";
import { Annotations, type PetSet, type PetSetVersion } from "../api/index.js";
import { createMergePatch } from "../util/merge-patch.js";
import { contentOf } from "../versions/content.js";
import type { ClaimControl } from "./claim-control.js";
import type { PetSetWriter, VersionControl } from "./petset-client.js";
import type { RollbackToStep, Step } from "./planner/index.js";
import type { PodControl } from "./pod-control.js";

export interface ExecutorDeps {
  pods: PodControl;
  claims: ClaimControl;
  petSets: PetSetWriter;
  versions: Pick<VersionControl, "recordStatus">;
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
    case "patchPodImages":
      return `update pod ${step.podName} in place to version ${step.toVersion}`;
    case "relabelPod":
      return `relabel pod ${step.podName} as version ${step.toVersion}`;
    case "annotateTargetVersion":
      return `annotate pod ${step.podName} with target version ${step.targetVersion}`;
    case "deleteClaim":
      return `delete claim ${step.claimName}`;
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
        const rv = await rollBack(deps, petSet, versions, ns, step);
        if (rv !== undefined) result.petSetResourceVersion = rv;
      } else {
        await executeStep(deps, ns, step);
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
  ns: string,
  step: Exclude<Step, RollbackToStep>,
): Promise<void> {
  switch (step.kind) {
    case "createClaim":
      return deps.claims.create(ns, step.claim as V1PersistentVolumeClaim);
    case "createPod":
      return deps.pods.create(ns, step.pod);
    case "deletePod":
      return deps.pods.delete(ns, step.podName, step.uid, step.resourceVersion);
    case "patchPodImages":
      return deps.pods.patchImages(ns, step.podName, step.resourceVersion, step.images, {
        labels: step.labels,
        annotations: step.annotations,
      });
    case "relabelPod":
      return deps.pods.patch(ns, step.podName, step.resourceVersion, {
        metadata: { labels: step.labels, annotations: step.annotations },
      });
    case "annotateTargetVersion":
      return deps.pods.patch(ns, step.podName, step.resourceVersion, {
        metadata: { annotations: { [Annotations.targetVersion]: String(step.targetVersion) } },
      });
    case "deleteClaim":
      return deps.claims.delete(ns, step.claimName, step.uid);
    case "recordVersionStatus":
      return deps.versions.recordStatus(ns, step.versionName, step.resourceVersion, step.status);
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
