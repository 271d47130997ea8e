/** Shorthand for registering a built-in resource: fills kube's conventions. */
import { apiVersionOf, type ResourceDefinition, type ResourceStrategy } from "../registry/resource.js";
import { dropUndeclaredFields, undeclaredFields } from "../registry/unknown-fields.js";
import { defaultTable, type TableConvertor } from "../tables/table.js";
import { builtinTypeRoot } from "./openapi-docs.js";

export interface BuiltinSpec {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  /** OpenAPI schema name, e.g. `io.k8s.api.core.v1.Pod`. */
  schema: string;
  shortNames?: string[];
  categories?: string[];
  /** Discovery verbs when not the standard eight (namespaces have no deletecollection). */
  verbs?: string[];
  status?: boolean;
  scale?: ResourceDefinition["scale"];
  strategy?: ResourceStrategy;
  table?: TableConvertor;
  fieldLabels?: ResourceDefinition["fieldLabels"];
  nameRule?: ResourceDefinition["nameRule"];
  extraSubresources?: string[];
}

/**
 * Built-ins whose DELETE answers the deleted object instead of a Status: the registries the
 * shim serves that set `ReturnDeletedObject: true` in kube (pkg/registry/core/NAME/storage).
 */
const RETURNS_DELETED_OBJECT = new Set([
  "/pods",
  "/services",
  "/serviceaccounts",
  "/persistentvolumeclaims",
  "/persistentvolumes",
  "/namespaces",
  "storage.k8s.io/storageclasses",
  "storage.k8s.io/volumeattributesclasses",
]);

export function defineBuiltin(s: BuiltinSpec): ResourceDefinition {
  const gvKey = s.group ? `apis/${apiVersionOf(s)}` : `api/${s.version}`;
  const typeRoot = builtinTypeRoot(gvKey, s.schema);
  return {
    group: s.group,
    version: s.version,
    resource: s.resource,
    kind: s.kind,
    listKind: `${s.kind}List`,
    singular: s.kind.toLowerCase(),
    namespaced: s.namespaced,
    ...(s.shortNames ? { shortNames: s.shortNames } : {}),
    ...(s.categories ? { categories: s.categories } : {}),
    ...(s.verbs ? { verbs: s.verbs } : {}),
    ...(s.status ? { status: true } : {}),
    ...(s.scale ? { scale: s.scale } : {}),
    ...(s.extraSubresources ? { extraSubresources: s.extraSubresources } : {}),
    ...(s.fieldLabels ? { fieldLabels: s.fieldLabels } : {}),
    ...(s.nameRule ? { nameRule: s.nameRule } : {}),
    strategy: {
      allowUnconditionalUpdate: true,
      ...(RETURNS_DELETED_OBJECT.has(`${s.group}/${s.resource}`) ? { returnDeletedObject: true } : {}),
      unknownFields: (o) => undeclaredFields(o, typeRoot()),
      dropUnknownFields: (o) => dropUndeclaredFields(o, typeRoot()),
      ...s.strategy,
    },
    table: s.table ?? defaultTable,
    typeRoot,
    strategicMerge: true,
    storageVersion: s.version,
  };
}
