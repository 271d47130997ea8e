/**
 * The pod and claims of a pet, built from a version's content (pure). The content is the
 * template exactly as the user wrote it, and that is what the version hash covers; what this
 * file adds (identity labels, ownerReference, claim volumes, `PETSET_*` env, the pod-info
 * volume) is added at build time, so changing it changes no hash and restarts no pet.
 */
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
import { STATE_FORMAT, STATE_FORMAT_ANNOTATION } from "../../api/state-format.js";

/**
 * Every pod gets a projected downward-API volume mounted read-only at `/etc/petset/` in every
 * container and init container, so a running pet sees relabels and target announcements live:
 * the kubelet rewrites downward-API files when labels or annotations change, whereas env vars
 * keep the value they had when the container started. One file per fact (`petset`, `version`,
 * `generation`, `target-version`, `ordinal`; empty while the fact is absent, e.g. before the
 * first rollout announces a target) plus the whole `labels` and `annotations`.
 *
 * The user's template wins over ours: a template volume named `petset-podinfo` keeps that
 * name and no container gets our mount; a container that mounts anything at, below or above
 * `/etc/petset` keeps its mounts and gets none of ours (two mounts on one path are invalid, and
 * a mount nested in another needs a directory the outer, possibly read-only, volume lacks).
 */
export const PodInfoVolume = {
  name: "petset-podinfo",
  mountPath: "/etc/petset",
  files: {
    petSet: "petset",
    version: "version",
    generation: "generation",
    targetVersion: "target-version",
    ordinal: "ordinal",
    labels: "labels",
    annotations: "annotations",
  },
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

/**
 * Labels and annotations that say which version a pod runs (also used to relabel and patch),
 * with the state format they are written in (src/controller/state-format.ts).
 */
export function versionMarks(version: PetSetVersion): {
  labels: Record<string, string>;
  annotations: Record<string, string>;
} {
  return {
    labels: { [Labels.version]: String(version.spec.version), [Labels.hash]: version.spec.hash },
    annotations: {
      [Annotations.generation]: String(version.spec.generation),
      [STATE_FORMAT_ANNOTATION]: String(STATE_FORMAT),
    },
  };
}

const fieldRef = (fieldPath: string) => ({ apiVersion: "v1", fieldPath });
const label = (key: string) => `metadata.labels['${key}']`;
const annotation = (key: string) => `metadata.annotations['${key}']`;

/**
 * First in every container's env: Kubernetes expands `$(VAR)` only from entries listed
 * earlier, so a user variable such as `PEER=db-$(PETSET_ORDINAL)` needs ours before it.
 */
const injectedEnv: V1EnvVar[] = [
  { name: EnvVars.version, valueFrom: { fieldRef: fieldRef(label(Labels.version)) } },
  { name: EnvVars.generation, valueFrom: { fieldRef: fieldRef(annotation(Annotations.generation)) } },
  { name: EnvVars.ordinal, valueFrom: { fieldRef: fieldRef(label(Labels.podIndex)) } },
];
const injectedNames = new Set(injectedEnv.map((e) => e.name));

const podInfoFiles = PodInfoVolume.files;
const podInfoVolume: V1Volume = {
  name: PodInfoVolume.name,
  projected: {
    sources: [
      {
        downwardAPI: {
          items: [
            { path: podInfoFiles.petSet, fieldRef: fieldRef(label(Labels.petSet)) },
            { path: podInfoFiles.version, fieldRef: fieldRef(label(Labels.version)) },
            { path: podInfoFiles.generation, fieldRef: fieldRef(annotation(Annotations.generation)) },
            {
              path: podInfoFiles.targetVersion,
              fieldRef: fieldRef(annotation(Annotations.targetVersion)),
            },
            { path: podInfoFiles.ordinal, fieldRef: fieldRef(label(Labels.podIndex)) },
            { path: podInfoFiles.labels, fieldRef: fieldRef("metadata.labels") },
            { path: podInfoFiles.annotations, fieldRef: fieldRef("metadata.annotations") },
          ],
        },
      },
    ],
  },
};

/** Same path, or one inside the other ("/etc" and "/etc/petset/x" both overlap "/etc/petset"). */
function overlapsPodInfo(mountPath: string): boolean {
  const path = mountPath.replace(/\/+$/, "") || "/";
  const ours = PodInfoVolume.mountPath;
  return path === ours || path.startsWith(`${ours}/`) || ours.startsWith(path === "/" ? "/" : `${path}/`);
}

function withPetSetInfo(container: V1Container, mountInfo: boolean): V1Container {
  const env = [
    ...structuredClone(injectedEnv),
    ...(container.env ?? []).filter((e) => !injectedNames.has(e.name)),
  ];
  const mounts = container.volumeMounts ?? [];
  const mountTaken = mounts.some((m) => m.name === PodInfoVolume.name || overlapsPodInfo(m.mountPath));
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
  if (addInfoVolume) volumes.push(structuredClone(podInfoVolume));

  const podSpec: V1PodSpec = {
    ...spec,
    containers: spec.containers.map((c) => withPetSetInfo(c, addInfoVolume)),
    ...(spec.initContainers !== undefined
      ? { initContainers: spec.initContainers.map((c) => withPetSetInfo(c, addInfoVolume)) }
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
      annotations: {
        ...(template.metadata?.annotations ?? {}),
        ...marks.annotations,
        [Annotations.startedVersion]: String(version.spec.version),
      },
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
