/**
 * Cache objects parsed once each. The informers replace an object on every change, so object
 * identity is a safe key, and what is parsed from a cache object is read only, as the object.
 *
 * Held once (issue 29): the PetSet and PetSetVersion caches parse each object as it arrives
 * (`parseInPlace`, their informers' transform after cache-trim.ts) and keep the parsed object
 * as the cache object itself, so a version's template and a PetSet's spec are not held twice
 * (the wire's copy and the parse's). An object that does not parse stays as it came, and its
 * failure is remembered for the sync to report.
 */
import type { KubernetesObject, V1Pod } from "@kubernetes/client-node";
import { type PetSet, PetSetSchema, type PetSetVersion, PetSetVersionSchema } from "../api/index.js";
import type { Logger } from "../util/logger.js";
import { sharedByContent } from "./cache-trim.js";
import type { ControllerCaches } from "./informers.js";
import { type PodView, podViewFromV1Pod } from "./planner/views.js";

/**
 * The PetSet parsed once per cached object (as versions below): a burst of events for one
 * PetSet (its write, its version's, its status's) syncs it several times on the same object.
 * The parsed PetSet is read only, as every cache object.
 */
const parsedPetSets = new WeakMap<KubernetesObject, ReturnType<typeof PetSetSchema.safeParse>>();

/**
 * Parsed versions per cached object. The informer replaces an object on every change, so
 * object identity is a safe key: each version is parsed once, not on every sync (with many
 * versions in a namespace, parsing dominated the sync's CPU time). `null`: malformed.
 */
const parsedVersions = new WeakMap<KubernetesObject, PetSetVersion | null>();
/** Malformed versions parsed by the cache's transform and not yet logged. */
const unreported = new WeakSet<KubernetesObject>();

/**
 * The PetSet cache's transform: parses `obj` and makes it the parsed PetSet (its top-level
 * fields replaced by the parse's, which share every unknown subtree with the wire's).
 */
export function parsePetSetInPlace(obj: KubernetesObject): void {
  if (parsedPetSets.has(obj)) return; // a listed object: its page's transform ran already
  const parsed = PetSetSchema.safeParse(obj);
  if (parsed.success) {
    replaceFields(obj, parsed.data);
    parsedPetSets.set(obj, { success: true, data: obj as PetSet } as ReturnType<
      typeof PetSetSchema.safeParse
    >);
  } else parsedPetSets.set(obj, parsed);
}

/** The PetSetVersion cache's transform: as parsePetSetInPlace (a malformed one stays as it came). */
export function parseVersionInPlace(obj: KubernetesObject): void {
  if (parsedVersions.has(obj)) return;
  const parsed = PetSetVersionSchema.safeParse(obj);
  if (parsed.success) {
    replaceFields(obj, parsed.data);
    parsedVersions.set(obj, obj as PetSetVersion);
  } else {
    parsedVersions.set(obj, null);
    unreported.add(obj);
  }
}

/** The object was parsed by its cache's transform already (a listed object meets it twice). */
export function parsedInPlace(obj: KubernetesObject): boolean {
  return parsedPetSets.has(obj) || parsedVersions.has(obj);
}

function replaceFields(obj: object, data: object): void {
  const target = obj as Record<string, unknown>;
  for (const key of Object.keys(target)) if (!(key in data)) delete target[key];
  Object.assign(target, data);
}

export function parsePetSet(raw: KubernetesObject): ReturnType<typeof PetSetSchema.safeParse> {
  let parsed = parsedPetSets.get(raw);
  if (parsed === undefined) {
    parsed = PetSetSchema.safeParse(raw);
    parsedPetSets.set(raw, parsed);
  }
  return parsed;
}

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
    if (v === null && unreported.delete(obj))
      logger.warn({ version: obj.metadata?.name, namespace }, "ignoring a malformed PetSetVersion");
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
    view.containers = sharedByContent(view.containers);
    view.initContainers = sharedByContent(view.initContainers);
    podViews.set(pod, view);
  }
  return view;
}
