/** Committed data files (OpenAPI documents, protobuf descriptors) next to the sources. */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Absolute path of `src/apiserver-shim/<rel>`: beside this module when run from src/, or
 * under the nearest ancestor's src/ when compiled elsewhere (dist/ does not copy JSON).
 */
export function locateAsset(rel: string): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const beside = join(here, rel);
  if (existsSync(beside)) return beside;
  for (let dir = here; dir !== dirname(dir); dir = dirname(dir)) {
    const candidate = join(dir, "src", "apiserver-shim", rel);
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`asset ${rel} not found near ${here}`);
}
