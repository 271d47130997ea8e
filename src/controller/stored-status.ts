/**
 * The status a cached PetSet stores. The PetSet cache parses each object once (parsed-cache.ts)
 * and a sync runs only on a PetSet that parsed, so its status is parsed and defaulted already:
 * it is read as it is. (Until issue 29 a parsed copy and its canonical JSON were kept beside
 * every cached PetSet, about 1 KB each; statuses now compare in place, status-compare.ts.)
 */
import { type PetSet, type PetSetStatus, PetSetStatusSchema } from "../api/index.js";

/** The stored status, or the defaults (a parse of `{}`) when the PetSet has none yet. */
export function storedStatus(petSet: PetSet): PetSetStatus {
  return petSet.status ?? PetSetStatusSchema.parse({});
}
