/**
 * A StatefulSet's pods and claims as kube 1.33 makes and reads them
 * (pkg/controller/statefulset/stateful_set_utils.go), as pure functions:
 * - pod `<set>-<ordinal>` (ordinal from the name's last `-<digits>`), made from a revision's
 *   template with generateName `<set>-`, the labels `statefulset.kubernetes.io/pod-name`,
 *   `apps.kubernetes.io/pod-index` and `controller-revision-hash`, hostname = its name,
 *   subdomain = serviceName, a controller reference, and one volume per claim template first;
 * - claim `<template>-<set>-<ordinal>`, labelled with the template's labels and the selector's
 *   matchLabels;
 * - which owner references a claim should carry under persistentVolumeClaimRetentionPolicy
 *   (the set's when whenDeleted=Delete and the pod is in range, the pod's when whenScaled=Delete
 *   and it is not; a claim another controller holds is left to it);
 * - health: Running and Ready, Available after minReadySeconds.
 */
import { isPlainObject, type KubeObject, type OwnerReference } from "../types.js";
import { controllerRefTo } from "./statefulset-revision.js";

type Obj = Record<string, unknown>;

export const StatefulSetPodLabels = {
  podName: "statefulset.kubernetes.io/pod-name",
  podIndex: "apps.kubernetes.io/pod-index",
  revision: "controller-revision-hash",
} as const;

const ORDINAL = /^(.*)-([0-9]+)$/;

/** getParentNameAndOrdinal: the set name and ordinal a pod name encodes (ordinal -1 if none). */
export function parentAndOrdinal(podName: string): { parent: string; ordinal: number } {
  const m = ORDINAL.exec(podName);
  if (!m) return { parent: "", ordinal: -1 };
  const ordinal = Number(m[2]);
  return { parent: m[1]!, ordinal: ordinal <= 2 ** 31 - 1 ? ordinal : -1 };
}

export function specOf(set: KubeObject): Obj {
  return (isPlainObject(set.spec) ? set.spec : {}) as Obj;
}

export function startOrdinal(set: KubeObject): number {
  const ordinals = specOf(set).ordinals;
  return isPlainObject(ordinals) && typeof ordinals.start === "number" ? ordinals.start : 0;
}

export function replicasOf(set: KubeObject): number {
  const r = specOf(set).replicas;
  return typeof r === "number" ? r : 1;
}

const statusOf = (pod: KubeObject): Obj => (isPlainObject(pod.status) ? pod.status : {}) as Obj;
export const phaseOf = (pod: KubeObject): string => String(statusOf(pod).phase ?? "");
export const isTerminating = (pod: KubeObject): boolean => pod.metadata.deletionTimestamp !== undefined;

function readyCondition(pod: KubeObject): Obj | undefined {
  const conds = statusOf(pod).conditions;
  return Array.isArray(conds)
    ? conds.find((c): c is Obj => isPlainObject(c) && c.type === "Ready")
    : undefined;
}

export function isRunningAndReady(pod: KubeObject): boolean {
  return phaseOf(pod) === "Running" && readyCondition(pod)?.status === "True";
}

export const isHealthy = (pod: KubeObject): boolean => isRunningAndReady(pod) && !isTerminating(pod);

/** When a Ready pod becomes available (ms), or undefined if it is not Ready. */
export function availableAt(pod: KubeObject, minReadySeconds: number): number | undefined {
  const ready = readyCondition(pod);
  if (ready?.status !== "True") return undefined;
  if (minReadySeconds <= 0) return Number.NEGATIVE_INFINITY;
  const since = Date.parse(String(ready.lastTransitionTime ?? ""));
  return Number.isNaN(since) ? Number.POSITIVE_INFINITY : since + minReadySeconds * 1000;
}

export const podRevision = (pod: KubeObject): string =>
  pod.metadata.labels?.[StatefulSetPodLabels.revision] ?? "";

function claimTemplates(set: KubeObject): Obj[] {
  const t = specOf(set).volumeClaimTemplates;
  return Array.isArray(t) ? t.filter(isPlainObject) : [];
}

const templateName = (t: Obj): string => String((isPlainObject(t.metadata) ? t.metadata.name : "") ?? "");

export function claimName(set: KubeObject, template: Obj, ordinal: number): string {
  return `${templateName(template)}-${set.metadata.name}-${ordinal}`;
}

/** getPersistentVolumeClaims: the claims the pod of `ordinal` uses, as they would be created. */
export function claimsFor(set: KubeObject, ordinal: number): KubeObject[] {
  const matchLabels =
    (isPlainObject(specOf(set).selector) ? (specOf(set).selector as Obj).matchLabels : {}) ?? {};
  return claimTemplates(set).map((t) => {
    const meta = (isPlainObject(t.metadata) ? t.metadata : {}) as Obj;
    const labels = {
      ...((meta.labels as Record<string, string> | undefined) ?? {}),
      ...(matchLabels as Obj),
    };
    return {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: {
        ...meta,
        name: claimName(set, t, ordinal),
        namespace: set.metadata.namespace,
        labels: labels as Record<string, string>,
      },
      spec: t.spec ?? {},
    } as KubeObject;
  });
}

