/**
 * Plays the part of kube's StatefulSet controller (pkg/controller/statefulset) on the embedded
 * API server, which stores apps/v1 StatefulSets and ControllerRevisions but runs nothing. Test
 * code that drives StatefulSets (test/integration/adopt.test.ts) then runs unchanged on both
 * backends: on the real one kube-controller-manager does this, here `startStatefulSetStandIn`.
 *
 * Each pass, for every StatefulSet of the namespace that is not being deleted, it does what kube's
 * controller would, as far as a client can see:
 * - records the template as a ControllerRevision `<set>-<hash>` (data
 *   `{"spec":{"template":{…,"$patch":"replace"}}}`, the template's labels plus
 *   `controller.kubernetes.io/hash`, the set's annotations, a controller reference, the next
 *   `revision`), or reuses the one holding that template;
 * - adopts orphaned pods named `<set>-<ordinal>` that match the selector (controller reference);
 * - creates missing pets from the template with the identity labels
 *   (`statefulset.kubernetes.io/pod-name`, `apps.kubernetes.io/pod-index`,
 *   `controller-revision-hash`), hostname and subdomain, claim volumes, and their claims
 *   `<template>-<set>-<ordinal>` labelled with the selector's matchLabels (owned by the set
 *   when `whenDeleted: Delete`); the simulated kubelet binds and runs them (Ready);
 * - RollingUpdate: once every pet is Ready, deletes the highest-ordinal pet at or above the
 *   partition that is not on the update revision (it is recreated on it); OnDelete: never;
 * - writes status (replicas, ready/current/updated/available counts, revisions,
 *   observedGeneration) through the status subresource.
 *
 * Simplifications: pets are created in parallel (also under OrderedReady), minReadySeconds and
 * maxUnavailable are ignored, no scale-down, no revision history cleanup, no Events.
 */
import {
  AppsV1Api,
  CoreV1Api,
  type KubeConfig,
  type V1ControllerRevision,
  type V1OwnerReference,
  type V1PersistentVolumeClaim,
  type V1Pod,
  type V1StatefulSet,
} from "@kubernetes/client-node";

export const StatefulSetLabels = {
  revision: "controller-revision-hash",
  podName: "statefulset.kubernetes.io/pod-name",
  podIndex: "apps.kubernetes.io/pod-index",
  revisionHash: "controller.kubernetes.io/hash",
} as const;

export interface StatefulSetStandIn {
  /** One pass over every StatefulSet of the namespace. */
  syncAll(): Promise<void>;
  /** Stops the loop; throws the first unexpected error a pass met (conflicts are retried). */
  stop(): Promise<void>;
}

const SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/** fnv-1a (32 bit) of the revision's data, encoded as kube's rand.SafeEncodeString does. */
export function revisionHash(data: unknown): string {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(JSON.stringify(data), "utf8")) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return [...String(h)].map((c) => SAFE_ALPHABET[c.charCodeAt(0) % SAFE_ALPHABET.length]).join("");
}

const isReady = (pod: V1Pod) =>
  pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
const controllerOf = (o: { metadata?: { ownerReferences?: V1OwnerReference[] } }) =>
  o.metadata?.ownerReferences?.find((r) => r.controller);

function ownerRef(sts: V1StatefulSet): V1OwnerReference {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    name: sts.metadata?.name ?? "",
    uid: sts.metadata?.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

function statusCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown }).code;
  return typeof code === "number" ? code : undefined;
}

function matchesSelector(sts: V1StatefulSet, labels: Record<string, string> | undefined): boolean {
  return Object.entries(sts.spec?.selector?.matchLabels ?? {}).every(([k, v]) => labels?.[k] === v);
}

