/**
 * The built-in objects `adopt` and `release` read: apps/v1 StatefulSets and
 * ControllerRevisions, core/v1 pods and claims. Only the fields read are named; everything
 * else passes through untouched (a StatefulSet's template must reach the PetSet verbatim).
 */
import { z } from "zod";
import { ObjectMetaSchema } from "../../../api/index.js";

export const STATEFULSET_API_VERSION = "apps/v1";
export const STATEFULSET_KIND = "StatefulSet";
/** The label the StatefulSet controller puts on each pod: the name of its ControllerRevision. */
export const REVISION_LABEL = "controller-revision-hash";

export const StatefulSetSchema = z.looseObject({
  apiVersion: z.string(),
  kind: z.string(),
  metadata: ObjectMetaSchema,
  spec: z.looseObject({
    replicas: z.number().int().optional(),
    selector: z.looseObject({}).optional(),
    template: z.looseObject({}),
    volumeClaimTemplates: z.array(z.looseObject({})).optional(),
    ordinals: z.looseObject({ start: z.number().int().optional() }).optional(),
  }),
  status: z
    .looseObject({
      currentRevision: z.string().optional(),
      updateRevision: z.string().optional(),
    })
    .optional(),
});
export type StatefulSet = z.infer<typeof StatefulSetSchema>;

/** apps/v1 ControllerRevision: `data` is what the owner recorded, `revision` its number. */
export const ControllerRevisionSchema = z.looseObject({
  metadata: ObjectMetaSchema,
  revision: z.number().int(),
  data: z.unknown(),
});
export type ControllerRevision = z.infer<typeof ControllerRevisionSchema>;

export const PodSchema = z.looseObject({
  metadata: ObjectMetaSchema,
  status: z
    .looseObject({
      phase: z.string().optional(),
      conditions: z.array(z.looseObject({ type: z.string(), status: z.string() })).optional(),
      containerStatuses: z.array(z.looseObject({ name: z.string(), restartCount: z.number() })).optional(),
    })
    .optional(),
});
export type Pod = z.infer<typeof PodSchema>;

export const ClaimSchema = z.looseObject({ metadata: ObjectMetaSchema });
export type Claim = z.infer<typeof ClaimSchema>;

export function isReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;
}

/** Container restarts of a pod, summed: what must not change across an adoption. */
export function restartCount(pod: Pod): number {
  return (pod.status?.containerStatuses ?? []).reduce((sum, s) => sum + s.restartCount, 0);
}

export function controllerRef(meta: { ownerReferences?: ObjectMetaOwnerRefs }) {
  return meta.ownerReferences?.find((r) => r.controller === true);
}
type ObjectMetaOwnerRefs = z.infer<typeof ObjectMetaSchema>["ownerReferences"];

/** `statefulset.apps/web`, as kubectl names it in one-line results. */
export const statefulSetRef = (name: string): string => `statefulset.apps/${name}`;
