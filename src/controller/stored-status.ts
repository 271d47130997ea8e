/**
 * The status a cached PetSet stores, parsed (defaults filled in) and in canonical form, once
 * per PetSet object. Every sync compared the status it planned with the stored one, and read
 * it again for the conflict conditions: two zod parses and a canonical JSON of the same object
 * per sync, while the object changes only when the PetSet does (the parsed PetSet is cached
 * per cache object, parsed-cache.ts). Read only, as the object it comes from.
 */
import { type PetSet, type PetSetStatus, PetSetStatusSchema } from "../api/index.js";
import { canonicalStatus } from "./status-compare.js";

export interface StoredStatus {
  /** The stored status parsed; undefined when it does not parse. */
  readonly status: PetSetStatus | undefined;
  /** canonicalStatus of `status`, computed on first use. */
  canonical(): string | undefined;
}

const stored = new WeakMap<PetSet, StoredStatus>();

export function storedStatus(petSet: PetSet): StoredStatus {
  let s = stored.get(petSet);
  if (s === undefined) {
    const parsed = PetSetStatusSchema.safeParse(petSet.status ?? {});
    const status = parsed.success ? parsed.data : undefined;
    let canonical: string | undefined;
    s = {
      status,
      canonical: () => {
        if (canonical === undefined && status !== undefined) canonical = canonicalStatus(status);
        return canonical;
      },
    };
    stored.set(petSet, s);
  }
  return s;
}
