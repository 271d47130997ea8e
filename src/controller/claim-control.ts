/** ClaimControl: creates, labels, updates (claims follow versions) and deletes the pets' PersistentVolumeClaims. */
import {
  CoreV1Api,
  type KubeConfig,
  PatchStrategy,
  type V1OwnerReference,
  type V1PersistentVolumeClaim,
} from "@kubernetes/client-node";
import { isAlreadyExists, isNotFound } from "./api-errors.js";
import { asJson } from "./json-body.js";
import { metadataAnswer, metadataAnswerPatch } from "./metadata-answer.js";
import type { PatchClaimStep } from "./planner/index.js";
import type { WriteCounter } from "./write-counter.js";

export interface ClaimControl {
  /**
   * If this returns without error, the claim exists; an existing claim is never replaced
   * (`created: false`: the name was taken, and the caller decides what the claim is to it).
   */
  create(namespace: string, claim: V1PersistentVolumeClaim): Promise<{ created: boolean }>;
  /** An uncached read (undefined when the claim does not exist): for claims no cache shows. */
  get(namespace: string, name: string): Promise<V1PersistentVolumeClaim | undefined>;
  /**
   * Adds labels with a JSON merge patch carrying the resourceVersion that was read (409 if the
   * claim changed or was replaced since: a new incarnation has another resourceVersion).
   */
  addLabels(
    namespace: string,
    name: string,
    resourceVersion: string,
    labels: Record<string, string>,
  ): Promise<void>;
  /**
   * volumeClaimUpdatePolicy InPlace (planner/claim-updates.ts): one JSON merge patch with the
   * uid and resourceVersion read (409 if the claim changed since): the storage request when it
   * grows, labels, annotations, volumeAttributesClassName. Never anything else.
   */
  follow(
    namespace: string,
    step: Pick<
      PatchClaimStep,
      | "claimName"
      | "uid"
      | "resourceVersion"
      | "storage"
      | "labels"
      | "annotations"
      | "volumeAttributesClassName"
    >,
  ): Promise<void>;
  /**
   * Deletes exactly the claim the planner saw: uid and resourceVersion preconditions (SPEC
   * rule 7), so a claim recreated or changed since the read is kept (409 Conflict, and the
   * next sync decides again). NotFound counts as done.
   */
  delete(namespace: string, name: string, uid: string, resourceVersion: string): Promise<void>;
  /**
   * Adopt or release: replaces metadata.ownerReferences (null removes them) with a JSON merge
   * patch carrying the claim's uid and resourceVersion (409/422 if it changed since it was
   * read). NotFound counts as done.
   */
  setOwnerReferences(
    namespace: string,
    name: string,
    uid: string,
    resourceVersion: string,
    ownerReferences: V1OwnerReference[] | null,
  ): Promise<void>;
}

export function createClaimControl(kubeConfig: KubeConfig, writes: WriteCounter): ClaimControl {
  const api = kubeConfig.makeApiClient(CoreV1Api);
  return {
    async create(namespace, claim) {
      writes.count("create", "persistentvolumeclaims");
      try {
        const send = asJson(claim, metadataAnswer());
        await api.createNamespacedPersistentVolumeClaim({ namespace, body: send.body }, send.options);
        return { created: true };
      } catch (err) {
        // A claim that already exists is the pet's storage: keep it (stable storage).
        if (!isAlreadyExists(err)) throw err;
        return { created: false };
      }
    },
    async get(namespace, name) {
      try {
        return await api.readNamespacedPersistentVolumeClaim({ namespace, name });
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    async addLabels(namespace, name, resourceVersion, labels) {
      writes.count("patch", "persistentvolumeclaims");
      await api.patchNamespacedPersistentVolumeClaim(
        { name, namespace, body: { metadata: { resourceVersion, labels } } },
        metadataAnswerPatch(PatchStrategy.MergePatch),
      );
    },
    async follow(namespace, step) {
      writes.count("patch", "persistentvolumeclaims");
      await api.patchNamespacedPersistentVolumeClaim(
        { name: step.claimName, namespace, body: claimFollowPatch(step) },
        metadataAnswerPatch(PatchStrategy.MergePatch),
      );
    },
    async delete(namespace, name, uid, resourceVersion) {
      writes.count("delete", "persistentvolumeclaims");
      try {
        await api.deleteNamespacedPersistentVolumeClaim(
          {
            name,
            namespace,
            body: { preconditions: { uid, resourceVersion } },
          },
          metadataAnswer(),
        );
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },
    async setOwnerReferences(namespace, name, uid, resourceVersion, ownerReferences) {
      writes.count("patch", "persistentvolumeclaims");
      try {
        await api.patchNamespacedPersistentVolumeClaim(
          { name, namespace, body: { metadata: { uid, resourceVersion, ownerReferences } } },
          metadataAnswerPatch(PatchStrategy.MergePatch),
        );
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },
  };
}

/** The merge patch of ClaimControl.follow (exported for its unit test). */
export function claimFollowPatch(
  step: Pick<
    PatchClaimStep,
    "uid" | "resourceVersion" | "storage" | "labels" | "annotations" | "volumeAttributesClassName"
  >,
): Record<string, unknown> {
  const metadata: Record<string, unknown> = { uid: step.uid, resourceVersion: step.resourceVersion };
  if (Object.keys(step.labels).length > 0) metadata.labels = step.labels;
  if (Object.keys(step.annotations).length > 0) metadata.annotations = step.annotations;
  const spec: Record<string, unknown> = {};
  if (step.storage !== undefined) spec.resources = { requests: { storage: step.storage } };
  if (step.volumeAttributesClassName !== undefined)
    spec.volumeAttributesClassName = step.volumeAttributesClassName;
  return Object.keys(spec).length > 0 ? { metadata, spec } : { metadata };
}
