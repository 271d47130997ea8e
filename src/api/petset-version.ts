import { z } from "zod";
import { ClaimTemplateSchema, ObjectMetaSchema, PodTemplateSchema } from "./meta.js";
import { API_VERSION, VERSION_KIND } from "./names.js";

/** One RFC 6902 operation, as fast-json-patch produces them. */
export const JsonPatchOpSchema = z.object({
  op: z.enum(["add", "remove", "replace", "move", "copy", "test"]),
  path: z.string(),
  from: z.string().optional(),
  value: z.unknown().optional(),
});
export type JsonPatchOp = z.infer<typeof JsonPatchOpSchema>;

export const PetSetVersionSpecSchema = z.object({
  petSet: z.string(),
  version: z.number().int().min(1),
  generation: z.number().int().min(0),
  hash: z.string(),
  template: PodTemplateSchema,
  volumeClaimTemplates: z.array(ClaimTemplateSchema).default([]),
  rollbackOf: z.number().int().min(1).optional(),
  changeCause: z.string().optional(),
  changedBy: z.string().optional(),
  delta: z.array(JsonPatchOpSchema).default([]),
});
export type PetSetVersionSpec = z.infer<typeof PetSetVersionSpecSchema>;

export const PetSetVersionSchema = z.object({
  apiVersion: z.literal(API_VERSION),
  kind: z.literal(VERSION_KIND),
  metadata: ObjectMetaSchema,
  spec: PetSetVersionSpecSchema,
});
export type PetSetVersion = z.infer<typeof PetSetVersionSchema>;

export function parsePetSetVersion(obj: unknown): PetSetVersion {
  return PetSetVersionSchema.parse(obj);
}
