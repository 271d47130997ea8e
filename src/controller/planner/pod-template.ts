import type {
  V1Container,
  V1EnvVar,
  V1OwnerReference,
  V1PersistentVolumeClaim,
  V1Pod,
  V1PodSpec,
  V1Volume,
} from "@kubernetes/client-node";
import {
  Annotations,
  API_VERSION,
  type ClaimTemplate,
  claimName,
  EnvVars,
  Labels,
  PETSET_KIND,
  type PetSet,
  type PetSetVersion,
  podName,
} from "../../api/index.js";

/**
 * Every pod gets a downward-API volume with its labels and annotations, mounted read-only
 * into every container, so a pet sees `petset.dev/target-version` change live (env vars are
 * fixed when a container starts). A template that already uses the name or the path wins:
 * the volume or the mount is then left out.
 */
export const PodInfoVolume = {
  name: "petset-podinfo",
  mountPath: "/etc/petset",
  labelsFile: "labels",
  annotationsFile: "annotations",
} as const;

export function ownerReferenceTo(petSet: PetSet): V1OwnerReference {
  return {
    apiVersion: API_VERSION,
    kind: PETSET_KIND,
    name: petSet.metadata.name ?? "",
    uid: petSet.metadata.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** Labels and annotations that say which version a pod runs (also used to relabel and patch). */
export function versionMarks(version: PetSetVersion): {
  labels: Record<string, string>;
  annotations: Record<string, string>;
} {
  return {
    labels: { [Labels.version]: String(version.spec.version), [Labels.hash]: version.spec.hash },
    annotations: { [Annotations.generation]: String(version.spec.generation) },
  };
}

function fieldEnv(name: string, fieldPath: string): V1EnvVar {
  return { name, valueFrom: { fieldRef: { apiVersion: "v1", fieldPath } } };
}

const injectedEnv: V1EnvVar[] = [
  fieldEnv(EnvVars.version, `metadata.labels['${Labels.version}']`),
  fieldEnv(EnvVars.generation, `metadata.annotations['${Annotations.generation}']`),
  fieldEnv(EnvVars.ordinal, `metadata.labels['${Labels.podIndex}']`),
];
const injectedNames = new Set(injectedEnv.map((e) => e.name));

function withPetSetEnv(container: V1Container, mountInfo: boolean): V1Container {
  const env = [...(container.env ?? []).filter((e) => !injectedNames.has(e.name)), ...injectedEnv];
  const mounts = container.volumeMounts ?? [];
  const mountTaken = mounts.some((m) => m.mountPath === PodInfoVolume.mountPath);
  const volumeMounts =
    mountInfo && !mountTaken
      ? [...mounts, { name: PodInfoVolume.name, mountPath: PodInfoVolume.mountPath, readOnly: true }]
      : container.volumeMounts;
  return { ...container, env, ...(volumeMounts !== undefined ? { volumeMounts } : {}) };
}

/**
 * The desired pod of pet `ordinal` at `version`: name `<set>-<ordinal>`, identity labels,
 * hostname/subdomain, claim volumes, downward-API env and volume, controller ownerReference.
 * Pure: the same input always gives the same pod (no timestamps, no random names).
 */
export function buildPod(petSet: PetSet, version: PetSetVersion, ordinal: number): V1Pod {
  const setName = petSet.metadata.name ?? "";
  const name = podName(setName, ordinal);
  const template = structuredClone(version.spec.template);
  const marks = versionMarks(version);
  const spec = template.spec as unknown as V1PodSpec;

  const claimVolumes: V1Volume[] = version.spec.volumeClaimTemplates.map((t) => ({
    name: t.metadata.name,
    persistentVolumeClaim: { claimName: claimName(t.metadata.name, setName, ordinal) },
  }));
  const claimVolumeNames = new Set(claimVolumes.map((v) => v.name));
  const volumes = [...(spec.volumes ?? []).filter((v) => !claimVolumeNames.has(v.name)), ...claimVolumes];
  const addInfoVolume = !volumes.some((v) => v.name === PodInfoVolume.name);
  if (addInfoVolume) {
    volumes.push({
      name: PodInfoVolume.name,
      downwardAPI: {
        items: [
          { path: PodInfoVolume.labelsFile, fieldRef: { apiVersion: "v1", fieldPath: "metadata.labels" } },
          {
            path: PodInfoVolume.annotationsFile,
            fieldRef: { apiVersion: "v1", fieldPath: "metadata.annotations" },
          },
        ],
      },
    });
  }

  const podSpec: V1PodSpec = {
    ...spec,
    containers: spec.containers.map((c) => withPetSetEnv(c, addInfoVolume)),
    ...(spec.initContainers !== undefined
      ? { initContainers: spec.initContainers.map((c) => withPetSetEnv(c, false)) }
      : {}),
    volumes,
    hostname: name,
  };
  if (petSet.spec.serviceName) podSpec.subdomain = petSet.spec.serviceName;

  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      ...(petSet.metadata.namespace !== undefined ? { namespace: petSet.metadata.namespace } : {}),
      labels: {
        ...(template.metadata?.labels ?? {}),
        [Labels.petSet]: setName,
        ...marks.labels,
        [Labels.podIndex]: String(ordinal),
      },
      annotations: { ...(template.metadata?.annotations ?? {}), ...marks.annotations },
      ownerReferences: [ownerReferenceTo(petSet)],
    },
    spec: podSpec,
  };
}

/**
 * The claim of pet `ordinal` from a volumeClaimTemplate. With whenDeleted=Delete the claim is
 * owned by the PetSet, so the API server's garbage collector deletes it with the PetSet even
 * when the controller never sees the deletion.
 */
export function buildClaim(
  petSet: PetSet,
  template: ClaimTemplate,
  ordinal: number,
): V1PersistentVolumeClaim {
  const setName = petSet.metadata.name ?? "";
  const copy = structuredClone(template);
  const ownedBySet = petSet.spec.persistentVolumeClaimRetentionPolicy.whenDeleted === "Delete";
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: {
      name: claimName(template.metadata.name, setName, ordinal),
      ...(petSet.metadata.namespace !== undefined ? { namespace: petSet.metadata.namespace } : {}),
      labels: {
        ...((copy.metadata.labels as Record<string, string> | undefined) ?? {}),
        ...(petSet.spec.selector.matchLabels ?? {}),
        [Labels.petSet]: setName,
        [Labels.podIndex]: String(ordinal),
      },
      ...(ownedBySet ? { ownerReferences: [ownerReferenceTo(petSet)] } : {}),
    },
    spec: (copy.spec ?? {}) as V1PersistentVolumeClaim["spec"],
  };
}