/** Runs passes every `intervalMs` until stop(): the reconcile cadence of a controller, not a wait. */
export function startStatefulSetStandIn(
  kubeConfig: KubeConfig,
  namespace: string,
  intervalMs = 100,
): StatefulSetStandIn {
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  let failure: unknown;
  let stopped = false;

  /** Adoption as kube's ClaimPods / ClaimRevisions do it: a patch naming the object's uid. */
  async function adopt<K extends "pods" | "controllerrevisions">(
    kind: K,
    name: string,
    uid: string | undefined,
    sts: V1StatefulSet,
  ): Promise<K extends "pods" ? V1Pod : V1ControllerRevision> {
    const body = [
      { op: "test", path: "/metadata/uid", value: uid },
      { op: "add", path: "/metadata/ownerReferences", value: [ownerRef(sts)] },
    ];
    const patched =
      kind === "pods"
        ? await core.patchNamespacedPod({ namespace, name, body })
        : await apps.patchNamespacedControllerRevision({ namespace, name, body });
    return patched as K extends "pods" ? V1Pod : V1ControllerRevision;
  }

  async function ensureRevision(sts: V1StatefulSet, owned: V1ControllerRevision[]) {
    const name = sts.metadata?.name ?? "";
    const data = { spec: { template: { ...sts.spec?.template, $patch: "replace" } } };
    const hash = revisionHash(data);
    const same = owned.find(
      (r) => r.metadata?.name === `${name}-${hash}` || JSON.stringify(r.data) === JSON.stringify(data),
    );
    if (same) return same;
    const revision = Math.max(0, ...owned.map((r) => r.revision)) + 1;
    return apps.createNamespacedControllerRevision({
      namespace,
      body: {
        apiVersion: "apps/v1",
        kind: "ControllerRevision",
        metadata: {
          name: `${name}-${hash}`,
          labels: { ...sts.spec?.template.metadata?.labels, [StatefulSetLabels.revisionHash]: hash },
          ...(sts.metadata?.annotations ? { annotations: { ...sts.metadata.annotations } } : {}),
          ownerReferences: [ownerRef(sts)],
        },
        data,
        revision,
      },
    });
  }

  async function createPet(sts: V1StatefulSet, ordinal: number, revision: string): Promise<void> {
    const name = sts.metadata?.name ?? "";
    const podName = `${name}-${ordinal}`;
    const template = sts.spec?.template;
    const claims = sts.spec?.volumeClaimTemplates ?? [];
    for (const t of claims) {
      const claimName = `${t.metadata?.name}-${podName}`;
      const body: V1PersistentVolumeClaim = {
        metadata: {
          name: claimName,
          labels: { ...t.metadata?.labels, ...sts.spec?.selector.matchLabels },
          ...(sts.spec?.persistentVolumeClaimRetentionPolicy?.whenDeleted === "Delete"
            ? { ownerReferences: [ownerRef(sts)] }
            : {}),
        },
        spec: t.spec,
      };
      await core.createNamespacedPersistentVolumeClaim({ namespace, body }).catch((err: unknown) => {
        if (statusCode(err) !== 409) throw err;
      });
    }
    const claimVolumes = claims.map((t) => ({
      name: t.metadata?.name ?? "",
      persistentVolumeClaim: { claimName: `${t.metadata?.name}-${podName}` },
    }));
    const volumes = [
      ...(template?.spec?.volumes ?? []).filter((v) => !claimVolumes.some((c) => c.name === v.name)),
      ...claimVolumes,
    ];
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: {
          name: podName,
          labels: {
            ...template?.metadata?.labels,
            [StatefulSetLabels.podName]: podName,
            [StatefulSetLabels.podIndex]: String(ordinal),
            [StatefulSetLabels.revision]: revision,
          },
          ...(template?.metadata?.annotations ? { annotations: template.metadata.annotations } : {}),
          ownerReferences: [ownerRef(sts)],
        },
        spec: {
          ...template?.spec,
          containers: template?.spec?.containers ?? [],
          hostname: podName,
          ...(sts.spec?.serviceName ? { subdomain: sts.spec.serviceName } : {}),
          ...(volumes.length > 0 ? { volumes } : {}),
        },
      },
    });
  }

  async function sync(sts: V1StatefulSet, revisions: V1ControllerRevision[], allPods: V1Pod[]) {
    const name = sts.metadata?.name ?? "";
    const uid = sts.metadata?.uid;
    if (sts.metadata?.deletionTimestamp) return;
    const owned: V1ControllerRevision[] = [];
    for (const r of revisions) {
      const owner = controllerOf(r);
      if (owner?.uid === uid) owned.push(r);
      else if (owner === undefined && matchesSelector(sts, r.metadata?.labels))
        // Orphaned history matching the selector is adopted, as kube's ClaimRevisions does.
        owned.push(await adopt("controllerrevisions", r.metadata?.name ?? "", r.metadata?.uid, sts));
    }
    owned.sort((a, b) => a.revision - b.revision);
    const update = await ensureRevision(sts, owned);
    const updateRevision = update.metadata?.name ?? "";
    const start = sts.spec?.ordinals?.start ?? 0;
    const replicas = sts.spec?.replicas ?? 1;
    const ordinals = Array.from({ length: replicas }, (_, i) => start + i);
    const pods = new Map<number, V1Pod>();
    for (const ordinal of ordinals) {
      const pod = allPods.find((p) => p.metadata?.name === `${name}-${ordinal}`);
      if (pod === undefined) continue;
      const owner = controllerOf(pod);
      if (
        owner === undefined &&
        matchesSelector(sts, pod.metadata?.labels) &&
        !pod.metadata?.deletionTimestamp
      )
        pods.set(ordinal, await adopt("pods", pod.metadata?.name ?? "", pod.metadata?.uid, sts));
      else if (owner?.uid === uid) pods.set(ordinal, pod);
    }
    const current = sts.status?.currentRevision ?? updateRevision;
    const partition =
      sts.spec?.updateStrategy?.type === "OnDelete"
        ? Number.POSITIVE_INFINITY
        : (sts.spec?.updateStrategy?.rollingUpdate?.partition ?? 0);
    for (const ordinal of ordinals) {
      if (pods.has(ordinal) || allPods.some((p) => p.metadata?.name === `${name}-${ordinal}`)) continue;
      await createPet(sts, ordinal, ordinal >= partition ? updateRevision : current);
    }
    const revisionOf = (p: V1Pod) => p.metadata?.labels?.[StatefulSetLabels.revision];
    const live = [...pods.values()];
    const settled =
      live.length === replicas && live.every((p) => isReady(p) && !p.metadata?.deletionTimestamp);
    if (settled && sts.spec?.updateStrategy?.type !== "OnDelete") {
      const outdated = [...pods.entries()]
        .filter(([ordinal, p]) => ordinal >= partition && revisionOf(p) !== updateRevision)
        .sort(([a], [b]) => b - a)[0];
      if (outdated)
        await core.deleteNamespacedPod({
          namespace,
          name: outdated[1].metadata?.name ?? "",
          body: { preconditions: { uid: outdated[1].metadata?.uid } },
        });
    }
    const ready = live.filter(isReady).length;
    const updated = live.filter((p) => revisionOf(p) === updateRevision).length;
    const allUpdated = updated === replicas && ready === replicas;
    const currentRevision = allUpdated ? updateRevision : current;
    await apps.replaceNamespacedStatefulSetStatus({
      namespace,
      name,
      body: {
        ...sts,
        status: {
          replicas: live.length,
          readyReplicas: ready,
          availableReplicas: ready,
          currentReplicas: live.filter((p) => revisionOf(p) === currentRevision).length,
          updatedReplicas: updated,
          currentRevision,
          updateRevision,
          observedGeneration: sts.metadata?.generation ?? 0,
          collisionCount: 0,
        },
      },
    });
  }

  async function syncAll(): Promise<void> {
    const [sets, revisions, pods] = await Promise.all([
      apps.listNamespacedStatefulSet({ namespace }),
      apps.listNamespacedControllerRevision({ namespace }),
      core.listNamespacedPod({ namespace }),
    ]);
    for (const sts of sets.items)
      await sync(sts, revisions.items, pods.items).catch((err: unknown) => {
        // A write raced another writer or the set went away: the next pass starts from fresh reads.
        if (statusCode(err) !== 409 && statusCode(err) !== 404) throw err;
      });
  }

  const loop = (async () => {
    while (!stopped) {
      try {
        await syncAll();
      } catch (err) {
        failure ??= err;
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();

  return {
    syncAll,
    async stop() {
      stopped = true;
      await loop;
      if (failure !== undefined) throw failure;
    },
  };
}
