/**
 * What the shim knows about one served resource at one version: names for discovery,
 * scope, subresources, and the strategy that gives it its semantics.
 */
import type { FieldError } from "../schema/index.js";
import type { FieldLabels } from "../selectors/field-selector.js";
import type { TableConvertor } from "../tables/table.js";
import type { KubeObject } from "../types.js";
import type { NameRule } from "./object-meta.js";
import type { TypeNode } from "./type-node.js";

/** Per-request facts a strategy may need. */
export interface RequestContext {
  /** Manager name for managedFields (fieldManager or derived from User-Agent). */
  fieldManager: string;
  dryRun: boolean;
  now: Date;
  subresource?: string;
  /** Warnings to return in `Warning:` headers. */
  warnings: string[];
  fieldValidation: "Strict" | "Warn" | "Ignore";
}

/**
 * The per-resource half of the generic store (k8s.io/apiserver's RESTCreateStrategy and
 * friends). Every hook is optional; the generic store supplies kube's common behaviour.
 */
export interface ResourceStrategy {
  /**
   * kube's scheme defaulting, applied to every decoded body (create, update, patch): the
   * writer owns the fields it fills in. Mutations of admission plugins and of the strategy
   * belong in prepareForCreate/prepareForUpdate, which run after managedFields are computed.
   */
  applyDefaults?(obj: KubeObject): void;
  /** Clear or set fields on create (e.g. drop status when a status subresource exists). */
  prepareForCreate?(obj: KubeObject, ctx: RequestContext): void;
  validate?(obj: KubeObject, ctx: RequestContext): FieldError[];
  /** Normalise after validation (sort, fill derived fields). */
  canonicalize?(obj: KubeObject): void;
  /** Carry over fields the main resource may not change (e.g. status). */
  prepareForUpdate?(obj: KubeObject, old: KubeObject, ctx: RequestContext): void;
  validateUpdate?(obj: KubeObject, old: KubeObject, ctx: RequestContext): FieldError[];
  /** For /status: keep everything but status from `old` unless overridden. */
  prepareForStatusUpdate?(obj: KubeObject, old: KubeObject, ctx: RequestContext): void;
  validateStatusUpdate?(obj: KubeObject, old: KubeObject, ctx: RequestContext): FieldError[];
  /** Fields pruned as unknown (for fieldValidation=Strict), as dotted paths. */
  unknownFields?(obj: KubeObject): string[];
  /** Drops unknown fields (built-ins; custom resources prune in prepareForCreate/Update). */
  dropUnknownFields?(obj: KubeObject): void;
  /**
   * Graceful deletion: seconds to wait before the object may be removed, or 0 to remove
   * now. Only pods are graceful in kube.
   */
  gracePeriod?(obj: KubeObject, requested: number | undefined): number;
  /** Kube lets PUT without resourceVersion through for most built-ins, not for CRs. */
  allowUnconditionalUpdate?: boolean;
  /** Whether metadata.generation is maintained. */
  tracksGeneration?: boolean;
  /** CRs return the deleted object; built-ins a Status. */
  returnDeletedObject?: boolean;
  /** Finalization outside metadata.finalizers (namespace spec.finalizers) still pending. */
  pendingFinalization?(obj: KubeObject): boolean;
  /** Refuse deletion (e.g. the default namespace); throw an ApiError. */
  admitDelete?(obj: KubeObject): void;
  /** Called when deletion starts but the object stays (finalizers or grace), e.g. namespace phase. */
  prepareForDelete?(obj: KubeObject): void;
  /** Resource-specific reasons a create must be refused (beyond validation). */
  admit?(obj: KubeObject, ctx: RequestContext): void;
  /** Validating admission of an update of the main resource, after validation; throw an ApiError. */
  admitUpdate?(obj: KubeObject, old: KubeObject, ctx: RequestContext): void;
}

export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
  /** Built-ins derive the Scale's status.selector from their spec (a StatefulSet's spec.selector). */
  labelSelectorOf?(obj: KubeObject): string;
}

export interface ResourceDefinition {
  group: string;
  version: string;
  resource: string;
  kind: string;
  listKind: string;
  singular: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  verbs?: string[];
  /** Status subresource served (`/status`). */
  status?: boolean;
  scale?: ScaleSubresource;
  /** Other subresources (e.g. pods/binding) handled by custom handlers. */
  extraSubresources?: string[];
  strategy: ResourceStrategy;
  table: TableConvertor;
  /** Schema navigation for strategic merge patch and server-side apply. */
  typeRoot: () => TypeNode | undefined;
  /** Strategic merge patch allowed (built-ins only). */
  strategicMerge: boolean;
  /** Field-selector labels beyond metadata.name/namespace (kube's per-resource GetAttrs). */
  fieldLabels?: FieldLabels;
  /** How metadata.name is validated (default DNS-1123 subdomain). */
  nameRule?: NameRule;
  /** Shared storage of another resource (events.k8s.io Events live with core Events). */
  storage?: { group: string; resource: string };
  /** Conversion between this view and the stored form (with `storage`). */
  convert?: { toStorage(o: KubeObject): KubeObject; fromStorage(o: KubeObject): KubeObject };
  /** Storage version; objects are stored as `group/storageVersion`. */
  storageVersion: string;
}

/** The storage identity `group/resource` (the shared storage's, when there is one). */
export function grKey(def: {
  group: string;
  resource: string;
  storage?: { group: string; resource: string };
}): string {
  const s = def.storage ?? def;
  return `${s.group}/${s.resource}`;
}

export function apiVersionOf(def: { group: string; version: string }): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}

export const STANDARD_VERBS = [
  "create",
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "update",
  "watch",
];
