/**
 * A served custom resource version built from its CRD: the schema module prunes,
 * defaults and validates; status and scale subresources as the CRD declares them.
 */

import { builtinTypeRoot } from "../builtin/openapi-docs.js";
import type { ResourceDefinition, ResourceStrategy, ScaleSubresource } from "../registry/resource.js";
import { schemaTypeNode, type TypeNode } from "../registry/type-node.js";
import { dropUndeclaredFields, undeclaredFields } from "../registry/unknown-fields.js";
import { fieldErrors } from "../schema/field-error.js";
import {
  applyDefaults,
  type FieldError,
  type JSONSchemaProps,
  pruneUnknownFields,
  validateObject,
} from "../schema/index.js";
import { defaultFieldLabels, type FieldLabels } from "../selectors/field-selector.js";
import { deepClone, isPlainObject, type KubeObject } from "../types.js";
import { evaluateJsonPath, parseJsonPath } from "./jsonpath.js";
import { type PrinterColumn, printerColumnsTable } from "./printer-columns.js";

type Obj = Record<string, unknown>;

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: { status?: Obj; scale?: ScaleSubresource };
  additionalPrinterColumns?: PrinterColumn[];
  selectableFields?: { jsonPath: string }[];
}

export interface CrdSpec {
  group: string;
  names: {
    plural: string;
    singular?: string;
    kind: string;
    listKind?: string;
    shortNames?: string[];
    categories?: string[];
  };
  scope: "Namespaced" | "Cluster";
  versions: CrdVersion[];
}

/** Field paths present in `before` but not in `after` (what pruning dropped). */
export function droppedFields(before: unknown, after: unknown, prefix = ""): string[] {
  if (!isPlainObject(before)) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(before)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (!isPlainObject(after) || !(k in after)) out.push(path);
    else if (isPlainObject(v)) out.push(...droppedFields(v, after[k], path));
    else if (Array.isArray(v) && Array.isArray(after[k]))
      v.forEach((item, i) => {
        out.push(...droppedFields(item, (after[k] as unknown[])[i], `${path}[${i}]`));
      });
  }
  return out;
}

/** Go's `%T` of a decoded JSON value, as unstructured accessor errors print it. */
function goTypeOf(v: unknown): string {
  if (v === null) return "<nil>";
  if (typeof v === "number") return Number.isInteger(v) ? "int64" : "float64";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "string") return "string";
  return Array.isArray(v) ? "[]interface {}" : "map[string]interface {}";
}

/**
 * kube's ValidateScaleSpec / ValidateScaleStatus: the replicas path of the scale subresource
 * must hold a non-negative int32 (field named by the JSON path, e.g. `.spec.replicas`).
 */
export function validateScaleReplicas(obj: KubeObject, jsonPath: string | undefined): FieldError[] {
  if (!jsonPath) return [];
  let v: unknown = obj;
  for (const key of jsonPath.replace(/^\./, "").split(".")) {
    if (!isPlainObject(v) || !(key in v)) return [];
    v = v[key];
  }
  if (typeof v !== "number" || !Number.isInteger(v)) {
    const shown = typeof v === "string" ? v : JSON.stringify(v);
    return [
      fieldErrors.invalid(
        jsonPath,
        0,
        `${jsonPath} accessor error: ${shown} is of the type ${goTypeOf(v)}, expected int64`,
      ),
    ];
  }
  if (v < 0) return [fieldErrors.invalid(jsonPath, v, "should be a non-negative integer")];
  if (v > 2147483647) return [fieldErrors.invalid(jsonPath, v, "should be less than or equal to 2147483647")];
  return [];
}

