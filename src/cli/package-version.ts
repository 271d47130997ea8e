import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { packageRoot } from "./manifests.js";

/** The version in package.json (for `--version`). */
export function packageVersion(): string {
  const pkg = z
    .object({ version: z.string() })
    .parse(JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")));
  return pkg.version;
}
