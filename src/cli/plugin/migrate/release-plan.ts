/**
 * `kubectl petset release NAME`, the pure half: the StatefulSet equivalent to a PetSet
 * (created with updateStrategy OnDelete, so its controller restarts nothing while it takes
 * the pods over), and the pod labels that make the pods its current revision.
 */
import { Labels, type PetSet } from "../../../api/index.js";
import { petOrdinals } from "../../../controller/planner/ordinals.js";
import { PluginError } from "../errors.js";
import { type AdoptSnapshot, petPods } from "./adopt-plan.js";
import { isReady, type Pod, REVISION_LABEL, restartCount } from "./objects.js";

export const ReleaseAnnotations = {
  /** On a StatefulSet made by `release`: `petset/NAME`. */
  releasedFrom: "petset.dev/released-from",
  /** On a StatefulSet made by `release`: pods before (AdoptSnapshot, statefulSetUid = the PetSet's uid). */
  snapshot: "petset.dev/release-snapshot",
  /** On a StatefulSet made by `release`: the updateStrategy to restore once the pods are its own (JSON). */
  updateStrategy: "petset.dev/release-update-strategy",
} as const;

export class ReleaseRefusedError extends PluginError {
  override name = "ReleaseRefusedError";
  constructor(message: string) {
    super("Invalid", `cannot release: ${message}`);
  }
}

/** Refuses what a StatefulSet cannot take over without a restart; names the field. */
export function releasePreflight(petSet: PetSet, pods: readonly Pod[]): void {
  const name = petSet.metadata.name ?? "";
  const what = `petset "${name}"`;
  const { spec, status } = petSet;
  if (spec.paused) throw new ReleaseRefusedError(`${what} is paused (spec.paused): a StatefulSet cannot be`);
  if (
    petOrdinals(spec.ordinals.start, spec.replicas, spec.reserveOrdinals).some(
      (o, i) => o !== spec.ordinals.start + i,
    )
  )
    throw new ReleaseRefusedError(
      `${what} skips ordinals (spec.reserveOrdinals): a StatefulSet cannot; scale so its pets are ${name}-${spec.ordinals.start} up without gaps, then remove spec.reserveOrdinals`,
    );
  const newest = status?.updateVersion;
  const start = spec.ordinals.start;
  const pets = petPods(name, pods);
  for (let ordinal = start; ordinal < start + spec.replicas; ordinal++) {
    const pod = pets.get(ordinal);
    const podName = `${name}-${ordinal}`;
    if (pod === undefined) throw new ReleaseRefusedError(`pod ${podName} of ${what} does not exist`);
    if (!isReady(pod))
      throw new ReleaseRefusedError(`pod ${podName} of ${what} is not Ready (status.conditions[Ready])`);
    const version = pod.metadata.labels?.[Labels.version];
    if (newest === undefined || version !== String(newest))
      throw new ReleaseRefusedError(
        `pod ${podName} runs version ${version ?? "<none>"} (label ${Labels.version}), not the update version ${newest ?? "<none>"} (status.updateVersion): let the rollout finish first`,
      );
  }
  for (const [ordinal] of pets)
    if (ordinal < start || ordinal >= start + spec.replicas)
      throw new ReleaseRefusedError(
        `pod ${name}-${ordinal} is outside the ordinals of ${what}: wait until it has scaled`,
      );
}

/** The apps/v1 StatefulSet equivalent to the PetSet, with updateStrategy OnDelete for the take-over. */
export function statefulSetFor(petSet: PetSet, snapshot: AdoptSnapshot): Record<string, unknown> {
  const { spec, metadata } = petSet;
  const name = metadata.name ?? "";
  const rolling = spec.updateStrategy.rollingUpdate;
  const updateStrategy =
    spec.updateStrategy.type === "OnDelete"
      ? { type: "OnDelete" }
      : {
          type: "RollingUpdate",
          rollingUpdate: {
            partition: rolling?.partition ?? 0,
            ...(rolling?.maxUnavailable !== undefined && rolling.maxUnavailable !== 1
              ? { maxUnavailable: rolling.maxUnavailable }
              : {}),
          },
        };
  const annotations = Object.fromEntries(
    Object.entries(metadata.annotations ?? {}).filter(([k]) => !k.startsWith("petset.dev/")),
  );
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: {
      name,
      ...(metadata.namespace !== undefined ? { namespace: metadata.namespace } : {}),
      ...(metadata.labels !== undefined ? { labels: metadata.labels } : {}),
      annotations: {
        ...annotations,
        [ReleaseAnnotations.releasedFrom]: `petset/${name}`,
        [ReleaseAnnotations.snapshot]: JSON.stringify(snapshot),
        [ReleaseAnnotations.updateStrategy]: JSON.stringify(updateStrategy),
      },
    },
    spec: {
      replicas: spec.replicas,
      selector: spec.selector,
      ...(spec.serviceName ? { serviceName: spec.serviceName } : {}),
      template: spec.template,
      volumeClaimTemplates: spec.volumeClaimTemplates,
      podManagementPolicy: spec.podManagementPolicy,
      ordinals: { start: spec.ordinals.start },
      updateStrategy: { type: "OnDelete" },
      minReadySeconds: spec.minReadySeconds,
      revisionHistoryLimit: spec.revisionHistoryLimit,
      persistentVolumeClaimRetentionPolicy: spec.persistentVolumeClaimRetentionPolicy,
    },
  };
}

export function releaseSnapshot(petSet: PetSet, pods: readonly Pod[]): AdoptSnapshot {
  const entries = [...petPods(petSet.metadata.name ?? "", pods)]
    .sort(([a], [b]) => a - b)
    .map(
      ([, pod]) =>
        [pod.metadata.name ?? "", { uid: pod.metadata.uid ?? "", restarts: restartCount(pod) }] as const,
    );
  return { statefulSetUid: petSet.metadata.uid ?? "", pods: Object.fromEntries(entries) };
}

/** Pod label changes: `controller-revision-hash` to the StatefulSet's revision, petset labels removed. */
export function releaseLabels(pod: Pod, revision: string): Record<string, string | null> | undefined {
  const labels = pod.metadata.labels ?? {};
  const patch: Record<string, string | null> = {};
  if (labels[REVISION_LABEL] !== revision) patch[REVISION_LABEL] = revision;
  for (const key of Object.values(Labels)) if (labels[key] !== undefined) patch[key] = null;
  return Object.keys(patch).length > 0 ? patch : undefined;
}
