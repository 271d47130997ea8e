import { createHash } from "node:crypto";
import { canonicalContentJson, type VersionContent } from "./content.js";

/** Characters kept of the hex digest: 40 bits, plenty for one PetSet's history. */
export const HASH_LENGTH = 10;

/**
 * The `petset.dev/hash` of versioned content: the first 10 lowercase hex characters of
 * the SHA-256 of its canonical JSON. Hex is a valid label value, and anyone can recompute
 * it: `printf '%s' "$CANONICAL_JSON" | sha256sum | cut -c1-10`.
 *
 * The hash labels versions and pods and finds versions quickly; it does not decide
 * whether content changed (that is `sameContent`, which recomputes both sides), so a
 * change to the canonical rules can never roll out pods by itself. The algorithm is still
 * pinned by golden tests: changing it re-labels history.
 */
export function hashContent(content: VersionContent): string {
  return createHash("sha256")
    .update(canonicalContentJson(content), "utf8")
    .digest("hex")
    .slice(0, HASH_LENGTH);
}
