/**
 * Cache objects parsed once each. The informers replace an object on every change, so object
 * identity is a safe key, and what is parsed from a cache object is read only, as the object.
 */
import type { KubernetesObject, V1Pod } from "@kubernetes/client-node";
import { PetSetSchema, type PetSetVersion, PetSetVersionSchema } from "../api/index.js";
import type { Logger } from "../util/logger.js";
import type { ControllerCaches } from "./informers.js";
import { type PodView, podViewFromV1Pod } from "./planner/views.js";

/**
 * The PetSet parsed once per cached object (as versions below): a burst of events for one
 * PetSet (its write, its version's, its status's) syncs it several times on the same object.
 * The parsed PetSet is read only, as every cache object.
 */
const parsedPetSets = new WeakMap<KubernetesObject, ReturnType<typeof PetSetSchema.safeParse>>();

export function parsePetSet(raw: KubernetesObject): ReturnType<typeof PetSetSchema.safeParse> {
  let parsed = parsedPetSets.get(raw);
  if (parsed === undefined) {
    parsed = PetSetSchema.safeParse(raw);
    parsedPetSets.set(raw, parsed);
  }
  return parsed;
}

/**
 * Parsed versions per cached object. The informer replaces an object on every change, so
 * object identity is a safe key: each version is parsed once, not on every sync (with many
 * versions in a namespace, parsing dominated the sync's CPU time).
 */
const parsedVersions = new WeakMap<KubernetesObject, PetSetVersion | null>();

/** The versions labelled for this PetSet (orphans and leftovers included: VersionHistory sorts them out). */
export function cachedVersions(
  caches: Pick<ControllerCaches, "versions">,
  logger: Logger,
  namespace: string,
  petSet: string,
): PetSetVersion[] {
  const out: PetSetVersion[] = [];
  for (const obj of caches.versions.ofPetSet(namespace, petSet)) {
    let v = parsedVersions.get(obj);
    if (v === undefined) {
      const parsed = PetSetVersionSchema.safeParse(obj);
      v = parsed.success ? parsed.data : null;
      parsedVersions.set(obj, v);
      if (!parsed.success)
        logger.warn({ version: obj.metadata?.name, namespace }, "ignoring a malformed PetSetVersion");
    }
    if (v) out.push(v);
  }
  return out;
}

/**
 * The planner's view of a cached pod, built once per cached object: every sync of a PetSet
 * viewed all its pods again (10 % of the controller's CPU in a 100-pet rollout, where each
 * pet's events sync the set about ten times). Read only, as the pod.
 */
const podViews = new WeakMap<V1Pod, PodView>();

export function cachedPodView(pod: V1Pod): PodView {
  let view = podViews.get(pod);
  if (view === undefined) {
    view = podViewFromV1Pod(pod);
    podViews.set(pod, view);
  }
  return view;
}
