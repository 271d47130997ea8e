/**
 * The StorageClasses as the planner sees them (planner/claim-updates.ts reads
 * allowVolumeExpansion to refuse a claim growth the class does not allow, instead of sending a
 * patch the API server's PersistentVolumeClaimResize admission refuses). Undefined until the
 * cache has synced, so no growth is refused for a class not listed yet. A class that changes
 * wakes every PetSet: one refused for its class may go on.
 */
import type { KubernetesObject, V1StorageClass } from "@kubernetes/client-node";
import type { ResourceCache } from "./informers.js";
import type { StorageClassView } from "./planner/index.js";

export const DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class";

export function storageClassView(sc: V1StorageClass): StorageClassView {
  return {
    name: sc.metadata?.name ?? "",
    allowVolumeExpansion: sc.allowVolumeExpansion === true,
    isDefault: sc.metadata?.annotations?.[DEFAULT_CLASS_ANNOTATION] === "true",
  };
}

export interface StorageClassWatch {
  /** Every StorageClass, or undefined while the cache has not synced. */
  views(): StorageClassView[] | undefined;
}

export function watchStorageClasses(
  classes: ResourceCache<V1StorageClass>,
  petSets: Pick<ResourceCache<KubernetesObject>, "list">,
  wake: (petSet: KubernetesObject) => void,
): StorageClassWatch {
  let synced = false;
  void classes.synced.then(() => {
    synced = true;
  });
  classes.onChange(() => {
    if (synced) for (const p of petSets.list()) wake(p);
  });
  return { views: () => (synced ? classes.list().map(storageClassView) : undefined) };
}
