/** Tables for custom resources from `additionalPrinterColumns` (Name first, as kube does). */
import { age, NAME_COLUMN, type TableColumn, type TableConvertor } from "../tables/table.js";
import { isPlainObject } from "../types.js";
import { evaluateJsonPath, parseJsonPath } from "./jsonpath.js";

export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

const DEFAULT_COLUMNS: PrinterColumn[] = [
  { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
];

export function printerColumnsTable(columns: PrinterColumn[] | undefined): TableConvertor {
  const cols = columns?.length ? columns : DEFAULT_COLUMNS;
  const compiled = cols.map((c) => {
    try {
      return parseJsonPath(c.jsonPath);
    } catch {
      return undefined;
    }
  });
  const defs: TableColumn[] = [
    NAME_COLUMN,
    ...cols.map((c) => ({
      name: c.name,
      type: c.type,
      format: c.format ?? "",
      description: c.description ?? `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
      priority: c.priority ?? 0,
    })),
  ];
  return {
    columns: defs,
    cells: (obj, now) => [
      obj.metadata.name,
      ...cols.map((c, i) => {
        const steps = compiled[i];
        if (!steps) return null;
        const found = evaluateJsonPath(steps, obj);
        if (found.length === 0) return null;
        return cell(c.type, found[0], now);
      }),
    ],
  };
}

function cell(type: string, v: unknown, now: Date): unknown {
  if (v === null || v === undefined) return null;
  switch (type) {
    case "integer":
      return typeof v === "number" ? Math.trunc(v) : null;
    case "number":
      return typeof v === "number" ? v : null;
    case "boolean":
      return typeof v === "boolean" ? v : null;
    case "date":
      return typeof v === "string" ? age(v, now) : null;
    default:
      if (typeof v === "string") return v;
      return Array.isArray(v) || isPlainObject(v) ? JSON.stringify(v) : String(v);
  }
}
