/**
 * PodControl: the controller's only way to change pods. Every call that depends on what was
 * read carries a precondition (uid and resourceVersion), so a decision made on a stale cache
 * fails with 409 instead of acting on the wrong pod.
 */
import {
  CoreV1Api,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Pod,
} from "@kubernetes/client-node";
import { isNotFound } from "./api-errors.js";
import type { WriteCounter } from "./write-counter.js";

export interface PodControl {
  /** If this returns without error, the pod exists (created now or earlier by us). */
  create(namespace: string, pod: V1Pod): Promise<void>;
  /** Deletes exactly this incarnation of the pod; NotFound counts as done. */
  delete(namespace: string, name: string, uid: string, resourceVersion?: string): Promise<void>;
  /** JSON merge patch guarded by resourceVersion: fails with 409 if the pod changed since it was read. */
  patch(
    namespace: string,
    name: string,
    resourceVersion: string,
    patch: Record<string, unknown>,
  ): Promise<void>;
  /**
   * In-place update: new images for the named containers plus label/annotation changes, in
   * one strategic merge patch (containers merge by name, as `kubectl set image` does), so the
   * restarted container sees the new downward-API values. resourceVersion precondition.
   */
  patchImages(
    namespace: string,
    name: string,
    resourceVersion: string,
    images: { container: string; image: string }[],
    meta: { labels: Record<string, string>; annotations: Record<string, string> },
  ): Promise<void>;
}

export function createPodControl(kubeConfig: KubeConfig, writes: WriteCounter): PodControl {
  const api = kubeConfig.makeApiClient(CoreV1Api);
  return {
    async create(namespace, pod) {
      writes.count("create", "pods");
      await api.createNamespacedPod({ namespace, body: pod });
    },
    async delete(namespace, name, uid, resourceVersion) {
      writes.count("delete", "pods");
      try {
        await api.deleteNamespacedPod({
          name,
          namespace,
          body: { preconditions: { uid, ...(resourceVersion ? { resourceVersion } : {}) } },
        });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },
    async patch(namespace, name, resourceVersion, patch) {
      writes.count("patch", "pods");
      const meta = (patch.metadata ?? {}) as Record<string, unknown>;
      await api.patchNamespacedPod(
        { name, namespace, body: { ...patch, metadata: { ...meta, resourceVersion } } },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      );
    },
    async patchImages(namespace, name, resourceVersion, images, meta) {
      writes.count("patch", "pods");
      await api.patchNamespacedPod(
        {
          name,
          namespace,
          body: {
            metadata: { resourceVersion, labels: meta.labels, annotations: meta.annotations },
            spec: { containers: images.map((i) => ({ name: i.container, image: i.image })) },
          },
        },
        setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch),
      );
    },
  };
}
