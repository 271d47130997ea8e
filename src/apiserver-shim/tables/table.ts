/**
 * meta.k8s.io/v1 Table rendering (what `kubectl get` prints). Each resource has a
 * TableConvertor: column definitions plus a function from object to cells.
 */
import type { KubeObject } from "../types.js";

export interface TableColumn {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableConvertor {
  columns: TableColumn[];
  cells(obj: KubeObject, now: Date): unknown[];
}

export interface TableRow {
  cells: unknown[];
  object?: unknown;
}

export type IncludeObject = "None" | "Metadata" | "Object";

export function column(
  name: string,
  type = "string",
  description = "",
  priority = 0,
  format = "",
): TableColumn {
  return { name, type, format, description, priority };
}

// kube takes these from the ObjectMeta field docs, in full.
export const NAME_COLUMN = column(
  "Name",
  "string",
  "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
  0,
  "name",
);
export const AGE_COLUMN = column(
  "Age",
  "string",
  "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
);

/** kube's duration.HumanDuration: the AGE format. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${hours / 24}d` : `${Math.trunc(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    const y = Math.trunc(hours / 24 / 365);
    return dy === 0 ? `${y}y` : `${y}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** Age of a timestamp, `<unknown>` when absent, as kube's printers show it. */
export function age(timestamp: unknown, now: Date): string {
  if (typeof timestamp !== "string" || !timestamp) return "<unknown>";
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return "<invalid>";
  return humanDuration(now.getTime() - t);
}

export function objectAge(obj: KubeObject, now: Date): string {
  return age(obj.metadata.creationTimestamp, now);
}

/** NAME + AGE: kube's default table for resources without a printer. */
export const defaultTable: TableConvertor = {
  columns: [NAME_COLUMN, AGE_COLUMN],
  cells: (obj, now) => [obj.metadata.name, objectAge(obj, now)],
};

export function partialObjectMetadata(obj: KubeObject): Record<string, unknown> {
  return { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: obj.metadata };
}

export interface TableOptions {
  includeObject: IncludeObject;
  noHeaders: boolean;
  now: Date;
  resourceVersion: string;
  continueToken?: string;
  remainingItemCount?: number;
}

export function buildTable(
  conv: TableConvertor,
  objs: KubeObject[],
  opts: TableOptions,
): Record<string, unknown> {
  const rows: TableRow[] = objs.map((o) => {
    // TableRow.object is a RawExtension (a struct): with includeObject=None Go prints null.
    const row: TableRow = { cells: conv.cells(o, opts.now), object: null };
    if (opts.includeObject === "Object") row.object = o;
    else if (opts.includeObject === "Metadata") row.object = partialObjectMetadata(o);
    return row;
  });
  const metadata: Record<string, unknown> = { resourceVersion: opts.resourceVersion };
  if (opts.continueToken) metadata.continue = opts.continueToken;
  if (opts.remainingItemCount !== undefined) metadata.remainingItemCount = opts.remainingItemCount;
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata,
    columnDefinitions: opts.noHeaders ? [] : conv.columns,
    rows,
  };
}