function crStrategy(
  schema: JSONSchemaProps | undefined,
  hasStatus: boolean,
  scale: ScaleSubresource | undefined,
): ResourceStrategy {
  const specScale = (obj: KubeObject) => validateScaleReplicas(obj, scale?.specReplicasPath);
  const statusScale = (obj: KubeObject) => validateScaleReplicas(obj, scale?.statusReplicasPath);
  const normalize = (obj: KubeObject) => {
    if (!schema) return;
    pruneUnknownFields(schema, obj);
    applyDefaults(schema, obj);
  };
  return {
    tracksGeneration: true,
    allowUnconditionalUpdate: false,
    // apiextensions' store answers a finished delete with a Status, not the object.
    returnDeletedObject: false,
    unknownFields(obj) {
      // metadata is decoded into ObjectMeta: its unknown fields are named too (fuzzed input:
      // `metadata.bogus` was accepted here and refused by kube-apiserver).
      const meta = undeclaredFields(obj.metadata, objectMetaType(), "metadata");
      if (!schema) return meta;
      const copy = deepClone(obj);
      pruneUnknownFields(schema, copy);
      // kube reports the pruned paths sorted.
      return [...meta, ...droppedFields(obj, copy)].sort();
    },
    dropUnknownFields: (obj) => dropUndeclaredFields(obj.metadata, objectMetaType(), false),
    // Pruning and defaulting are part of decoding in kube: the writer owns the defaults.
    applyDefaults: normalize,
    prepareForCreate(obj) {
      if (hasStatus) delete obj.status;
    },
    validate: (obj) => (schema ? validateObject(schema, obj, undefined, specScale(obj)) : specScale(obj)),
    validateUpdate: (obj, old) =>
      schema ? validateObject(schema, obj, old, specScale(obj)) : specScale(obj),
    prepareForStatusUpdate(obj, old) {
      const status = obj.status;
      const managed = obj.metadata.managedFields;
      const copy = deepClone(old);
      for (const k of Object.keys(obj)) delete obj[k];
      Object.assign(obj, copy);
      if (status === undefined) delete obj.status;
      else obj.status = status;
      if (managed !== undefined) obj.metadata.managedFields = managed;
      normalize(obj);
    },
    validateStatusUpdate: (obj, old) =>
      schema ? validateObject(schema, obj, old, statusScale(obj)) : statusScale(obj),
  };
}

function selectableFieldLabels(fields: { jsonPath: string }[] | undefined): FieldLabels {
  const compiled = (fields ?? []).map((f) => ({
    key: f.jsonPath.replace(/^\./, ""),
    steps: parseJsonPath(f.jsonPath),
  }));
  return (obj) => {
    const out = defaultFieldLabels(obj);
    for (const f of compiled) {
      const v = evaluateJsonPath(f.steps, obj)[0];
      out[f.key] = v === undefined ? "" : String(v);
    }
    return out;
  };
}

const objectMetaType = builtinTypeRoot("api/v1", "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");

/**
 * The CR schema with kube's ObjectMeta at `metadata` (apiextensions publishes the root's
 * metadata as a $ref to it): finalizers are a set, ownerReferences a map keyed by uid, so
 * managedFields track them item by item.
 */
function withObjectMeta(root: TypeNode): TypeNode {
  return {
    ...root,
    field: (name) => (name === "metadata" ? (objectMetaType() ?? root.field(name)) : root.field(name)),
    hasField: (name) => name === "metadata" || root.hasField(name),
  };
}

/** A custom resource's verbs in the order kube's CRD discovery controller lists them. */
const CRD_VERBS = ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"];

/** Definitions for every served version of a CRD. */
export function customResourceDefinitions(spec: CrdSpec): ResourceDefinition[] {
  const storage = spec.versions.find((v) => v.storage)?.name ?? spec.versions[0]?.name ?? "v1";
  return spec.versions
    .filter((v) => v.served)
    .map((v) => {
      const schema = v.schema?.openAPIV3Schema;
      const hasStatus = v.subresources?.status !== undefined;
      let root: TypeNode | undefined;
      const def: ResourceDefinition = {
        group: spec.group,
        version: v.name,
        resource: spec.names.plural,
        kind: spec.names.kind,
        listKind: spec.names.listKind ?? `${spec.names.kind}List`,
        singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
        namespaced: spec.scope !== "Cluster",
        verbs: CRD_VERBS,
        strategy: crStrategy(schema, hasStatus, v.subresources?.scale),
        table: printerColumnsTable(v.additionalPrinterColumns),
        typeRoot: () => {
          if (!root && schema) root = withObjectMeta(schemaTypeNode(schema));
          return root;
        },
        strategicMerge: false,
        storageVersion: storage,
        fieldLabels: selectableFieldLabels(v.selectableFields),
      };
      if (spec.names.shortNames?.length) def.shortNames = spec.names.shortNames;
      if (spec.names.categories?.length) def.categories = spec.names.categories;
      if (hasStatus) def.status = true;
      if (v.subresources?.scale) def.scale = v.subresources.scale;
      return def;
    });
}
