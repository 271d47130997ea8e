/**
 * The per-PetSet gauges (`petset_versions`, `petset_pods{version}`) as of the last sync. A
 * gauge series lives until it is removed, so each sync sets the versions that have pods and
 * removes the series of versions that have none left; a PetSet that is gone loses all its
 * series. Which versions have a series is kept beside the gauge, per gauge (reading them back
 * from the gauge costs time proportional to every series, on every sync: a cold start over
 * 2,000 PetSets spent a sixth of its time there). A restarted controller starts from an empty
 * registry and the first sync of each PetSet fills it.
 */
import type { Gauge } from "prom-client";
import type { ControllerMetrics } from "./metrics.js";

type PodGauge = ControllerMetrics["podsByVersion"];
/** Per gauge: `namespace/petset` → the version labels it has a series for. */
const seriesByGauge = new WeakMap<Gauge<string>, Map<string, Set<string>>>();

function seriesOf(gauge: PodGauge): Map<string, Set<string>> {
  let series = seriesByGauge.get(gauge);
  if (series === undefined) {
    series = new Map();
    seriesByGauge.set(gauge, series);
  }
  return series;
}

export interface PetSetRef {
  namespace: string;
  petSet: string;
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
  const key = `${ref.namespace}/${ref.petSet}`;
  const series = seriesOf(metrics.podsByVersion);
  for (const version of series.get(key) ?? [])
    if (!counts.has(version)) metrics.podsByVersion.remove({ ...labels, version });
  for (const [version, n] of counts) metrics.podsByVersion.set({ ...labels, version }, n);
  if (counts.size > 0) series.set(key, new Set(counts.keys()));
  else series.delete(key);
}

/** The PetSet is gone: none of its series may linger. */
export async function forgetPetSetGauges(metrics: ControllerMetrics, ref: PetSetRef): Promise<void> {
  const labels = { namespace: ref.namespace, petset: ref.petSet };
  metrics.versions.remove(labels);
  metrics.petsOnLostNodes.remove(labels);
  const key = `${ref.namespace}/${ref.petSet}`;
  const series = seriesOf(metrics.podsByVersion);
  for (const version of series.get(key) ?? []) metrics.podsByVersion.remove({ ...labels, version });
  series.delete(key);
}