/** newVersionedStatefulSetPod: the pod of `ordinal` from a revision's template. */
export function newPod(set: KubeObject, template: Obj, revisionName: string, ordinal: number): KubeObject {
  const name = `${set.metadata.name}-${ordinal}`;
  const meta = (isPlainObject(template.metadata) ? template.metadata : {}) as Obj;
  const podSpec = (isPlainObject(template.spec) ? structuredClone(template.spec) : {}) as Obj;
  const claims = claimTemplates(set);
  const claimVolumes = claims.map((t) => ({
    name: templateName(t),
    persistentVolumeClaim: { claimName: claimName(set, t, ordinal) },
  }));
  const others = (Array.isArray(podSpec.volumes) ? podSpec.volumes : []).filter(
    (v) => !(isPlainObject(v) && claims.some((t) => templateName(t) === v.name)),
  );
  const volumes = [...claimVolumes, ...others];
  const serviceName = specOf(set).serviceName;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      generateName: `${set.metadata.name}-`,
      namespace: set.metadata.namespace,
      labels: {
        ...((meta.labels as Record<string, string> | undefined) ?? {}),
        [StatefulSetPodLabels.podName]: name,
        [StatefulSetPodLabels.podIndex]: String(ordinal),
        [StatefulSetPodLabels.revision]: revisionName,
      },
      ...(isPlainObject(meta.annotations) ? { annotations: { ...(meta.annotations as Obj) } } : {}),
      ...(Array.isArray(meta.finalizers) ? { finalizers: [...meta.finalizers] } : {}),
      ownerReferences: [controllerRefTo(set)],
    },
    spec: {
      ...podSpec,
      ...(volumes.length > 0 ? { volumes } : {}),
      hostname: name,
      ...(typeof serviceName === "string" && serviceName !== "" ? { subdomain: serviceName } : {}),
    },
  } as KubeObject;
}

/** The identity labels a pod of the set must carry; undefined when it has them. */
export function missingIdentityLabels(pod: KubeObject, ordinal: number): Record<string, string> | undefined {
  const want = {
    [StatefulSetPodLabels.podName]: pod.metadata.name!,
    [StatefulSetPodLabels.podIndex]: String(ordinal),
  };
  const labels = pod.metadata.labels ?? {};
  return Object.entries(want).every(([k, v]) => labels[k] === v) ? undefined : want;
}

export function retentionPolicy(set: KubeObject): { whenDeleted: string; whenScaled: string } {
  const p = specOf(set).persistentVolumeClaimRetentionPolicy;
  const obj = (isPlainObject(p) ? p : {}) as Obj;
  return {
    whenDeleted: obj.whenDeleted === "Delete" ? "Delete" : "Retain",
    whenScaled: obj.whenScaled === "Delete" ? "Delete" : "Retain",
  };
}

function podRefTo(pod: { name: string; uid: string }): OwnerReference {
  return {
    apiVersion: "v1",
    kind: "Pod",
    name: pod.name,
    uid: pod.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

const refersTo = (r: OwnerReference, apiVersion: string, kind: string, name: string) =>
  r.apiVersion === apiVersion && r.kind === kind && r.name === name;

/**
 * updateClaimOwnerRefForSetAndPod / isClaimOwnerUpToDate: the claim's owner references the
 * retention policy wants, or undefined when they are right (or stale references to an earlier
 * set or pod of the same name make kube leave the claim alone).
 */
export function claimOwnersWanted(
  claim: KubeObject,
  set: KubeObject,
  pod: { name: string; uid: string },
  inRange: boolean,
): OwnerReference[] | undefined {
  const refs = claim.metadata.ownerReferences ?? [];
  const isSet = (r: OwnerReference) => refersTo(r, "apps/v1", "StatefulSet", set.metadata.name!);
  const isPod = (r: OwnerReference) => refersTo(r, "v1", "Pod", pod.name);
  if (refs.some((r) => (isSet(r) && r.uid !== set.metadata.uid) || (isPod(r) && r.uid !== pod.uid)))
    return undefined;
  const policy = retentionPolicy(set);
  const retainAll = policy.whenDeleted === "Retain" && policy.whenScaled === "Retain";
  const unexpected = !retainAll && refs.some((r) => r.controller === true && !isSet(r) && !isPod(r));
  const wanted = refs.filter((r) => !isSet(r) && !isPod(r));
  if (!unexpected) {
    if (policy.whenDeleted === "Delete" && (inRange || policy.whenScaled === "Retain"))
      wanted.push(controllerRefTo(set));
    if (policy.whenScaled === "Delete" && !inRange) wanted.push(podRefTo(pod));
  }
  const key = (r: OwnerReference) => `${r.uid}/${r.controller === true}`;
  const same = wanted.length === refs.length && wanted.every((r, i) => key(r) === key(refs[i]!));
  return same ? undefined : wanted;
}

/** PodClaimIsStale: a claim of the pod to create still refers to an earlier pod of that name. */
export function claimIsStale(set: KubeObject, claims: readonly KubeObject[], podName: string): boolean {
  if (retentionPolicy(set).whenScaled === "Retain") return false;
  return claims.some((c) =>
    (c.metadata.ownerReferences ?? []).some((r) => refersTo(r, "v1", "Pod", podName)),
  );
}
