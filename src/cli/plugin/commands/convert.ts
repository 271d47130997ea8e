import { readFile } from "node:fs/promises";
import { parseAllDocuments, stringify } from "yaml";
import type { PluginIO } from "../context.js";
import { PluginError } from "../errors.js";
import { convertStatefulSet } from "../migrate/convert.js";

export type ConvertFormat = "yaml" | "json";

/** Reads a manifest file, or stdin for `-`. */
export type ReadSource = (path: string) => Promise<string>;

export const readSource: ReadSource = async (path) => {
  if (path !== "-") return readFile(path, "utf8");
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};

/**
 * `kubectl petset convert -f FILE [-o yaml|json]`: prints the PetSet manifest of every
 * StatefulSet in FILE (YAML or JSON, several documents or a `List`), for Git. Needs no
 * cluster. Anything that is not an apps/v1 StatefulSet, or a field petset cannot express,
 * is refused with the document and the field named.
 */
export async function convertCommand(
  io: PluginIO,
  file: string,
  options: { output: ConvertFormat; read?: ReadSource },
): Promise<number> {
  let text: string;
  try {
    text = await (options.read ?? readSource)(file);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    const reason =
      code === "ENOENT"
        ? "no such file (expected a StatefulSet manifest, YAML or JSON; - for stdin)"
        : code === "EISDIR"
          ? "is a folder (expected a StatefulSet manifest file, YAML or JSON; - for stdin)"
          : `cannot read it: ${err instanceof Error ? err.message : String(err)}`;
    throw new PluginError("BadRequest", `-f ${file}: ${reason}`);
  }
  const results = parseManifests(text, file).map((object) => convertStatefulSet(object));
  if (results.length === 0) throw new PluginError("BadRequest", `-f ${file}: no StatefulSet found`);
  if (options.output === "json") {
    const value = results.length === 1 ? results[0] : { apiVersion: "v1", kind: "List", items: results };
    io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  } else {
    io.stdout.write(results.map((r) => stringify(r)).join("---\n"));
  }
  return 0;
}

/** Every object in the text: YAML documents (JSON is YAML), a `List`'s items expanded. */
export function parseManifests(text: string, file: string): unknown[] {
  const objects: unknown[] = [];
  for (const [i, doc] of parseAllDocuments(text).entries()) {
    if (doc.errors.length > 0)
      throw new PluginError(
        "BadRequest",
        `-f ${file}: document ${i + 1}: ${doc.errors[0]?.message ?? "invalid YAML"}`,
      );
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    const list = value as { kind?: unknown; items?: unknown };
    if (typeof list.kind === "string" && list.kind.endsWith("List") && Array.isArray(list.items))
      objects.push(...list.items);
    else objects.push(value);
  }
  return objects;
}
