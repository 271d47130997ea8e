/**
 * The parts of pods, nodes and claims the simulated kubelet reads. Loose schemas: unknown
 * fields pass through, and an object that does not even fit these is skipped rather than
 * crashing the kubelet (it cannot be one we should act on).
 */
import { z } from "zod";

const Str = z.string();
const Time = z.union([z.string(), z.date().transform((d) => d.toISOString())]);

export const MetaSchema = z.looseObject({
  name: Str,
  namespace: Str.optional(),
  uid: Str.optional(),
  resourceVersion: Str.optional(),
  creationTimestamp: Time.optional(),
  deletionTimestamp: Time.optional().nullable(),
  deletionGracePeriodSeconds: z.number().optional().nullable(),
  labels: z.record(Str, Str).optional().nullable(),
  annotations: z.record(Str, Str).optional().nullable(),
  finalizers: z.array(Str).optional().nullable(),
});
export type Meta = z.infer<typeof MetaSchema>;

export const ConditionSchema = z.looseObject({
  type: Str,
  status: Str,
  reason: Str.optional().nullable(),
  message: Str.optional().nullable(),
  lastTransitionTime: Time.optional().nullable(),
  lastHeartbeatTime: Time.optional().nullable(),
  lastProbeTime: Time.optional().nullable(),
});
export type Condition = z.infer<typeof ConditionSchema>;

const StateSchema = z.looseObject({
  running: z.looseObject({ startedAt: Time.optional().nullable() }).optional().nullable(),
  waiting: z.looseObject({ reason: Str.optional(), message: Str.optional() }).optional().nullable(),
  terminated: z
    .looseObject({
      exitCode: z.number(),
      reason: Str.optional(),
      startedAt: Time.optional().nullable(),
      finishedAt: Time.optional().nullable(),
    })
    .optional()
    .nullable(),
});
export type ContainerState = z.infer<typeof StateSchema>;

export const ContainerStatusSchema = z.looseObject({
  name: Str,
  image: Str,
  imageID: Str.optional(),
  containerID: Str.optional(),
  ready: z.boolean(),
  started: z.boolean().optional(),
  restartCount: z.number().int(),
  state: StateSchema.optional(),
  lastState: StateSchema.optional(),
});
export type ContainerStatus = z.infer<typeof ContainerStatusSchema>;

const TaintShape = { key: Str, value: Str.optional().nullable(), effect: Str };
const TolerationShape = {
  key: Str.optional().nullable(),
  operator: Str.optional().nullable(),
  value: Str.optional().nullable(),
  effect: Str.optional().nullable(),
};
export type Taint = { key: string; value?: string | null | undefined; effect: string };
export type Toleration = {
  key?: string | null | undefined;
  operator?: string | null | undefined;
  value?: string | null | undefined;
  effect?: string | null | undefined;
};

const ContainerSchema = z.looseObject({ name: Str, image: Str.optional(), restartPolicy: Str.optional() });

export const PodSchema = z.looseObject({
  metadata: MetaSchema,
  spec: z.looseObject({
    nodeName: Str.optional().nullable(),
    nodeSelector: z.record(Str, Str).optional().nullable(),
    tolerations: z.array(z.looseObject(TolerationShape)).optional().nullable(),
    volumes: z
      .array(
        z.looseObject({ persistentVolumeClaim: z.looseObject({ claimName: Str }).optional().nullable() }),
      )
      .optional()
      .nullable(),
    containers: z.array(ContainerSchema),
    initContainers: z.array(ContainerSchema).optional().nullable(),
  }),
  status: z
    .looseObject({
      phase: Str.optional(),
      conditions: z.array(ConditionSchema).optional().nullable(),
      containerStatuses: z.array(ContainerStatusSchema).optional().nullable(),
      podIP: Str.optional().nullable(),
      hostIP: Str.optional().nullable(),
      startTime: Time.optional().nullable(),
    })
    .optional(),
});
export type Pod = z.infer<typeof PodSchema>;

export const NodeSchema = z.looseObject({
  metadata: MetaSchema,
  spec: z
    .looseObject({
      podCIDR: Str.optional(),
      unschedulable: z.boolean().optional().nullable(),
      taints: z.array(z.looseObject(TaintShape)).optional().nullable(),
    })
    .optional(),
  status: z
    .looseObject({
      phase: Str.optional(),
      conditions: z.array(ConditionSchema).optional().nullable(),
      addresses: z
        .array(z.looseObject({ type: Str, address: Str }))
        .optional()
        .nullable(),
      capacity: z.record(Str, z.unknown()).optional().nullable(),
      allocatable: z.record(Str, z.unknown()).optional().nullable(),
      nodeInfo: z.record(Str, z.unknown()).optional().nullable(),
    })
    .optional(),
});
export type Node = z.infer<typeof NodeSchema>;

export const ClaimSchema = z.looseObject({
  metadata: MetaSchema,
  spec: z
    .looseObject({
      volumeName: Str.optional().nullable(),
      storageClassName: Str.optional().nullable(),
      accessModes: z.array(Str).optional().nullable(),
      volumeMode: Str.optional().nullable(),
      resources: z.looseObject({ requests: z.record(Str, z.unknown()).optional() }).optional(),
    })
    .optional(),
  status: z
    .looseObject({ phase: Str.optional(), conditions: z.array(ConditionSchema).optional() })
    .optional(),
});
export type Claim = z.infer<typeof ClaimSchema>;

/** Any object the kubelet handles: enough to key, precondition and match it. */
export interface KubeObject {
  metadata: Meta;
  status?: { phase?: string; conditions?: Condition[] | null; [key: string]: unknown } | undefined;
  [key: string]: unknown;
}

/** `namespace/name` or `name`, as informers key objects. */
export function objectKey(meta: { name: string; namespace?: string | undefined }): string {
  return meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name;
}

/** RFC 3339 with second precision, as metav1.Time serializes. */
export function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** A small stable hash (FNV-1a, 32 bit) for deterministic IPs, IDs and jitter. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export function hex(text: string, length = 64): string {
  let out = "";
  for (let i = 0; out.length < length; i++) out += hash32(`${i}:${text}`).toString(16).padStart(8, "0");
  return out.slice(0, length);
}
