/** ClaimControl: creates and deletes the pets' PersistentVolumeClaims. */
import {
  CoreV1Api,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1OwnerReference,
  type V1PersistentVolumeClaim,
} from "@kubernetes/client-node";
import { isAlreadyExists, isNotFound } from "./api-errors.js";
import type { WriteCounter } from "./write-counter.js";

export interface ClaimControl {
  /** If this returns without error, the claim exists; an existing claim is never replaced. */
  create(namespace: string, claim: V1PersistentVolumeClaim): Promise<void>;
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
        await api.createNamespacedPersistentVolumeClaim({ namespace, body: claim });
      } catch (err) {
        // A claim that already exists is the pet's storage: keep it (stable storage).
        if (!isAlreadyExists(err)) throw err;
      }
    },
    async delete(namespace, name, uid, resourceVersion) {
      writes.count("delete", "persistentvolumeclaims");
      try {
        await api.deleteNamespacedPersistentVolumeClaim({
          name,
          namespace,
          body: { preconditions: { uid, resourceVersion } },
        });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },
    async setOwnerReferences(namespace, name, uid, resourceVersion, ownerReferences) {
      writes.count("patch", "persistentvolumeclaims");
      try {
        await api.patchNamespacedPersistentVolumeClaim(
          { name, namespace, body: { metadata: { uid, resourceVersion, ownerReferences } } },
          setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
        );
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },
  };
}
