/**
 * PodControl: the controller's only way to change pods. Every call that depends on what was
 * read carries a precondition (uid and resourceVersion), so a decision made on a stale cache
 * fails with 409 instead of acting on the wrong pod.
 */
import {
  CoreV1Api,
  type KubeConfig,
  PatchStrategy,
  type V1OwnerReference,
  type V1Pod,
} from "@kubernetes/client-node";
import { isNotFound } from "./api-errors.js";
import { asJson } from "./json-body.js";
import { metadataAnswer, metadataAnswerPatch } from "./metadata-answer.js";
import type { WriteCounter } from "./write-counter.js";

export interface PodControl {
  /** An uncached read (undefined when the pod does not exist): for pods no cache shows. */
  get(namespace: string, name: string): Promise<V1Pod | undefined>;
  /** If this returns without error, the pod exists: created now, with the uid returned. */
  create(namespace: string, pod: V1Pod): Promise<{ uid?: string | undefined }>;
  /**
   * Deletes exactly this incarnation of the pod. Resolves `deleted: false` when it was
   * already gone (NotFound): the caller's view was stale.
   */
  delete(
    namespace: string,
    name: string,
    uid: string,
    resourceVersion?: string,
  ): Promise<{ deleted: boolean }>;
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
  /**
   * In-place resize (planner/in-place-resize.ts): cpu/memory requests and limits of the named
   * containers through the pods/resize subresource (Kubernetes 1.33+; the main resource refuses
   * resource changes), one strategic merge patch with a resourceVersion precondition. Resolves
   * with the pod's new resourceVersion, for the next write of the same move.
   */
  resize(
    namespace: string,
    name: string,
    resourceVersion: string,
    resources: { container: string; requests?: Record<string, string>; limits?: Record<string, string> }[],
  ): Promise<{ resourceVersion: string }>;
  /**
   * Adopt or release: replaces metadata.ownerReferences (null removes them) with a JSON merge
   * patch carrying the pod's uid and resourceVersion, so it fails (409, or 422 for another
   * uid) if the pod changed since it was read. NotFound counts as done.
   */
  setOwnerReferences(
    namespace: string,
    name: string,
    uid: string,
    resourceVersion: string,
    ownerReferences: V1OwnerReference[] | null,
  ): Promise<void>;
}

export function createPodControl(kubeConfig: KubeConfig, writes: WriteCounter): PodControl {
  const api = kubeConfig.makeApiClient(CoreV1Api);
  return {
    async get(namespace, name) {
      try {
        return await api.readNamespacedPod({ namespace, name });
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    async create(namespace, pod) {
      writes.count("create", "pods");
      const send = asJson(pod, metadataAnswer());
      const created = await api.createNamespacedPod({ namespace, body: send.body }, send.options);
      return { uid: created.metadata?.uid };
    },
    async delete(namespace, name, uid, resourceVersion) {
      writes.count("delete", "pods");
      try {
        await api.deleteNamespacedPod(
          {
            name,
            namespace,
            body: { preconditions: { uid, ...(resourceVersion ? { resourceVersion } : {}) } },
          },
          metadataAnswer(),
        );
        return { deleted: true };
      } catch (err) {
        if (!isNotFound(err)) throw err;
        return { deleted: false };
      }
    },
    async patch(namespace, name, resourceVersion, patch) {
      writes.count("patch", "pods");
      const meta = (patch.metadata ?? {}) as Record<string, unknown>;
      await api.patchNamespacedPod(
        { name, namespace, body: { ...patch, metadata: { ...meta, resourceVersion } } },
        metadataAnswerPatch(PatchStrategy.MergePatch),
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
        metadataAnswerPatch(PatchStrategy.StrategicMergePatch),
      );
    },
    async resize(namespace, name, resourceVersion, resources) {
      writes.count("patch", "pods");
      const containers = resources.map((r) => ({
        name: r.container,
        resources: {
          ...(r.requests ? { requests: r.requests } : {}),
          ...(r.limits ? { limits: r.limits } : {}),
        },
      }));
      const pod = await api.patchNamespacedPodResize(
        { name, namespace, body: { metadata: { resourceVersion }, spec: { containers } } },
        metadataAnswerPatch(PatchStrategy.StrategicMergePatch),
      );
      return { resourceVersion: pod.metadata?.resourceVersion ?? resourceVersion };
    },
    async setOwnerReferences(namespace, name, uid, resourceVersion, ownerReferences) {
      writes.count("patch", "pods");
      try {
        await api.patchNamespacedPod(
          { name, namespace, body: { metadata: { uid, resourceVersion, ownerReferences } } },
          metadataAnswerPatch(PatchStrategy.MergePatch),
        );
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },
  };
}
