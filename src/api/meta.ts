import { z } from "zod";

/** The subset of ObjectMeta the controller reads; unknown fields pass through untouched. */
export const ObjectMetaSchema = z.looseObject({
  name: z.string().optional(),
  generateName: z.string().optional(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  generation: z.number().int().optional(),
  creationTimestamp: z.union([z.string(), z.date()]).optional(),
  deletionTimestamp: z.union([z.string(), z.date()]).optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
  finalizers: z.array(z.string()).optional(),
  ownerReferences: z
    .array(
      z.looseObject({
        apiVersion: z.string(),
        kind: z.string(),
        name: z.string(),
        uid: z.string(),
        controller: z.boolean().optional(),
        blockOwnerDeletion: z.boolean().optional(),
      }),
    )
    .optional(),
  managedFields: z.array(z.looseObject({})).optional(),
});
export type ObjectMeta = z.infer<typeof ObjectMetaSchema>;

export const LabelSelectorRequirementSchema = z.object({
  key: z.string(),
  operator: z.enum(["In", "NotIn", "Exists", "DoesNotExist"]),
  values: z.array(z.string()).optional(),
});

export const LabelSelectorSchema = z.object({
  matchLabels: z.record(z.string(), z.string()).optional(),
  matchExpressions: z.array(LabelSelectorRequirementSchema).optional(),
});
export type LabelSelector = z.infer<typeof LabelSelectorSchema>;

export const ConditionSchema = z.object({
  type: z.string(),
  status: z.enum(["True", "False", "Unknown"]),
  observedGeneration: z.number().int().optional(),
  lastTransitionTime: z.union([z.string(), z.date()]).optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
});
export type Condition = z.infer<typeof ConditionSchema>;

/**
 * A pod template as the controller sees it. The full PodTemplateSpec schema lives in the
 * CRD (the API server validates it); here we only name what the controller reads and keep
 * everything else verbatim, because versions must store the template exactly as written.
 */
export const PodTemplateSchema = z.looseObject({
  metadata: z
    .looseObject({
      labels: z.record(z.string(), z.string()).optional(),
      annotations: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  spec: z.looseObject({
    containers: z.array(z.looseObject({ name: z.string(), image: z.string().optional() })),
    initContainers: z.array(z.looseObject({ name: z.string(), image: z.string().optional() })).optional(),
  }),
});
export type PodTemplate = z.infer<typeof PodTemplateSchema>;

export const ClaimTemplateSchema = z.looseObject({
  metadata: z.looseObject({ name: z.string() }),
  spec: z.looseObject({}).optional(),
});
export type ClaimTemplate = z.infer<typeof ClaimTemplateSchema>;
