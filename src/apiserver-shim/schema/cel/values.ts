/**
 * JSON to CEL values, typed by the schema as kube's UnstructuredToVal does: `integer` fields
 * (and the integer side of int-or-string) are CEL ints, `number` fields are doubles, objects
 * and maps are CEL maps, arrays are lists. Values without a schema keep JSON's natural type.
 */
import type { CelInput } from "@bufbuild/cel";
import { additionalSchema, isRecord, type SchemaNode } from "../structural.js";

export function toCel(s: SchemaNode | undefined, v: unknown): CelInput {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case "boolean":
    case "string":
      return v;
    case "bigint":
      return v;
    case "number":
      if (s && s.type === "number") return v;
      return Number.isInteger(v) ? BigInt(v) : v;
  }
  if (Array.isArray(v)) {
    const items = s?.items;
    return v.map((x) => toCel(items, x));
  }
  if (isRecord(v)) {
    const additional = s ? additionalSchema(s) : undefined;
    const m = new Map<string, CelInput>();
    for (const [k, x] of Object.entries(v)) m.set(k, toCel(s?.properties?.get(k) ?? additional, x));
    return m;
  }
  return null;
}
