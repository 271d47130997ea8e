/**
 * The per-PetSet gauges (`petset_versions`, `petset_pods{version}`) as of the last sync. A
 * gauge series lives until it is removed, so each sync sets the versions that have pods and
 * removes the series of versions that have none left; a PetSet that is gone loses all its
 * series. The gauge itself is the memory (no state beside it): a restarted controller starts
 * from an empty registry and the first sync of each PetSet fills it.
 */
import type { ControllerMetrics } from "./metrics.js";

export interface PetSetRef {
  namespace: string;
  petSet: string;
}

/** Label sets of `petset_pods` that belong to this PetSet now. */
async function podSeries(metrics: ControllerMetrics, ref: PetSetRef): Promise<string[]> {
  const { values } = await metrics.podsByVersion.get();
  return values
    .filter((v) => v.labels.namespace === ref.namespace && v.labels.petset === ref.petSet)
    .map((v) => String(v.labels.version));
}

/**
 * Sets the gauges of one PetSet from one sync: how many versions it has, and how many pods run
 * each version (`podVersions` holds one version label per pod).
 */
export async function updatePetSetGauges(
  metrics: ControllerMetrics,
  ref: PetSetRef,
  versionCount: number,
  podVersions: readonly string[],
): Promise<void> {
  const labels = { namespace: ref.namespace, petset: ref.petSet };
  metrics.versions.set(labels, versionCount);
  const counts = new Map<string, number>();
  for (const v of podVersions) counts.set(v, (counts.get(v) ?? 0) + 1);
  for (const version of await podSeries(metrics, ref))
    if (!counts.has(version)) metrics.podsByVersion.remove({ ...labels, version });
  for (const [version, n] of counts) metrics.podsByVersion.set({ ...labels, version }, n);
}

/** The PetSet is gone: none of its series may linger. */
export async function forgetPetSetGauges(metrics: ControllerMetrics, ref: PetSetRef): Promise<void> {
  const labels = { namespace: ref.namespace, petset: ref.petSet };
  metrics.versions.remove(labels);
  for (const version of await podSeries(metrics, ref)) metrics.podsByVersion.remove({ ...labels, version });
}
